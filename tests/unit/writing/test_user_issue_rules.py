"""Pure rules behind the user-reported fixes: breaker rule merging, retry vs revisit, human rounds, per-call
budgets, unique slugs, the final score and its floor, the seed's config shape, trapped loops, wording."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from activities.writing.history import without_offline
from models.common import ArtifactRef
from models.writing.workflow import (
    AgentOutput,
    AuditScoreRow,
    BreakerState,
    CircuitBreakerConfig,
    WorkflowConfig,
)
from rules.writing import breaker
from rules.writing.config import ConfigError, parse_config, validate_config
from rules.writing.outcome import final_score, floor_status, status_line, usable_post
from rules.writing.seed_config import from_seed_shape, is_seed_shape
from rules.writing.summary import unique_slugs

SEED = Path(__file__).resolve().parents[2] / "fixtures" / "writing" / "seed_workflow_config.yaml"
DEFAULT = Path(__file__).resolve().parents[3] / "configs" / "writing" / "default.yaml"


def test_listed_rules_override_their_defaults_and_the_others_stay_on():
    cfg = CircuitBreakerConfig.model_validate({"rules": [{"name": "cycle_detection", "enabled": False},
                                                         {"name": "state_visit_limit", "limit": 5}]})
    rules = {r.name: r for r in breaker.effective_rules(cfg)}
    assert set(rules) == set(breaker.DEFAULT_LIMITS)
    assert not rules["cycle_detection"].enabled and rules["state_visit_limit"].limit == 5
    assert rules["transition_limit"].enabled and rules["cost_limit"].enabled
    bs = BreakerState(state_visits={"draft": 4})
    assert breaker.check_rules(bs, cfg, "draft", 0.0) is None  # the old semantics: only the listed rules
    assert breaker.check_rules(BreakerState(state_visits={"draft": 5}), cfg, "draft", 0.0,
                               merge_defaults=True).rule == "state_visit_limit"


def test_a_retry_edge_never_makes_a_cycle_but_a_success_loop_does():
    bs = BreakerState()
    for a, b, key in [("start", "draft", "next"), ("draft", "check", "all_success"), ("check", "draft", "retry"),
                      ("draft", "check", "all_success")]:
        breaker.record_transition(bs, a, b, key, retry_aware=True)
    assert not breaker.detect_cycle(bs)
    loop = BreakerState()
    for a, b in [("start", "a"), ("a", "b"), ("b", "a"), ("a", "b")]:
        breaker.record_transition(loop, a, b, "success", retry_aware=True)
    assert breaker.detect_cycle(loop)  # the seed's §18 semantics for real revisits


def test_a_human_round_rebases_visits_and_the_cycle_window():
    bs = BreakerState()
    for _ in range(3):
        breaker.record_transition(bs, "x", "synthesize")
    breaker.human_round(bs)
    breaker.record_transition(bs, "human-approval", "synthesize", "feedback")
    assert bs.state_visits["synthesize"] == 4 and breaker.visits_since_baseline(bs, "synthesize") == 1
    assert breaker.check_rules(bs, CircuitBreakerConfig(), "synthesize", 0.0, merge_defaults=True) is None
    assert bs.human_rounds == 1


def test_the_budget_counts_calls_not_yet_recorded_and_tokens():
    cfg = CircuitBreakerConfig.model_validate({"safety_limits": {"max_cost_hard": 1.0, "max_tokens_hard": 100}})
    bs = BreakerState(total_cost_usd=0.7)
    assert breaker.budget_exceeded(bs, cfg, 0.2) is None
    assert breaker.budget_exceeded(bs, cfg, 0.3).startswith("hard_cost_limit")
    assert breaker.budget_exceeded(bs, cfg, 0.0, 100).startswith("hard_token_limit")


def test_unique_slugs_are_collision_free_and_stable():
    ids = ["team/writer", "team_writer", "team:writer", "openai/gpt-4o-mini"]
    slugs = unique_slugs(ids)
    assert len(set(slugs.values())) == 4
    assert slugs["team_writer"] == "team_writer" and slugs["openai/gpt-4o-mini"] == "openai_gpt-4o-mini"
    assert unique_slugs(list(reversed(ids))) == slugs


def _fa(visit, score):
    return AuditScoreRow(state="final-audit", kind="final_audit", visit=visit, auditor="m", target="final_post",
                         overall=score)


def test_final_score_is_the_last_visit_and_never_a_gate():
    assert final_score([_fa(1, 2), _fa(1, 4), _fa(2, 8), _fa(2, 9)], None) == 8.5
    assert final_score([], None) is None
    assert final_score([_fa(1, 2)], 7.0) == 7.0
    assert floor_status("complete", 1.0, 5.0, approved=False)[0] == "complete_below_floor"
    # a human decision is final, and not silent (issue 39): the reason says the score is below the floor
    assert floor_status("complete", 1.0, 5.0, approved=True) == (
        "complete", "final score 1/10 is below the score floor 5; a human approved the post")
    # a score that came after the approval was not part of the human's decision
    assert floor_status("complete", 1.0, 5.0, approved=True, score_seen=False) == (
        "complete_below_floor", "final score 1/10 is below the score floor 5 (scored after a human approved the post)")
    assert floor_status("halted", 1.0, 5.0, approved=False) == ("halted", None)


def test_status_line_and_rejected_posts():
    assert status_line("halted", "halt") == "halted — ended at state 'halt'"
    assert " in 'halt'" not in status_line("complete", "halt")
    ref = ArtifactRef(uri="file:///x/synthesize_v1.md", name="synthesize_v1.md", sha256="0", size_bytes=1)
    post = AgentOutput(state="synthesize", model="o", kind="post", ref=ref)
    assert usable_post(post, ["synthesize_v1.md"]) is None and usable_post(post, []) is post


def test_the_seeds_config_shape_is_recognised_and_converted():
    data = yaml.safe_load(SEED.read_text())
    assert is_seed_shape(data) and not is_seed_shape(yaml.safe_load(DEFAULT.read_text()))
    cfg = parse_config(data, "seed")
    assert cfg.orchestrator.model == "claude" and cfg.personas["writer"] == "writer.md"
    assert {n: s.task for n, s in cfg.states.items() if s.task} == {
        "draft": "draft", "cross-audit": "audit", "synthesize": "synthesize", "final-audit": "final_audit",
        "final-analysis": "final_analysis"}
    assert cfg.states["synthesize"].input == ["draft", "cross-audit"]
    assert cfg.states["final-audit"].input == ["synthesize"] and cfg.states["draft"].input == []
    assert cfg.agents["claude"].context_window == 200000 and cfg.settings.retry_count == 2
    assert "logging" not in from_seed_shape(data)


def test_a_trapped_loop_is_refused_even_when_a_terminal_is_reachable():
    data = yaml.safe_load(DEFAULT.read_text())
    data["states"]["final-analysis"]["transitions"] = {"success": "final-audit"}
    data["states"]["final-audit"]["transitions"] = {k: "final-analysis" for k in
                                                    ("all_success", "partial_success", "all_failure")}
    errors = validate_config(WorkflowConfig.model_validate(data))
    assert any("'final-audit' can never reach a terminal state" in e for e in errors)
    with pytest.raises(ConfigError):
        parse_config(data)


def test_offline_runs_are_left_out_by_a_text_rewrite():
    sql = without_offline("SELECT * FROM audit_scores a JOIN runs r ON a.run_id = r.run_id GROUP BY x")
    assert "FROM (SELECT * FROM audit_scores WHERE run_id IN (SELECT run_id FROM runs WHERE profile IS " \
           "DISTINCT FROM 'offline')) a" in sql
    assert "JOIN (SELECT * FROM runs WHERE profile IS DISTINCT FROM 'offline') r ON" in sql
    assert without_offline("SELECT agent FROM invocations GROUP BY agent").endswith(") invocations GROUP BY agent")
