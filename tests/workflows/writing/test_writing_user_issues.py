"""The writing pipeline as a new user meets it: human decisions, budgets, retries, statuses, names, history,
the seed's config, context health and wording (one or more tests per numbered item of the issue)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import duckdb
import pytest
from temporalio.client import WorkflowFailureError, WorkflowUpdateFailedError
from typer.testing import CliRunner

from activities.artifacts import store
from activities.llm.offline import Fault
from activities.writing.configs import load_named_config
from activities.writing.history import HistoryStore
from client.cli import app
from models.writing.workflow import ApprovalInput, WorkflowConfig
from tests.conftest import HISTORIES, replay, replay_recorded
from tests.workflows.writing.conftest import (
    STORY,
    by_model,
    config,
    gate,
    gated_without_human,
    quick_worker,
    raw_config,
    start,
)
from workflows.writing.workflow import WritingWorkflow

MODELS = ["m-a", "m-b"]
SEED_CONFIG = Path(__file__).resolve().parents[2] / "fixtures" / "writing" / "seed_workflow_config.yaml"
runner = CliRunner()


def _log(result) -> list[dict]:
    return [json.loads(x) for x in store().get(result.artifacts["state_log.jsonl"]).splitlines()]


async def _pending(handle):
    return await handle.execute_update(WritingWorkflow.await_approval_request)


def _address(env) -> str:
    return env.client.service_client.config.target_host


def _final_audit(score: int) -> dict:
    return {"strengths": ["s"], "issues": [], "feedback": "f", "hook_score": score, "specifics_score": score,
            "voice_score": score, "structure_score": score, "overall_score": score, "verdict": "ready"}


# ------------------------------------------------------------------------------- 1. a human decision is final
async def test_two_rejections_reach_a_third_synthesis_and_the_breaker_never_overrides_them(ts_env, worker,
                                                                                         offline):
    offline.script("writing_synthesize", "POST ONE.", "POST TWO.", "POST THREE.")
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        for text in ("Shorter hook.", "Name the GPU."):
            pending = await _pending(handle)
            await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(
                decision="reject", feedback=text, request_id=pending.request_id))
        third = await _pending(handle)
        assert third is not None and third.request_id == "human-approval-3" and "POST THREE." in third.post_text
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        result = await handle.result()
        recorded = HISTORIES / "writing_gated_two_rejections.json"
        await replay(handle, record_as=recorded.stem if os.environ.get("COLLOQUY_RECORD") or not recorded.exists()
                     else None)
    assert result.status == "complete" and not result.forced
    assert "POST THREE." in store().get(result.final_post.ref)
    prompts = [c.messages[-1]["content"] for c in offline.calls("writing_synthesize")]
    assert len(prompts) == 3 and "Human reviewer feedback: Name the GPU." in prompts[2]
    assert not [e for e in _log(result) if e["event"] == "circuit_break"]


async def test_a_break_after_a_rejection_halts_instead_of_completing_with_the_rejected_post(ts_env, worker,
                                                                                          offline):
    data = raw_config("gated")
    data["circuit_breaker"]["rules"] = [{"name": "transition_limit", "limit": 9}]
    offline.script("writing_synthesize", "REJECTED POST.")
    offline.script("writing_orchestrator", {"reasoning": "good enough", "decision": "force_complete"})
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, WorkflowConfig.model_validate(data))
        await _pending(handle)
        await handle.execute_update(WritingWorkflow.submit_approval,
                                    ApprovalInput(decision="reject", feedback="Not this."))
        result = await handle.result()
    assert result.status == "halted" and not result.forced
    assert "rejected by the human reviewer" in result.reason and "transition_limit" in result.reason


async def test_recorded_two_rejections_history_replays(ts_env):
    await replay_recorded("writing_gated_two_rejections")  # the new paths (patch markers) stay deterministic


# ------------------------------------------------------------------------- 2. reject without feedback asks for it
async def test_reject_without_feedback_is_refused_and_the_cli_asks_for_it(ts_env, worker, offline):
    offline.script("writing_synthesize", "KEEP ME.")
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        await _pending(handle)
        with pytest.raises(WorkflowUpdateFailedError) as info:
            await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="reject"))
        assert "reject needs feedback" in str(info.value.cause)
        out = await asyncio.to_thread(runner.invoke, app, ["write", "reject", handle.id,
                                                           "--address", _address(ts_env)])
        assert out.exit_code == 2 and "reject needs feedback" in out.output and "write abort" in out.output
        status = await handle.query(WritingWorkflow.run_status)
        assert status.status == "waiting_approval" and "KEEP ME." in status.pending_approval.post_text
        aborted = await asyncio.to_thread(runner.invoke, app, ["write", "abort", handle.id,
                                                               "--address", _address(ts_env)])
        assert aborted.exit_code == 0, aborted.output
        result = await handle.result()
    assert result.status == "halted"
    assert "the human reviewer aborted the run in 'human-approval'" in result.reason


# ----------------------------------------------------------------------------- 3. budgets checked per call
async def test_the_hard_cost_cap_is_checked_after_every_call_of_a_fan_out_of_8(ts_env, offline):
    models = [f"m-{i}" for i in range(8)]
    fast = set(models[:3])
    data = raw_config()
    data["agents"] = {m: {"cost_per_1k": {"input": 2.0, "output": 0.0}} for m in models}  # ~$0.4 per draft
    data["circuit_breaker"]["safety_limits"]["max_cost_hard"] = 1.0
    data["settings"]["timeout_per_agent"] = 600
    cfg = WorkflowConfig.model_validate(data)
    offline.script("writing_draft", *[by_model({m: f"Draft by {m}." for m in fast}, Fault(kind="hang"))] * 8)
    async with quick_worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, models, cfg)).result()
    status_by_model = {}
    tokens = [json.loads(x) for x in store().get(result.artifacts["token_usage.jsonl"]).splitlines()]
    for row in tokens:
        status_by_model[row["agent"]] = row["status"]
    assert result.status == "halted" and "hard_cost_limit" in result.reason and "cancelled" in result.reason
    assert {m for m, st in status_by_model.items() if st == "success"} == fast
    assert {m for m, st in status_by_model.items() if st == "cancelled"} == set(models) - fast
    per_call = max(r["cost_usd"] for r in tokens)
    # the documented bound: spend <= cap + the calls already in flight when it was crossed (at most the 8)
    assert 1.0 <= result.cost_usd <= 1.0 + 8 * per_call
    assert offline.calls("writing_audit") == []


# ---------------------------------------------------------------------------------- 4. retry != revisit
async def test_a_transient_synthesis_failure_is_retried_in_place_even_with_the_orchestrator_down(ts_env, worker,
                                                                                               offline):
    offline.script("writing_synthesize", *[Fault(kind="server_error")] * 3, "THE POST.")  # one call's 3 attempts
    offline.script("writing_orchestrator", *[Fault(kind="auth")] * 4)
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS)).result()
    assert result.status == "complete" and "THE POST." in store().get(result.final_post.ref)
    assert len(offline.calls("writing_audit")) == len(MODELS)  # the cross-audits ran once
    events = [e["event"] for e in _log(result)]
    assert "state_retry" in events and "circuit_break" not in events


async def test_one_gate_retry_is_not_a_cycle(ts_env, worker, offline):
    offline.script("writing_quality_gate", gate("retry", "more detail"))
    offline.script("writing_orchestrator", *[Fault(kind="auth")] * 4)
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, gated_without_human())).result()
    assert result.status == "complete"
    assert not [e for e in _log(result) if e["event"] == "circuit_break"]


# ------------------------------------------------------------------------ 5. listed rules merge with defaults
async def test_listing_one_rule_keeps_the_default_visit_limit(ts_env, worker, offline):
    cfg = gated_without_human(circuit_breaker={"rules": [{"name": "cycle_detection", "enabled": False}]})
    offline.script("writing_quality_gate", *[gate("retry", "again")] * 6)
    offline.script("writing_orchestrator", {"reasoning": "stop", "decision": "halt"})
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    breaks = [e for e in _log(result) if e["event"] == "circuit_break"]
    assert [b["rule"] for b in breaks] == ["state_visit_limit"] and "visited 3x (limit 3)" in breaks[0]["message"]
    assert result.status == "halted"


# ------------------------------------------------------------------------------------ 6. status on every path
async def test_an_early_failure_ends_failed_and_status_agrees(ts_env, worker, offline, tmp_path):
    nine = [f"m-{i}" for i in range(9)]
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, nine)
        with pytest.raises(WorkflowFailureError):
            await handle.result()
        status = await handle.query(WritingWorkflow.run_status)
        shown = await asyncio.to_thread(runner.invoke, app, ["write", "status", handle.id,
                                                             "--address", _address(ts_env)])
    assert status.status == "failed" and "9 models, at most 8" in status.reason
    assert "failed in state 'prepare'" in shown.output and "at most 8" in shown.output
    story = tmp_path / "s.md"
    story.write_text(STORY)
    out = runner.invoke(app, ["write", str(story), "--models", ",".join(nine), "--address", "127.0.0.1:1"])
    assert out.exit_code == 2 and "at most 8" in out.output  # refused before anything starts


# -------------------------------------------------------------------------------- 7. collision-free names
async def test_model_ids_that_slug_alike_get_distinct_stable_file_names(ts_env, worker, offline):
    models = ["team/writer", "team_writer", "team:writer"]
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, models)).result()
    assert result.status == "complete" and not result.forced
    view = [e for e in _log(result) if e["event"] == "fan_out_complete" and e["state"] == "draft"][0]
    files = {m: o["file"] for m, o in view["outputs"].items()}
    assert len(set(files.values())) == 3 and files["team_writer"] == "draft_v1_team_writer.md"
    assert not [e for e in _log(result) if e["event"] == "agent_failed"]


# ------------------------------------------------------------------------------- 8. history you can trust
async def test_final_score_uses_only_the_last_final_audit_visit(ts_env, worker, offline):
    offline.script("writing_final_audit", _final_audit(2), _final_audit(2), _final_audit(8), _final_audit(8))
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        await _pending(handle)
        await handle.execute_update(WritingWorkflow.submit_approval,
                                    ApprovalInput(decision="reject", feedback="Try again."))
        await _pending(handle)
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        result = await handle.result()
    assert result.final_score == 8


async def test_offline_runs_carry_their_profile_and_analytics_leave_them_out(ts_env, worker, offline,
                                                                              isolated_store):
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS)).result()
    con = duckdb.connect(str(isolated_store / "history.duckdb"), read_only=True)
    assert con.execute("SELECT profile FROM runs").fetchall() == [("offline",)]
    con.close()
    history = HistoryStore()
    assert history.query("costs")[1] == []
    assert {r[0] for r in history.query("costs", include_offline=True)[1]} >= set(MODELS)
    out = runner.invoke(app, ["history", "trend"])
    assert result.run_id not in out.output
    assert result.run_id in runner.invoke(app, ["history", "trend", "--include-offline"]).output


async def test_a_run_below_the_score_floor_says_so(ts_env, worker, offline):
    offline.script("writing_final_analysis", {"summary": "Weak.", "suggestions": [], "final_score": 1.0,
                                              "determination": "revise"})
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS)).result()
    assert result.status == "complete_below_floor" and result.final_score == 1
    assert "below the score floor 5" in result.reason


# ------------------------------------------------------------------------- 9. the seed's config shape
async def test_the_seeds_workflow_config_runs_as_it_is(ts_env, worker, offline):
    cfg = load_named_config(str(SEED_CONFIG))
    assert cfg.states["synthesize"].task == "synthesize" and cfg.states["cross-audit"].input == ["draft"]
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    assert result.status == "complete"
    converted = runner.invoke(app, ["write", "convert-config", str(SEED_CONFIG)])
    assert converted.exit_code == 0 and "task: final_analysis" in converted.output


def test_a_loop_with_no_way_out_is_refused(tmp_path):
    data = raw_config()
    data["states"]["final-audit"]["transitions"] = {"all_success": "final-analysis",
                                                   "partial_success": "final-analysis",
                                                   "all_failure": "final-analysis"}
    data["states"]["final-analysis"]["transitions"] = {"success": "final-audit", "failure": "final-audit"}
    data["states"]["synthesize"]["transitions"] = {"success": "final-audit", "failure": "complete"}
    cfg = tmp_path / "trap.yaml"
    import yaml

    cfg.write_text(yaml.safe_dump(data))
    story = tmp_path / "s.md"
    story.write_text(STORY)
    out = runner.invoke(app, ["write", str(story), "--models", "a", "--config", str(cfg), "--address", "127.0.0.1:1"])
    assert out.exit_code == 2 and "can never reach a terminal state" in out.output


# --------------------------------------------------------------------------- 10. context health, agent logs
async def test_context_health_is_cumulative_and_agent_logs_name_prompts_and_inputs(ts_env, worker, offline):
    cfg = config(agents={m: {"context_window": 3000} for m in MODELS})
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    rows = [json.loads(x) for x in store().get(result.artifacts["token_usage.jsonl"]).splitlines()]
    mine = [r for r in rows if r["agent"] == "m-a"]
    assert mine[-1]["context_used_pct"] == pytest.approx(100 * sum(r["total"] for r in mine) / 3000, abs=0.01)
    summary = store().get(result.artifacts["run_summary.md"])
    assert "Session total" in summary
    logs = [k for k in result.artifacts if k.startswith("agent_logs/m-a_cross-audit")]
    entries = [json.loads(x) for x in store().get(result.artifacts[logs[0]]).splitlines()]
    invoke = next(e for e in entries if e["event"] == "invoke")
    assert invoke["prompt_file"] == "cross-audit_v1_m-a.prompt.md"
    assert set(invoke["inputs"]) == {"draft_v1_m-a.md", "draft_v1_m-b.md"}
    prompt = Path(invoke["prompt_uri"].removeprefix("file://")).read_text()
    assert "m-b" in prompt  # the prompt as sent, with the drafts it was given


# ---------------------------------------------------------------------------------------------- 11. wording
def test_config_errors_are_listed_one_per_line_and_a_halt_must_be_an_error_state(tmp_path):
    import yaml

    data = raw_config()
    data["states"]["halt"].pop("error")
    data["states"]["draft"]["transitions"]["all_success"] = "nowhere"
    cfg = tmp_path / "broken.yaml"
    cfg.write_text(yaml.safe_dump(data))
    story = tmp_path / "s.md"
    story.write_text(STORY)
    out = runner.invoke(app, ["write", str(story), "--models", "a", "--config", str(cfg), "--address", "127.0.0.1:1"])
    lines = [line for line in out.output.splitlines() if line.startswith("config error:")]
    assert out.exit_code == 2 and len(lines) >= 2
    assert any("transition to unknown state 'nowhere'" in line for line in lines)
    assert any("'halt' (terminal) is reached only by" in line for line in lines)


async def test_a_synthesizer_failure_is_not_labelled_orchestrator(ts_env, worker, offline):
    offline.script("writing_synthesize", Fault(kind="auth"), Fault(kind="auth"))
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS)).result()
    failed = [e for e in _log(result) if e["event"] == "agent_failed" and e["state"] == "synthesize"]
    assert failed and all(e["agent"] == "synthesizer (default model)" for e in failed)


async def test_the_approval_prompt_names_the_real_commands(ts_env, worker, offline):
    data = raw_config("gated")
    data["states"]["human-approval"].pop("prompt")
    async with worker(ts_env.client) as queue:
        for cfg in (config("gated"), WorkflowConfig.model_validate(data)):
            handle = await start(ts_env, queue, MODELS, cfg)
            pending = await _pending(handle)
            assert "reject" in pending.prompt and "--feedback" in pending.prompt
            assert "feedback <text>" not in pending.prompt
            await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
            await handle.result()


async def test_a_halted_run_prints_no_final_post(ts_env, worker, offline, tmp_path):
    story = tmp_path / "post_11.md"
    story.write_text(STORY)
    offline.script("writing_final_audit", *[Fault(kind="auth")] * 4)
    offline.script("writing_orchestrator", {"reasoning": "the final audit keeps failing", "decision": "halt"})
    async with worker(ts_env.client) as queue:
        out = await asyncio.to_thread(runner.invoke, app, [
            "write", str(story), "--models", "m-a", "--no-ask", "--address", _address(ts_env),
            "--task-queue", queue])
    assert out.exit_code == 1, out.output
    assert "halted — ended at state 'halt'" in out.output
    assert "final post:" not in out.output and "final score:" not in out.output
    assert "no final post" in out.output


def test_the_run_summary_says_healthy_once():
    from datetime import UTC, datetime

    from models.writing.workflow import Invocation, RunRecord, RunState
    from rules.writing.summary import run_summary

    t = datetime(2026, 1, 1, tzinfo=UTC)
    inv = Invocation(seq=1, state="draft", visit=1, task="draft", agent="writing_draft", model="m", started_at=t,
                     status="success", input_tokens=10, output_tokens=10, context_window=1000)
    text = run_summary(RunRecord(state=RunState(run_id="r", story_name="s", models=["m"], started_at=t,
                                                invocations=[inv]), finished_at=t))
    assert "Healthy — Healthy" not in text and "Healthy: Plenty of context remaining" in text
