"""Issue 39's smaller defects: timeout_per_agent means what it says; a late abort after an approve is logged; a
score below the floor after an approval is not a silent `complete`."""

from __future__ import annotations

import json

from activities.artifacts import store
from activities.llm.offline import Fault
from models.writing.workflow import ApprovalInput, WorkflowConfig
from tests.workflows.writing.conftest import by_model, config, quick_worker, raw_config, start
from workflows.writing.workflow import WritingWorkflow

MODELS = ["m-a", "m-b"]


def _log(result) -> list[dict]:
    return [json.loads(x) for x in store().get(result.artifacts["state_log.jsonl"]).splitlines()]


async def _timers(handle) -> list[float]:
    return [e.timer_started_event_attributes.start_to_fire_timeout.ToTimedelta().total_seconds()
            async for e in handle.fetch_history_events() if e.HasField("timer_started_event_attributes")]


async def test_timeout_per_agent_3_fires_after_3_seconds_not_33(ts_env, offline):
    cfg = config(settings={"timeout_per_agent": 3})
    offline.script("writing_draft", *[by_model({"m-b": Fault(kind="hang")}, "A DRAFT.")] * 2)
    async with quick_worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, cfg)
        result = await handle.result()
        timers = await _timers(handle)
    assert timers and set(timers) == {3.0}, timers  # every per-agent timer: the configured 3 s
    failed = [e for e in _log(result) if e["event"] == "agent_failed"]
    assert failed and failed[0]["agent"] == "m-b" and "timed out after 3s" in failed[0]["error"]
    started = [e for e in _log(result) if e["event"] == "fan_out_start"]
    assert started[0]["timeout_s"] == 3


def _gated_with_analysis_after_approval() -> WorkflowConfig:
    data = raw_config("gated")
    data["states"]["human-approval"]["transitions"]["approved"] = "final-analysis"
    data["states"]["final-analysis"] = {"type": "orchestrator-task", "task": "final_analysis",
                                        "persona": "orchestrator", "input": ["synthesize", "final-audit"],
                                        "transitions": {"success": "complete", "failure": "halt"}}
    data["settings"]["score_floor"] = 5
    return WorkflowConfig.model_validate(data)


async def test_a_score_below_the_floor_after_the_approval_is_not_a_silent_complete(ts_env, worker, offline):
    offline.script("writing_final_analysis", {"summary": "Weak.", "suggestions": [], "final_score": 3.0,
                                              "determination": "revise"})
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, _gated_with_analysis_after_approval())
        await handle.execute_update(WritingWorkflow.await_approval_request)
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        result = await handle.result()
    assert result.final_score == 3.0
    assert result.status == "complete_below_floor", result.reason
    assert "below the score floor 5 (scored after a human approved the post)" in result.reason


async def test_a_late_abort_after_an_approve_is_logged(ts_env, worker, offline, monkeypatch):
    """The abort lands while the run writes its history (after its logs were written): it changes nothing, and
    the written state log says so."""
    import asyncio
    import threading

    from activities.writing.history import HistoryStore

    recording, release = threading.Event(), threading.Event()
    original = HistoryStore.record_run

    def slow_record_run(self, *args, **kwargs):
        recording.set()
        release.wait(30)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(HistoryStore, "record_run", slow_record_run)
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        await handle.execute_update(WritingWorkflow.await_approval_request)
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        assert await asyncio.to_thread(recording.wait, 30)
        await handle.signal(WritingWorkflow.approval, ApprovalInput(decision="abort"))
        await asyncio.sleep(0.5)  # the signal is delivered to the workflow before the history write returns
        release.set()
        result = await handle.result()
    assert result.status == "complete"
    late = [e for e in _log(result) if e["event"] == "approval_ignored"]
    assert len(late) == 1 and late[0]["decision"] == "abort"
    assert "already ended (complete" in late[0]["reason"] and "changes nothing" in late[0]["reason"]
