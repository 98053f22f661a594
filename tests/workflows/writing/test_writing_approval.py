"""Human approval (§14): the run waits durably, the post is shown via query/update, approve / abort / feedback /
timeout, and bad answers are refused with a clear message without losing anything."""

from __future__ import annotations

import asyncio
import json
import os

import duckdb
import pytest
from temporalio.client import WorkflowUpdateFailedError

from activities.artifacts import store
from models.writing.workflow import SIGNAL_APPROVAL, UPDATE_SUBMIT_APPROVAL, ApprovalInput
from tests.conftest import HISTORIES, replay, replay_recorded
from tests.workflows.writing.conftest import config, start
from workflows.writing.workflow import WritingWorkflow

MODELS = ["m-a", "m-b"]


async def _pending(handle):
    return await handle.execute_update(WritingWorkflow.await_approval_request)


async def test_approve_completes_and_the_post_is_shown_while_waiting(ts_env, worker, offline):
    offline.script("writing_synthesize", "The GPU hit 94 degrees. FINAL POST TEXT.")
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        pending = await _pending(handle)
        status = await handle.query(WritingWorkflow.run_status)
        assert status.status == "waiting_approval" and status.state == "human-approval"
        assert status.pending_approval.request_id == pending.request_id == "human-approval-1"
        assert "FINAL POST TEXT." in pending.post_text and "approve" in pending.prompt
        receipt = await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        result = await handle.result()
        await replay(handle, record_as="writing_gated"
                     if os.environ.get("COLLOQUY_RECORD") or not (HISTORIES / "writing_gated.json").exists()
                     else None)
    assert receipt.decision == "approved" and receipt.request_id == "human-approval-1"
    assert result.status == "complete" and result.transitions[-1] == ("human-approval", "complete")
    assert "FINAL POST TEXT." in store().get(result.final_post.ref)


async def test_recorded_gated_history_replays(ts_env):
    await replay_recorded("writing_gated")


async def test_abort_by_signal_halts(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        await _pending(handle)
        await handle.signal(WritingWorkflow.approval, ApprovalInput(decision="abort"))
        result = await handle.result()
    assert result.status == "halted" and result.transitions[-1] == ("human-approval", "halt")


async def test_feedback_goes_back_into_synthesis_with_the_previous_post(ts_env, worker, offline, isolated_store):
    offline.script("writing_synthesize", "FIRST VERSION of the post.", "SECOND VERSION, shorter.")
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        first = await _pending(handle)
        await handle.execute_update(WritingWorkflow.submit_approval,
                                    ApprovalInput(decision="feedback", feedback="Make it shorter.",
                                                  request_id=first.request_id))
        second = await _pending(handle)
        assert second.request_id == "human-approval-2" and "SECOND VERSION" in second.post_text
        await handle.signal(WritingWorkflow.approval, ApprovalInput(decision="approve"))
        result = await handle.result()
    assert result.status == "complete"
    prompts = [c.messages[-1]["content"] for c in offline.calls("writing_synthesize")]
    assert len(prompts) == 2
    assert "Make it shorter." not in prompts[0]
    assert "Human reviewer feedback: Make it shorter." in prompts[1] and "FIRST VERSION" in prompts[1]
    assert "SECOND VERSION" in store().get(result.final_post.ref)
    assert "Make it shorter." in store().get(result.artifacts["run_summary.md"])
    con = duckdb.connect(str(isolated_store / "history.duckdb"), read_only=True)
    assert con.execute("SELECT improvements FROM post_iterations").fetchone()[0] == "Make it shorter."
    con.close()


async def test_no_answer_times_out_durably(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        await _pending(handle)
        result = await handle.result()  # the time-skipping server jumps the day-long wait
    assert result.status == "halted" and result.transitions[-1] == ("human-approval", "halt")
    log = [json.loads(x) for x in store().get(result.artifacts["state_log.jsonl"]).splitlines()]
    assert [e["decision"] for e in log if e["event"] == "human_approval"] == ["timeout"]


@pytest.mark.parametrize("answer,expected", [
    (ApprovalInput(decision="maybe"), "unknown approval decision 'maybe'"),
    (ApprovalInput(decision="feedback"), "feedback needs text"),
    (ApprovalInput(decision="approve", request_id="human-approval-9"), "does not match the pending request"),
    (ApprovalInput(decision="feedback", feedback="x" * 4001), "over the 4,000 limit"),
])
async def test_bad_answers_are_refused_and_nothing_is_lost(ts_env, worker, offline, answer, expected):
    offline.script("writing_synthesize", "KEEP THIS POST.")
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        await _pending(handle)
        with pytest.raises(WorkflowUpdateFailedError) as info:
            await handle.execute_update(WritingWorkflow.submit_approval, answer)
        assert expected in str(info.value.cause)
        await handle.signal(WritingWorkflow.approval, answer)  # the same answer as a signal: ignored, logged
        status = await handle.query(WritingWorkflow.run_status)
        assert status.pending_approval is not None and "KEEP THIS POST." in status.pending_approval.post_text
        assert status.last_event.event == "approval_ignored" and expected in status.last_event.data["reason"]
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        result = await handle.result()
    assert result.status == "complete" and "KEEP THIS POST." in store().get(result.final_post.ref)


async def test_approval_when_nothing_is_pending_is_refused(ts_env, worker, offline):
    offline.set_latency(0.5, "writing_draft")
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS)  # default config: no approval state
        waiter = asyncio.create_task(handle.execute_update(WritingWorkflow.await_approval_request))
        with pytest.raises(WorkflowUpdateFailedError) as info:
            await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        assert "no approval is pending" in str(info.value.cause)
        result = await handle.result()
        assert await waiter is None  # the run ended without asking
    assert result.status == "complete"


async def test_malformed_signals_are_dropped_and_the_pending_request_survives(ts_env, worker, offline):
    offline.script("writing_synthesize", "STILL HERE.")
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        await _pending(handle)
        await handle.signal(SIGNAL_APPROVAL, "garbage")  # not an ApprovalInput: the SDK cannot decode it
        await handle.signal(SIGNAL_APPROVAL, {"decision": 5, "feedback": ["x"]})
        status = await handle.query(WritingWorkflow.run_status)
        assert status.status == "waiting_approval" and "STILL HERE." in status.pending_approval.post_text
        with pytest.raises(WorkflowUpdateFailedError):  # the same garbage as an update is refused outright
            await handle.execute_update(UPDATE_SUBMIT_APPROVAL, "garbage")
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        result = await handle.result()
    assert result.status == "complete" and "STILL HERE." in store().get(result.final_post.ref)
