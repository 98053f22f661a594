"""Payloads that fail before validation (issue 21): a lone surrogate, JSON nested 300 deep, a number out of range,
a naive `close_at`, oversized fields. Each is refused at once as InvalidInput (the run FAILED with
ColloquyStatus=failed, no stack trace; a signal recorded as a rejection; an update rejected, nothing recorded) —
never a workflow task retried forever. Raw JSON bytes are sent as they would come from `temporal workflow start`."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import WorkflowFailureError, WorkflowUpdateFailedError
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError

from core import search_attributes as sa
from models.interview.names import (
    SIGNAL_SESSION_CONTROL,
    SIGNAL_TRANSCRIPT_ENTRY,
    UPDATE_SESSION_CONTROL,
    UPDATE_SUBMIT_ENTRY,
    WORKFLOW_TYPE,
)
from models.study.workflow import WORKFLOW_TYPE as STUDY_TYPE
from tests.workflows.interview.helpers import adaptive_plan, control, events, of_type, sent, start, state

DEEP = "[" * 300 + "]" * 300


def raw(text: str | bytes) -> RawValue:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return RawValue(Payload(metadata={"encoding": b"json/plain"}, data=data))


async def _failed_fast(ts_env, queue: str, workflow: str, body: str) -> str:
    h = await ts_env.client.start_workflow(workflow, raw(body), id=f"door-{uuid.uuid4().hex[:8]}", task_queue=queue)
    with pytest.raises(WorkflowFailureError) as err:
        await asyncio.wait_for(h.result(), 20)
    cause = err.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == "InvalidInput" and cause.non_retryable
    desc = await h.describe()
    assert desc.typed_search_attributes.get(sa.STATUS) == "failed"
    history = await h.fetch_history()
    failed = history.events[-1].workflow_execution_failed_event_attributes.failure
    assert failed.stack_trace == "", failed.stack_trace      # the message alone, no Python traceback
    return cause.message


@pytest.mark.parametrize(("workflow", "body", "words"), [
    (WORKFLOW_TYPE, '{"topic": "\\ud800 on-call"}', "invalid character"),
    (WORKFLOW_TYPE, '{"topic": "on-call", "context": ' + DEEP + "}", "nested too deep"),
    (WORKFLOW_TYPE, '{"topic": "on-call", "cycle_seconds": 1e999}', "out of range"),
    (WORKFLOW_TYPE, '{"topic": "on-call", "continue_as_new_after_events": 1}', "continue_as_new_after_events"),
    (WORKFLOW_TYPE, '{"topic": "on-call", "carried": {}}', "carried"),
    (WORKFLOW_TYPE, '{"topic": "on-call", "interviewee_name": "' + "x" * 5000 + '"}', "interviewee_name"),
    (STUDY_TYPE, '{"topic": "on-call", "close_at": "2030-01-01T10:00:00"}', "close_at"),
    (WORKFLOW_TYPE, '{"topic": 5}', "topic"),     # decodable, just wrong: no stack trace under the message either
])
async def test_undecodable_or_unbounded_starts_fail_at_once(ts_env, worker, offline, workflow, body, words):
    async with worker(ts_env.client) as queue:
        message = await _failed_fast(ts_env, queue, workflow, body)
    assert words in message, message


async def test_bad_signals_are_recorded_as_rejections_and_bad_updates_recorded_nowhere(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        await state(h)
        await h.signal(SIGNAL_TRANSCRIPT_ENTRY, raw('{"entry_id": "s1", "speaker": "interviewee", "text": "\\ud800"}'))
        await h.signal(SIGNAL_SESSION_CONTROL, raw('{"action": ' + DEEP + "}"))
        await h.signal(SIGNAL_TRANSCRIPT_ENTRY, raw('{"entry_id": "' + "e" * 300_000 + '", "text": 5}'))
        huge = "x" * 900_000
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await h.execute_update(UPDATE_SUBMIT_ENTRY, raw(
                '{"entry_id": "u1", "speaker": "interviewee", "text": "hi", "reply_to_section_id": "' + huge + '"}'))
        assert "reply_to_section_id" in str(err.value.cause)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await h.execute_update(UPDATE_SESSION_CONTROL, raw('{"action": "pause", "reason": "' + huge + '"}'))
        assert "reason" in str(err.value.cause)
        s, evts, entries = await state(h), await events(h), await sent(h)
        await control(h, "end")
        await h.result()
        history = await h.fetch_history()
    assert s.status == "IN_PROGRESS" and entries == []
    assert "invalid character" in of_type(evts, "ENTRY_REJECTED")[0].payload["error"]
    assert "nested too deep" in of_type(evts, "CONTROL_REJECTED")[0].payload["error"]
    oversized = of_type(evts, "ENTRY_REJECTED")[1].payload
    assert "too large" in oversized["error"] and len(oversized["entry_id"]) <= 200   # the record stays small
    # nothing oversized was recorded but the signal itself (a signal is in the history before any code sees it)
    assert sum(len(e.SerializeToString()) for e in history.events) < 400_000
