"""Config validation (before any model is called) and transition rules of the writing pipeline."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from models.common import ArtifactRef
from models.writing.workflow import AgentOutput, AuditScoreRow
from rules.writing.config import ConfigError, parse_config, parse_config_yaml, validate_config
from rules.writing.transitions import (
    best_output,
    fan_out_outcome,
    normalise_approval,
    store_guidance,
    take_guidance,
)

CONFIGS = Path(__file__).resolve().parents[3] / "configs" / "writing"


def raw(name="default"):
    return copy.deepcopy(yaml.safe_load((CONFIGS / f"{name}.yaml").read_text()))


def errors_of(data) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_config(data, "t")
    return info.value.errors


@pytest.mark.parametrize("name", ["default", "gated"])
def test_shipped_configs_are_valid(name):
    cfg = parse_config_yaml((CONFIGS / f"{name}.yaml").read_text(), name)
    assert validate_config(cfg) == []


def test_default_config_reproduces_the_seed_pipeline():
    cfg = parse_config(raw())
    path, state = [], "start"
    while cfg.states[state].type != "terminal":
        s = cfg.states[state]
        state = s.next or s.transitions.get("all_success") or s.transitions["success"]
        path.append(state)
    assert path == ["draft", "cross-audit", "synthesize", "final-audit", "final-analysis", "complete"]
    assert cfg.states["draft"].transitions["all_failure"] == "halt"
    assert cfg.states["cross-audit"].transitions["all_failure"] == "draft"


def test_gated_config_has_the_three_gates_and_human_approval():
    cfg = parse_config(raw("gated"))
    gates = {n for n, s in cfg.states.items() if s.task == "quality_gate"}
    assert gates == {"draft-check", "audit-check", "synth-check"}
    assert cfg.states["draft-check"].transitions == {"proceed": "cross-audit", "retry": "draft", "halt": "halt"}
    assert cfg.states["human-approval"].transitions["feedback"] == "synthesize"


def test_unknown_target_missing_transition_and_unreachable_state_are_all_reported():
    data = raw()
    data["states"]["draft"]["transitions"]["partial_success"] = "cross_audit"
    del data["states"]["final-audit"]["transitions"]["all_failure"]
    data["states"]["lonely"] = {"type": "terminal"}
    errs = errors_of(data)
    assert "state 'draft' (fan-out): transition to unknown state 'cross_audit'" in errs
    assert "state 'final-audit' (fan-out): missing transition 'all_failure'" in errs
    assert "state 'lonely' is unreachable from 'start'" in errs


def test_structural_mistakes_have_clear_messages():
    data = raw()
    data["states"]["again"] = {"type": "initial", "next": "draft"}
    data["states"]["synthesize"]["type"] = "fan-out"
    data["states"]["final-analysis"]["transitions"]["approved"] = "complete"
    errs = errors_of(data)
    assert any("exactly one state of type initial is needed, found 2" in e for e in errs)
    assert any("task 'synthesize' cannot fan out" in e for e in errs)
    assert any("transition 'approved' is not valid here" in e for e in errs)


def test_single_state_needs_an_agent_and_personas_must_exist():
    data = raw("gated")
    del data["states"]["draft-check"]["agent"]
    data["states"]["audit-check"]["persona"] = "ghost"
    errs = errors_of(data)
    assert "state 'draft-check' (single): missing 'agent' (a model id, or 'orchestrator')" in errs
    assert any("persona 'ghost' is not defined" in e for e in errs)


def test_no_terminal_and_typos_in_field_names():
    data = raw()
    data["states"] = {"start": {"type": "initial", "next": "draft"},
                      "draft": {"type": "fan-out", "task": "draft", "transitions": {
                          "all_success": "draft", "partial_success": "draft", "all_failure": "draft"}}}
    assert "no terminal state: add one (e.g. complete) so the run can end" in errors_of(data)
    typo = raw()
    typo["states"]["draft"]["transitons"] = {}
    assert any("states.draft.transitons: Extra inputs are not permitted" in e for e in errors_of(typo))
    bad_type = raw()
    bad_type["states"]["draft"]["type"] = "fanout"
    assert any("states.draft.type" in e for e in errors_of(bad_type))


def test_yaml_errors_are_config_errors():
    with pytest.raises(ConfigError, match="not valid YAML"):
        parse_config_yaml("states: [unclosed", "broken")
    with pytest.raises(ConfigError, match="must be a mapping"):
        parse_config_yaml("- a list", "broken")


def test_fan_out_outcomes():
    assert fan_out_outcome(3, 3) == "all_success"
    assert fan_out_outcome(1, 3) == "partial_success"
    assert fan_out_outcome(0, 3) == "all_failure"
    assert fan_out_outcome(0, 0) == "all_failure"


def test_guidance_is_consumed_once_and_never_lost():
    pending: dict[str, str] = {}
    store_guidance(pending, "draft", "add the temperature")
    store_guidance(pending, "draft", "  ")
    store_guidance(pending, "draft", "shorter")
    assert take_guidance(pending, "draft") == "add the temperature\n\nshorter"
    assert take_guidance(pending, "draft") is None


@pytest.mark.parametrize("decision,feedback,expected", [
    ("approve", None, ("approved", None)), ("YES", None, ("approved", None)), ("abort", None, ("abort", None)),
    ("reject", "too long", ("feedback", "too long")),
    ("feedback", " tighten the hook ", ("feedback", "tighten the hook")),
])
def test_approval_answers(decision, feedback, expected):
    assert normalise_approval(decision, feedback) == expected


def test_approval_errors_and_free_text():
    with pytest.raises(ValueError, match="reject needs feedback"):  # never an abort
        normalise_approval("reject", None)
    assert normalise_approval("reject", None, strict_reject=False) == ("abort", None)  # runs started before
    with pytest.raises(ValueError, match="feedback needs text"):
        normalise_approval("feedback", "  ")
    with pytest.raises(ValueError, match="unknown approval decision 'maybe'"):
        normalise_approval("maybe", None)
    with pytest.raises(ValueError, match="empty approval decision"):
        normalise_approval("", None)
    assert normalise_approval("make it punchier", None, free_text=True) == ("feedback", "make it punchier")


def _out(state, model, kind, name):
    return AgentOutput(state=state, model=model, kind=kind,
                       ref=ArtifactRef(uri=f"file:///x/{name}", name=name, sha256="0", size_bytes=1))


def test_best_output_prefers_named_then_post_then_best_scored_draft():
    outputs = {"draft": [_out("draft", "a", "draft", "d_a"), _out("draft", "b", "draft", "d_b")]}
    scores = [AuditScoreRow(state="cross-audit", auditor="a", target="a", overall=6),
              AuditScoreRow(state="cross-audit", auditor="b", target="b", overall=8),
              AuditScoreRow(state="final-audit", kind="final_audit", auditor="a", target="a", overall=10)]
    assert best_output(outputs, scores).model == "b"
    assert best_output(outputs, scores, "draft/a").model == "a"
    assert best_output(outputs, [], None).model == "a"  # ties: the first
    outputs["synthesize"] = [_out("synthesize", "o", "post", "post")]
    assert best_output(outputs, scores).kind == "post"
    assert best_output({}, scores) is None
