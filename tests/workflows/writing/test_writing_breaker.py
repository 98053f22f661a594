"""Quality gates, circuit-breaker rules, orchestrator decisions and hard limits on real workflows (§13, §14)."""

from __future__ import annotations

import json

import pytest
from temporalio.client import WorkflowFailureError

from activities.artifacts import store
from activities.llm.offline import Fault
from models.writing.workflow import WorkflowConfig
from tests.workflows.writing.conftest import (
    by_model,
    config,
    gate,
    gated_without_human,
    raw_config,
    rules,
    start,
)
from workflows.writing.workflow import WritingWorkflow

MODELS = ["m-a", "m-b", "m-c"]
FEEDBACK = "Previous attempt feedback"


def _log(result) -> list[dict]:
    return [json.loads(x) for x in store().get(result.artifacts["state_log.jsonl"]).splitlines()]


def _draft_prompts(offline) -> list[str]:
    return [c.messages[-1]["content"] for c in offline.calls("writing_draft")]


async def test_gate_retry_guidance_reaches_the_next_run_once_and_the_config_is_untouched(ts_env, worker, offline):
    cfg = gated_without_human(circuit_breaker=rules(state_visit_limit=5))
    offline.script("writing_quality_gate", gate("retry", "Open with the temperature reading."),
                   gate("retry", ""), gate("proceed", score=8), gate("proceed"), gate("proceed"))
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, cfg)
        result = await handle.result()
    assert result.status == "complete"
    prompts = _draft_prompts(offline)
    assert len(prompts) == 9
    first, second, third = prompts[:3], prompts[3:6], prompts[6:]
    assert not any(FEEDBACK in p for p in first)
    assert all(f"{FEEDBACK}:\nOpen with the temperature reading." in p for p in second)
    assert not any("temperature reading" in p for p in third)  # consumed once
    assert not any("temperature reading" in c.messages[-1]["content"] for c in offline.calls("writing_audit"))
    manifest = store().get(result.artifacts["run_manifest.yaml"])
    assert "temperature reading" not in manifest  # the config (in the manifest) never held the guidance
    assert [t for _, t in result.transitions][:6] == ["draft", "draft-check", "draft", "draft-check", "draft",
                                                      "draft-check"]
    gates = [e for e in _log(result) if e["event"] == "quality_gate"]
    assert [(g["state"], g["decision"], g["score"]) for g in gates][:3] == [
        ("draft-check", "retry", 6), ("draft-check", "retry", 6), ("draft-check", "proceed", 8)]


async def test_gate_halt_ends_the_run(ts_env, worker, offline):
    offline.script("writing_quality_gate", gate("halt", score=2))
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, gated_without_human())).result()
    assert result.status == "halted" and result.transitions[-1] == ("draft-check", "halt")
    assert offline.calls("writing_audit") == []


async def test_state_visit_limit_breaks_and_the_orchestrator_halts(ts_env, worker, offline):
    cfg = gated_without_human(circuit_breaker=rules(state_visit_limit=3))
    offline.script("writing_quality_gate", *[gate("retry", "more detail")] * 5)
    offline.script("writing_orchestrator", {"reasoning": "quality is not improving", "decision": "halt"})
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    assert result.status == "halted"
    assert "state_visit_limit" in result.reason and "quality is not improving" in result.reason
    assert len(offline.calls("writing_draft")) == 6  # the third visit never ran
    consult = offline.calls("writing_orchestrator")
    assert len(consult) == 1
    prompt = consult[0].messages[-1]["content"]
    assert "**Rule triggered:** state_visit_limit" in prompt and "draft-check→draft" in prompt
    assert "draft-check v1: 6/10 (retry)" in prompt  # quality scores so far
    breaks = [e for e in _log(result) if e["event"] == "circuit_break"]
    assert breaks[0]["rule"] == "state_visit_limit" and breaks[0]["context"]["state_visits"]["draft"] == 3


async def test_cycle_detection_then_retry_different_with_new_guidance(ts_env, worker, offline):
    # a real A→B→A→B loop on success edges (a gate retry or a failure back-edge is a retry, not a cycle)
    data = raw_config()
    data["states"]["final-audit"]["transitions"]["all_success"] = "synthesize"
    data["circuit_breaker"] = rules(cycle_detection=None)
    cfg = WorkflowConfig.model_validate(data)
    offline.script("writing_orchestrator", {"reasoning": "same loop twice", "retry_from": "draft",
                                            "retry_guidance": "Lead with the 94 degrees.",
                                            "decision": "retry_different"},
                   {"reasoning": "still looping", "decision": "halt"})
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    assert result.status == "halted" and "still looping" in result.reason
    breaks = [e for e in _log(result) if e["event"] == "circuit_break"]
    assert [b["rule"] for b in breaks] == ["cycle_detection", "cycle_detection"]
    assert "synthesize → final-audit → synthesize → final-audit" in breaks[0]["message"]
    prompts = _draft_prompts(offline)
    assert len(prompts) == 6
    assert not any("Lead with the 94 degrees." in p for p in prompts[:3])
    assert all("Lead with the 94 degrees." in p for p in prompts[3:])
    decision = [e for e in _log(result) if e["event"] == "orchestrator_decision"][0]
    assert decision["decision"] == "retry_different" and decision["retry_from"] == "draft"


async def test_transition_limit_then_force_complete_uses_the_best_scored_draft(ts_env, worker, offline):
    cfg = config(circuit_breaker=rules(transition_limit=3))

    def audit(req):
        reviews = [{"target": t, "feedback": "ok", "hook_score": 5, "specifics_score": 5, "voice_score": 5,
                    "structure_score": 5, "overall_score": 9 if t == "m-b" else 5} for t in ["m-a", "m-b", "m-c"]]
        return {"reviews": reviews, "consensus": "m-b is best"}
    offline.script("writing_audit", audit, audit, audit)
    offline.script("writing_orchestrator", {"reasoning": "good enough", "decision": "force_complete"})
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, cfg)
        result = await handle.result()
    assert result.status == "complete" and result.forced
    assert result.final_post.state == "draft" and result.final_post.model == "m-b"
    assert offline.calls("writing_synthesize") == []
    assert "forced by the orchestrator" in store().get(result.artifacts["run_summary.md"])


async def test_force_complete_honours_the_named_output(ts_env, worker, offline):
    cfg = config(circuit_breaker=rules(transition_limit=3))
    offline.script("writing_orchestrator", {"reasoning": "c reads best", "use_output": "draft/m-c",
                                            "decision": "force_complete"})
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    assert result.forced and result.final_post.model == "m-c"


async def test_timeout_rule_then_dump_context_fails_with_a_debug_dump(ts_env, worker, offline, isolated_store):
    cfg = config(circuit_breaker=rules(timeout=1))
    offline.set_latency(1.2, "writing_draft")
    offline.script("writing_orchestrator", {"reasoning": "unexpected slowness", "decision": "dump_context"})
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, cfg)
        with pytest.raises(WorkflowFailureError) as info:
            await handle.result()
        status = await handle.query(WritingWorkflow.run_status)
    message = str(info.value.cause)
    assert "dump_context" in message and "unexpected slowness" in message and "debug_dump.json" in message
    dump = json.loads((isolated_store / "artifacts" / handle.id / "debug_dump.json").read_text())
    assert dump["break"]["rule"] == "timeout" and dump["break"]["context"]["elapsed_s"] >= 1
    assert status.status == "failed"
    assert (isolated_store / "artifacts" / handle.id / "run_summary.md").exists()


async def test_cost_limit_breaks_and_halt_keeps_what_was_produced(ts_env, worker, offline):
    prices = {m: {"cost_per_1k": {"input": 1.0, "output": 1.0}} for m in MODELS}
    cfg = config(agents=prices, circuit_breaker=rules(cost_limit=0.05))
    offline.script("writing_orchestrator", {"reasoning": "over budget", "decision": "halt"})
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, cfg)
        result = await handle.result()
        outputs = await handle.query(WritingWorkflow.outputs)
    assert result.status == "halted" and "cost_limit" in result.reason
    assert result.cost_usd >= 0.05
    assert len(outputs.outputs["draft"]) == 3  # nothing produced is lost
    assert offline.calls("writing_audit") == []


async def test_hard_transition_limit_wins_over_the_orchestrator(ts_env, worker, offline):
    cfg = gated_without_human(circuit_breaker=rules(state_visit_limit=3, hard={"max_transitions_hard": 6}))
    offline.script("writing_quality_gate", *[gate("retry", "again")] * 6)
    offline.script("writing_orchestrator", *[{"reasoning": "keep trying", "retry_from": "draft",
                                              "decision": "retry_different"}] * 3)
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    assert result.status == "halted"
    assert "hard safety limit hard_transition_limit" in result.reason
    assert len(result.transitions) == 6
    assert len(offline.calls("writing_orchestrator")) == 1  # consulted once; the hard limit needs no opinion
    assert [e["rule"] for e in _log(result) if e["event"] == "hard_limit"] == ["hard_transition_limit"]


async def test_hard_cost_limit_halts_without_consulting_anyone(ts_env, worker, offline):
    prices = {m: {"cost_per_1k": {"input": 1.0, "output": 1.0}} for m in MODELS}
    cfg = config(agents=prices, circuit_breaker=rules(cost_limit=100, hard={"max_cost_hard": 0.01}))
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    assert result.status == "halted" and "hard_cost_limit" in result.reason
    assert offline.calls("writing_orchestrator") == [] and offline.calls("writing_audit") == []


async def test_orchestrator_outage_halts_with_the_reason(ts_env, worker, offline):
    cfg = config(circuit_breaker=rules(transition_limit=2))
    offline.script("writing_orchestrator", Fault(kind="auth"))
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    assert result.status == "halted"
    assert "could not be consulted" in result.reason and "authentication failed" in result.reason


async def test_fan_out_agents_from_the_config_override_the_run_models(ts_env, worker, offline):
    data = config().model_dump()
    data["states"]["final-audit"]["agents"] = ["judge-x"]
    cfg = type(config())(**data)
    offline.script("writing_final_audit", by_model({"judge-x": None}))
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    assert result.status == "complete"
    assert [c.model for c in offline.calls("writing_final_audit")] == ["judge-x"]


async def test_hard_runtime_limit_halts_after_the_slow_state(ts_env, worker, offline):
    cfg = config(circuit_breaker=rules(timeout=1000, hard={"max_runtime_hard": 1}))
    offline.set_latency(1.2, "writing_draft")
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    assert result.status == "halted" and "hard_timeout" in result.reason
    assert offline.calls("writing_orchestrator") == [] and offline.calls("writing_audit") == []


async def test_a_hung_synthesizer_times_out_and_is_retried_in_place(ts_env, offline):
    from tests.workflows.writing.conftest import quick_worker

    data = config().model_dump()
    data["states"]["synthesize"]["timeout_s"] = 1
    cfg = type(config())(**data)
    offline.script("writing_synthesize", Fault(kind="hang"), "SECOND TRY POST.")
    async with quick_worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    assert result.status == "complete"
    # retry != revisit: the timed-out synthesis runs again in place, the cross-audits are not redone
    assert [t for _, t in result.transitions][:4] == ["draft", "cross-audit", "synthesize", "final-audit"]
    assert "SECOND TRY POST." in store().get(result.final_post.ref)
    retried = [e for e in _log(result) if e["event"] == "state_retry"]
    assert retried[0]["state"] == "synthesize" and "timed out after 1s" in retried[0]["error"]
    assert not [e for e in _log(result) if e["event"] in ("state_failed", "circuit_break")]


async def test_a_gate_that_cannot_answer_halts_when_the_config_has_no_failure_transition(ts_env, worker, offline):
    offline.script("writing_quality_gate", Fault(kind="auth"))
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, gated_without_human())).result()
    assert result.status == "halted"
    assert "state 'draft-check' ended with 'failure' and the config has no such transition" in result.reason
