"""Circuit breaker rules, hard limits (seed §13 and §18's unit tests) and token/cost accounting (§6)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from activities.writing.prompts import agent_list, guidance_block, match_target, prompt_sections
from models.common import LLMUsage
from models.writing.workflow import (
    BreakerState,
    CircuitBreakerConfig,
    Invocation,
    RuleConfig,
    SafetyLimits,
    WorkflowConfig,
)
from rules.writing import breaker
from rules.writing.accounting import (
    context_status,
    context_use,
    context_window_for,
    invocation_cost,
    run_totals,
    totals_by,
)


def cfg(*names, hard=None, **limits):
    rules = [RuleConfig(name=n, limit=limits.get(n)) for n in names]
    return CircuitBreakerConfig(rules=rules, safety_limits=SafetyLimits(**(hard or {})))


def walk(bs, conf, *pairs, elapsed=0.0):
    result = None
    for a, b in pairs:
        breaker.record_transition(bs, a, b)
        result = breaker.check_rules(bs, conf, b, elapsed)
    return result


def test_state_visit_limit_triggers_on_the_third_visit():
    bs, conf = BreakerState(), cfg("state_visit_limit", "transition_limit")
    assert walk(bs, conf, ("start", "draft"), ("draft", "check"), ("check", "draft"), ("draft", "check")) is None
    result = walk(bs, conf, ("check", "draft"))
    assert result.rule == "state_visit_limit" and result.overridable
    assert result.context.state_visits == {"draft": 3, "check": 2} and result.context.transition_count == 5
    # the seed's fixture (all three rules): the visit limit is the rule reported on the fifth transition
    bs, conf = BreakerState(), cfg("state_visit_limit", "cycle_detection", "transition_limit")
    walk(bs, conf, ("start", "draft"), ("draft", "check"), ("check", "draft"), ("draft", "check"))
    assert walk(bs, conf, ("check", "draft")).rule == "state_visit_limit"


def test_cycle_detection_a_b_a_b():
    bs, conf = BreakerState(), cfg("cycle_detection")
    assert walk(bs, conf, ("start", "A"), ("A", "B"), ("B", "A")) is None
    result = walk(bs, conf, ("A", "B"))
    assert result is not None and result.rule == "cycle_detection" and "A → B → A → B" in result.message
    assert not breaker.detect_cycle(BreakerState(transition_history=[("a", "b"), ("b", "c"), ("c", "a"),
                                                                     ("a", "b")]))
    assert not breaker.detect_cycle(BreakerState(transition_history=[("x", "a"), ("a", "a"), ("a", "a"),
                                                                     ("a", "a")]))
    bs.cycle_window_start = len(bs.transition_history)  # re-armed: the old pattern no longer counts
    assert walk(bs, conf, ("B", "A"), ("A", "B"), ("B", "A")) is None


def test_transition_timeout_and_cost_rules_with_limits():
    bs, conf = BreakerState(), cfg("transition_limit", transition_limit=2)
    assert walk(bs, conf, ("start", "a")) is None
    assert walk(bs, conf, ("a", "b")).rule == "transition_limit"
    bs, conf = BreakerState(), cfg("timeout")
    assert walk(bs, conf, ("start", "a"), elapsed=1799) is None
    assert walk(bs, conf, ("a", "b"), elapsed=1800).rule == "timeout"
    bs, conf = BreakerState(), cfg("cost_limit")
    breaker.add_cost(bs, 4.99)
    assert walk(bs, conf, ("start", "a")) is None
    breaker.add_cost(bs, 0.01)
    assert walk(bs, conf, ("a", "b")).rule == "cost_limit"


def test_disabled_rules_never_fire():
    conf = CircuitBreakerConfig(rules=[RuleConfig(name="transition_limit", limit=1, enabled=False)])
    assert walk(BreakerState(), conf, ("start", "a"), ("a", "b")) is None


def test_rearm_counts_the_fired_rule_again_from_here_but_hard_limits_never_reset():
    bs, conf = BreakerState(), cfg("state_visit_limit", "transition_limit", hard={"max_transitions_hard": 6},
                                   transition_limit=4)
    walk(bs, conf, ("start", "d"), ("d", "c"), ("c", "d"))
    assert walk(bs, conf, ("d", "c")).rule == "transition_limit"
    breaker.rearm(bs, "transition_limit", "c", 0)
    assert walk(bs, conf, ("c", "x")) is None
    breaker.rearm(bs, "state_visit_limit", "d", 0)
    assert bs.state_visits["d"] == 0 and bs.consultations == 2
    walk(bs, conf, ("x", "y"))
    hard = breaker.check_safety_limits(bs, conf, 0)
    assert hard is not None and hard.rule == "hard_transition_limit" and not hard.overridable


def test_hard_limits_cost_runtime_transitions():
    conf = cfg()
    bs = BreakerState()
    breaker.add_cost(bs, 4.50)
    assert breaker.check_safety_limits(bs, conf, 0) is None
    breaker.add_cost(bs, 6.00)
    assert breaker.check_safety_limits(bs, conf, 0).rule == "hard_cost_limit"
    assert breaker.check_safety_limits(BreakerState(), conf, 3600).rule == "hard_timeout"
    assert breaker.check_safety_limits(BreakerState(transition_count=50), conf, 0).rule == "hard_transition_limit"
    breaker.rearm(bs, "cost_limit", "a", 0)  # re-arming a soft rule does not touch the hard limit
    assert breaker.check_safety_limits(bs, conf, 0).rule == "hard_cost_limit"


def _cfg(**agents):
    return WorkflowConfig.model_validate({"states": {"start": {"type": "initial", "next": "done"},
                                                     "done": {"type": "terminal"}}, "agents": agents})


def test_cost_uses_the_config_price_else_the_gateway_cost():
    conf = _cfg(**{"claude": {"cost_per_1k": {"input": 0.003, "output": 0.015}, "context_window": 200000}})
    usage = LLMUsage(agent="writing_draft", model="claude", provider="p", input_tokens=1250, output_tokens=380,
                     cost_usd=1.0)
    assert invocation_cost(conf, "claude", usage) == pytest.approx(0.00945)  # the seed's $0.0095 row
    assert invocation_cost(conf, "other", usage) == 1.0
    assert context_window_for(conf, "claude") == 200000
    assert context_window_for(conf, "anthropic/claude-3-5-haiku") == 200000
    assert context_window_for(conf, "mystery") == 128000


def test_context_health_thresholds():
    assert [context_status(p) for p in (10, 60.1, 80.5, 95)] == ["healthy", "moderate", "warning", "critical"]
    assert context_use(1630, 200000) == (0.81, "healthy")
    assert context_use(10, 0) == (0.0, "healthy")


def _inv(seq, state, model, cost, tin, tout, status="success"):
    return Invocation(seq=seq, state=state, visit=1, task="draft", agent="writing_draft", model=model,
                      started_at=datetime(2026, 1, 7, tzinfo=UTC), status=status, input_tokens=tin,
                      output_tokens=tout, cost_usd=cost)


def test_totals_by_agent_and_state_add_up_to_the_run():
    invs = [_inv(1, "draft", "a", 0.01, 100, 50), _inv(2, "draft", "b", 0.02, 100, 60),
            _inv(3, "audit", "a", 0.03, 300, 70), _inv(4, "audit", "b", 0.0, 0, 0, "failed")]
    total = run_totals(invs)
    by_model, by_state = totals_by(invs, "model"), totals_by(invs, "state")
    assert total.cost_usd == pytest.approx(0.06) and total.total_tokens == 680
    assert sum(t.cost_usd for t in by_model.values()) == pytest.approx(total.cost_usd)
    assert sum(t.total_tokens for t in by_state.values()) == total.total_tokens
    assert by_model["a"].invocations == 2 and by_state["audit"].succeeded == 1


def test_dynamic_prompt_sections_name_only_what_exists():
    docs = [("claude", "draft", "Claude text"), ("codex", "draft", "Codex text"), ("claude", "audit", "ok")]
    sections = prompt_sections(docs)
    assert sections["agent_list"] == "claude, codex"
    assert "## Draft from claude" in sections["drafts"] and "gemini" not in str(sections)
    assert sections["auditor_list"] == "claude" and sections["post"] == ""
    assert agent_list([], "draft") == ""
    assert guidance_block(" be concrete ") == "Previous attempt feedback:\nbe concrete"
    assert guidance_block("  ") == ""


def test_auditor_target_labels_are_matched_to_the_models_shown():
    known = ["openai/gpt-4o", "openai/gpt-4o-mini", "m-a"]
    assert match_target("openai/gpt-4o", known) == "openai/gpt-4o"
    assert match_target("Draft from OpenAI/GPT-4o-mini", known) == "openai/gpt-4o-mini"  # longest unique name
    assert match_target("M-A", known) == "m-a"
    assert match_target("gemini", known) is None
