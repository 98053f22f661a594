"""Seed 004's own config examples, written exactly in the seed's shapes (tests/fixtures/writing/seed_004_*.yaml):
§4's workflow_config.yaml, §4 with §13's circuit_breaker block (conditions), §14's quality gates (proceed /
retry / halt). Each validates, converts, and runs to an end on the offline double (issue 23, item 1)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from activities.artifacts import store
from activities.writing.configs import load_named_config
from client.cli import app
from rules.writing.config import parse_config
from tests.workflows.writing.conftest import gate, start

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "writing"
S4, S4_S13, S14 = (FIXTURES / f"seed_004_{n}.yaml" for n in ("s4", "s4_s13", "s14"))
MODELS = ["m-a", "m-b"]
runner = CliRunner()


def _log(result) -> list[dict]:
    return [json.loads(x) for x in store().get(result.artifacts["state_log.jsonl"]).splitlines()]


def _raw(path: Path) -> dict:
    return copy.deepcopy(yaml.safe_load(path.read_text()))


def test_each_seed_example_converts_and_says_what_each_part_became():
    for path in (S4, S4_S13, S14):
        out = runner.invoke(app, ["write", "convert-config", str(path)])
        assert out.exit_code == 0, out.output
    s13 = runner.invoke(app, ["write", "convert-config", str(S4_S13)]).output
    assert "condition 'transition_count >= 20' → limit 20" in s13
    assert "condition 'A→B→A→B pattern in last 4 transitions' → the built-in A→B→A→B check" in s13
    s14 = runner.invoke(app, ["write", "convert-config", str(S14)]).output
    assert "state draft-check: task quality_gate, input draft" in s14
    assert "agent 'quality-gate' (a CLI in the seed) runs on the orchestrator's model, persona quality_gate" in s14
    assert "state halt: status failed → error: true" in s14


def test_the_s13_rules_become_the_built_in_limits_they_spell():
    cfg = load_named_config(str(S4_S13))
    rules = {r.name: r for r in cfg.circuit_breaker.rules}
    assert rules["state_visit_limit"].limit == 3 and rules["transition_limit"].limit == 20
    assert rules["timeout"].limit == 1800 and rules["cost_limit"].limit == 5 and rules["cycle_detection"].limit is None
    assert cfg.circuit_breaker.safety_limits.max_cost_hard == 10


def test_the_s14_gates_are_quality_gates_whatever_their_names():
    cfg = load_named_config(str(S14))
    for name in ("draft-check", "audit-check", "synth-check"):
        st = cfg.states[name]
        assert st.task == "quality_gate" and st.agent == "orchestrator" and st.persona == "quality_gate"
    assert cfg.states["halt"].error and not cfg.states["complete"].error
    # the §14 human-approval section's final-audit is a single gate too: transitions decide, not the name
    data = _raw(S14)
    data["states"]["final-audit"] = {"type": "single", "agent": "quality-gate", "input": "final/final_post.md",
                                     "output": "reviews/final_review.json",
                                     "transitions": {"proceed": "final-analysis", "retry": "synthesize",
                                                     "halt": "halt"}}
    assert parse_config(data).states["final-audit"].task == "quality_gate"


async def test_the_s4_example_runs_to_an_end(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, load_named_config(str(S4)))).result()
    assert result.status == "complete" and result.final_post is not None


async def test_the_s4_s13_example_runs_to_an_end(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, load_named_config(str(S4_S13)))).result()
    assert result.status == "complete"
    assert not [e for e in _log(result) if e["event"] == "circuit_break"]


async def test_a_condition_rule_breaks_and_the_orchestrator_decides(ts_env, worker, offline):
    data = _raw(S4_S13)
    data["circuit_breaker"]["rules"].append({"name": "second_cross_audit",
                                             "condition": "state == 'synthesize' and transition_count >= 3"})
    offline.script("writing_orchestrator", {"reasoning": "enough", "decision": "halt"})
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, parse_config(data))).result()
    breaks = [e for e in _log(result) if e["event"] == "circuit_break"]
    assert [b["rule"] for b in breaks] == ["second_cross_audit"]
    assert result.status == "halted" and "second_cross_audit" in result.reason


async def test_the_s14_gates_retry_with_guidance_then_proceed(ts_env, worker, offline):
    offline.script("writing_quality_gate", gate("retry", "Open on the fan noise."), gate("proceed"),
                   gate("proceed"), gate("proceed"))
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, load_named_config(str(S14)))).result()
    assert result.status == "complete"
    path = [t for _, t in result.transitions]
    assert path[:4] == ["draft", "draft-check", "draft", "draft-check"] and path[-1] == "complete"
    drafts = [c.messages[-1]["content"] for c in offline.calls("writing_draft")]
    assert len(drafts) == 4 and "Open on the fan noise." in drafts[2] and "Open on the fan noise." in drafts[3]


async def test_an_s14_gate_halt_ends_in_the_failed_terminal(ts_env, worker, offline):
    offline.script("writing_quality_gate", gate("halt"))
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, load_named_config(str(S14)))).result()
    assert result.status == "halted" and result.final_state == "halt"
    assert "the quality gate decided to halt in 'draft-check'" in result.reason


S14_APPROVAL = FIXTURES / "seed_004_s14_approval.yaml"


def test_the_seeds_persona_files_beside_the_config_are_read_and_the_others_fall_back():
    from client.writing.cli import seed_personas

    personas = seed_personas(str(S14_APPROVAL))
    assert set(personas) == {"quality_gate_strict", "quality_gate_lenient"}  # tech_reviewer.md is not there
    assert "strict Quality Gate" in personas["quality_gate_strict"]
    assert seed_personas(str(S4)) == {}  # prompts/writer_persona.md etc. do not exist: the bundled ones run


async def test_the_s14_strict_and_lenient_gates_and_the_human_approval_run_as_written(ts_env, worker, offline):
    from client.writing.cli import seed_personas
    from models.writing.workflow import ApprovalInput
    from workflows.writing.workflow import WritingWorkflow

    offline.script("writing_quality_gate", gate("proceed"), gate("retry", "Name the fan speed."), gate("proceed"))
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, load_named_config(str(S14_APPROVAL)),
                             personas=seed_personas(str(S14_APPROVAL)))
        pending = await handle.execute_update(WritingWorkflow.await_approval_request)
        assert pending is not None and "Type 'yes' to approve and complete" in pending.prompt
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        result = await handle.result()
    assert result.status == "complete" and result.final_state == "complete"
    gates = [str(c.messages) for c in offline.calls("writing_quality_gate")]
    assert "lenient Quality Gate" in gates[0] and "strict Quality Gate" in gates[1]
    synths = [c.messages[-1]["content"] for c in offline.calls("writing_synthesize")]
    assert len(synths) == 2 and "Name the fan speed." in synths[1]
