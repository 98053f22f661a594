"""The Temporal CLI door: malformed input, sent with the REAL `temporal` binary to a dev server with a worker.

Every workflow type gets at least five malformed starts (wrong types, missing fields, unknown fields, not an object):
each run ends FAILED within 5 s with a message naming the field, its search attributes say pipeline + status=failed
+ phase=done, and nothing is left RUNNING. Each signal and update of the long-running pipelines gets five malformed
arguments: a signal is recorded as a rejection (a query and the Web UI's current details show it) and changes
nothing else; an update is rejected, non-retryably, with the field named. One worker for the whole module.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle

from core import search_attributes as sa
from models.discussion import workflow as discussion
from models.interview import names as interview
from models.interview.entries import TranscriptView
from models.interview.workflow import EventLogPage, InterviewInput, InterviewResult, SessionState
from models.platform import workflow as platform
from models.query import workflow as query
from models.rehearsal import workflow as rehearsal
from models.status import FAILED, PHASE_DONE
from models.writing import workflow as writing
from workers.main import running_workers

pytestmark = pytest.mark.dev_server

TEMPORAL = Path(sys.executable).parent / "temporal"
START_DEADLINE_S = 5.0

PERSONA = {"name": "Ada", "role": "engineer", "background": "ten years of on-call"}
# workflow type -> (pipeline search attribute, [(malformed input JSON, a word the message must contain)])
BAD_STARTS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    interview.WORKFLOW_TYPE: ("interview", [
        ('{"topic": "on-call", "duration_seconds": "abc"}', "duration_seconds"),
        ('{"topic": "on-call", "duration_second": 600}', "duration_second"),
        ('{"duration_seconds": 600}', "topic"),
        ('{"topic": ["a"]}', "topic"),
        ('{"topic": "on-call", "mode": "freestyle"}', "mode"),
        ('{"topic": "on-call", "sections": [{"titel": "intro"}]}', "titel"),
        ('"on-call"', "topic"),
    ]),
    query.WORKFLOW_TYPE: ("query", [
        ('{"text": 5}', "text"),
        ('{"txt": "what did I eat?"}', "txt"),
        ('{"text": "hi", "today": "someday"}', "today"),
        ('{"text": "hi", "max_entries": "all"}', "max_entries"),
        ('["what did I eat?"]', "text"),
        ('{"text": "hi", "notes_dir": "/etc"}', "notes_dir"),          # issue 38: paths belong to the operator
        ('{"text": "hi", "notes_dir": "../../etc"}', "notes_dir"),
    ]),
    query.IMPORT_WORKFLOW_TYPE: ("query", [
        ('{}', "directory"),
        ('{"directory": 7}', "directory"),
        ('{"directory": "/tmp/x", "batch_size": "big"}', "batch_size"),
        ('{"directory": "/tmp/x", "undated": "never"}', "undated"),
        ('{"dir": "/tmp/x"}', "dir"),
        ('{"directory": "../../../../etc"}', "directory"),            # issue 38: walked the worker's /etc
        ('{"directory": "imports/x", "files": ["../../secret.md"]}', "files[0]"),
    ]),
    query.CONTEXT_WORKFLOW_TYPE: ("query", [
        ('{"notes_dir": 3}', "notes_dir"),
        ('{"notes": "/tmp/x"}', "notes"),
        ('{"notes_dir": ["/tmp/x"]}', "notes_dir"),
        ('"/tmp/x"', "notes_dir"),
        ('{"notes_dir": "/tmp/x", "extra": true}', "extra"),
    ]),
    writing.WORKFLOW_TYPE: ("writing", [
        ('{"story_text": "A story.", "models": "m1"}', "models"),
        ('{"story": "A story."}', "story"),
        ('{"story_text": "A story.", "personas": ["critic"]}', "personas"),
        ('{"story_text": "A story.", "continue_as_new_after": "often"}', "continue_as_new_after"),
        ('{"story_text": 42}', "story_text"),
    ]),
    discussion.WORKFLOW_TYPE: ("discussion", [
        ('{"topic": ["a"]}', "topic"),
        ('{"level": "standard"}', "topic"),
        ('{"topic": "x", "team": "leader"}', "team"),
        ('{"topic": "x", "models": ["gpt"]}', "models"),
        ('{"topc": "x"}', "topc"),
        ('{"topic": "x", "html_report": "maybe"}', "html_report"),
    ]),
    rehearsal.WORKFLOW_TYPE: ("rehearsal", [
        ('{}', "interview_id"),
        (json.dumps({"interview_id": "i", "turn": "first", "topic": "t", "persona": PERSONA, "question": "q"}),
         "turn"),
        (json.dumps({"interview_id": "i", "turn": 1, "topic": "t", "persona": "Ada", "question": "q"}), "persona"),
        (json.dumps({"interview_id": "i", "turn": 1, "topic": "t", "persona": PERSONA, "question": "q",
                     "recent": "none"}), "recent"),
        (json.dumps({"interview_id": "i", "turn": 1, "topic": "t", "persona": PERSONA, "questoin": "q"}),
         "questoin"),
    ]),
    platform.MODEL_CHECK_WORKFLOW_TYPE: ("model_check", [
        ('{"agents": "model_check"}', "agents"),
        ('{"agents": [1, 2]}', "agents"),
        ('{"word": 5}', "word"),
        ('{"agent": ["model_check"]}', "agent"),
        ('[]', "ModelCheckRequest"),
    ]),
}


async def temporal(address: str, *args: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        str(TEMPORAL), *args, "--address", address, env=dict(os.environ, NO_COLOR="1"),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), timeout=60)
    return proc.returncode or 0, out.decode()


@pytest_asyncio.fixture(scope="module")
async def door(dev_env) -> Any:
    """(client, address, task queue) with one worker for the whole module."""
    client: Client = dev_env.client
    async with running_workers(client) as queue:
        yield client, client.service_client.config.target_host, queue


async def _closed(handle: WorkflowHandle, within: float) -> Any:
    deadline = time.monotonic() + within
    while True:
        desc = await handle.describe()
        if desc.status != WorkflowExecutionStatus.RUNNING or time.monotonic() > deadline:
            return desc
        await asyncio.sleep(0.1)


async def _bad_start(door: Any, workflow_type: str, pipeline: str, raw: str, field: str) -> None:
    client, address, queue = door
    wf_id = f"door-{workflow_type}-{uuid.uuid4().hex[:6]}"
    started = time.monotonic()
    code, out = await temporal(address, "workflow", "start", "--type", workflow_type, "--task-queue", queue,
                               "--workflow-id", wf_id, "--input", raw)
    assert code == 0, out
    desc = await _closed(client.get_workflow_handle(wf_id), START_DEADLINE_S)
    took = time.monotonic() - started
    assert desc.status == WorkflowExecutionStatus.FAILED, f"{raw} → {desc.status} after {took:.1f}s"
    assert took <= START_DEADLINE_S, f"{raw}: failed only after {took:.1f}s"
    code, out = await temporal(address, "workflow", "result", "--workflow-id", wf_id)
    assert code != 0 and field in out and "invalid" in out.lower(), f"{raw}: {out}"
    assert "InvalidInput" in out or "invalid" in out, out
    attrs = desc.typed_search_attributes
    assert attrs.get(sa.PIPELINE) == pipeline and attrs.get(sa.STATUS) == FAILED, (raw, attrs)
    assert attrs.get(sa.PHASE) == PHASE_DONE, (raw, attrs)


@pytest.mark.parametrize("workflow_type", list(BAD_STARTS))
async def test_malformed_start_fails_fast_naming_the_field(door, workflow_type):
    pipeline, cases = BAD_STARTS[workflow_type]
    assert len(cases) >= 5
    await asyncio.gather(*(_bad_start(door, workflow_type, pipeline, raw, field) for raw, field in cases))


async def test_no_malformed_start_is_left_running(door):
    client, address, queue = door
    code, out = await temporal(address, "workflow", "list", "--query",
                               f'TaskQueue="{queue}" AND ExecutionStatus="Running" AND WorkflowId STARTS_WITH "door-"')
    assert code == 0 and "door-" not in out, out
    count = await client.count_workflows(f'TaskQueue="{queue}" AND ExecutionStatus="Failed"')
    assert count.count >= sum(len(c) for _, c in BAD_STARTS.values())


@pytest.mark.parametrize("workflow_type", [interview.WORKFLOW_TYPE, query.WORKFLOW_TYPE, writing.WORKFLOW_TYPE])
async def test_two_inputs_fail_the_run_at_once(door, workflow_type):
    """Issue 38: `--input` given twice is two arguments; the InterviewWorkflow's task failed forever on a TypeError
    (the run stranded, RUNNING). Now the run fails at once, saying to send one object."""
    client, address, queue = door
    wf_id = f"door-two-{uuid.uuid4().hex[:6]}"
    code, out = await temporal(address, "workflow", "start", "--type", workflow_type, "--task-queue", queue,
                               "--workflow-id", wf_id, "--input", '{"topic": "on-call"}', "--input",
                               '{"duration_seconds": 600}')
    assert code == 0, out
    desc = await _closed(client.get_workflow_handle(wf_id), START_DEADLINE_S)
    assert desc.status == WorkflowExecutionStatus.FAILED, desc.status
    code, out = await temporal(address, "workflow", "result", "--workflow-id", wf_id)
    assert code != 0 and "2 inputs given, expected one JSON object" in " ".join(out.split()), out
    assert desc.typed_search_attributes.get(sa.STATUS) == FAILED


# ------------------------------------------------------------------------------------- signals and updates
BAD_ENTRIES = [
    ('{"entry_id": 1, "speaker": "interviewee", "text": "hi"}', "entry_id"),
    ('{"entry_id": "e1", "speaker": "interviewee"}', "text"),
    ('{"entry_id": "e1", "speaker": "interviewee", "text": "hi", "txet": "x"}', "txet"),
    ('{"entry_id": "e1", "speaker": ["interviewee"], "text": "hi"}', "speaker"),
    ('"hello"', "entry_id"),
]
BAD_CONTROLS = [
    ('{"action": 5}', "action"),
    ('{}', "action"),
    ('{"action": "pause", "why": "lunch"}', "why"),
    ('{"action": "pause", "client_timestamp": "yesterday"}', "client_timestamp"),
    ('"pause"', "action"),
]
BAD_ASSISTANT = [
    ('{"query_id": "a1"}', "text"),
    ('{"query_id": 1, "text": "hint?"}', "query_id"),
    ('{"query_id": "a1", "text": "hint?", "urgent": true}', "urgent"),
    ('{"text": ["hint?"], "query_id": "a1"}', "text"),
    ('null', "query_id"),
]
BAD_APPROVALS = [
    ('{"decision": 1}', "decision"),
    ('{}', "decision"),
    ('{"decision": "approve", "comment": "ok"}', "comment"),
    ('{"decision": "feedback", "feedback": ["shorter"]}', "feedback"),
    ('"approve"', "decision"),
]
BAD_CLARIFY = [
    ('{"answers": "yes"}', "answers"),
    ('{"answers": {"q1": 5}}', "answers"),
    ('{"decline": "maybe"}', "decline"),
    ('{"answer": {"q1": "yes"}}', "answer"),
    ('"yes"', "answers"),
]


async def _rejected_update(address: str, wf_id: str, name: str, raw: str, field: str) -> None:
    code, out = await temporal(address, "workflow", "update", "execute", "--workflow-id", wf_id, "--name", name,
                               "--input", raw)
    assert code != 0 and field in out, f"{name} {raw}: {out}"
    assert "retryable: true" not in out and "ValueError" not in out, out


async def _rejected_signal(address: str, client: Client, wf_id: str, name: str, raw: str, field: str) -> None:
    code, out = await temporal(address, "workflow", "signal", "--workflow-id", wf_id, "--name", name, "--input", raw)
    assert code == 0, out
    for _ in range(100):   # a signal is asynchronous: wait until the Web UI's details show the rejection
        meta = await _details(client, wf_id)
        if field in meta and "rejected" in meta:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{name} {raw}: no rejection in the current details: {meta!r}")


async def _details(client: Client, wf_id: str) -> str:
    from temporalio.api.sdk.v1 import WorkflowMetadata

    meta = await client.get_workflow_handle(wf_id).query("__temporal_workflow_metadata", result_type=WorkflowMetadata)
    return meta.current_details


async def test_interview_signals_and_updates_refuse_malformed_arguments(door, offline):
    client, address, queue = door
    wf_id = f"door-live-interview-{uuid.uuid4().hex[:6]}"
    handle = await client.start_workflow(
        interview.WORKFLOW_TYPE, InterviewInput(topic="on-call nights", duration_seconds=900),
        id=wf_id, task_queue=queue, result_type=InterviewResult)
    try:
        for _ in range(200):
            state = await handle.query(interview.QUERY_SESSION_STATE, result_type=SessionState)
            if state.status == "IN_PROGRESS" and state.question_entry_id:   # the engine has recorded its question
                break
            await asyncio.sleep(0.05)
        before = await handle.query(interview.QUERY_TRANSCRIPT, result_type=TranscriptView)
        for raw, field in BAD_ENTRIES:
            await _rejected_signal(address, client, wf_id, interview.SIGNAL_TRANSCRIPT_ENTRY, raw, field)
            await _rejected_update(address, wf_id, interview.UPDATE_SUBMIT_ENTRY, raw, field)
        for raw, field in BAD_CONTROLS:
            await _rejected_signal(address, client, wf_id, interview.SIGNAL_SESSION_CONTROL, raw, field)
            await _rejected_update(address, wf_id, interview.UPDATE_SESSION_CONTROL, raw, field)
        for raw, field in BAD_ASSISTANT:
            await _rejected_update(address, wf_id, interview.UPDATE_ASSISTANT_QUERY, raw, field)
        after = await handle.query(interview.QUERY_TRANSCRIPT, result_type=TranscriptView)
        state = await handle.query(interview.QUERY_SESSION_STATE, result_type=SessionState)
        log = await handle.query(interview.QUERY_EVENT_LOG, result_type=EventLogPage)
        assert after == before and state.status == "IN_PROGRESS"
        rejected = [e for e in log.events if e.type in ("ENTRY_REJECTED", "CONTROL_REJECTED")]
        assert len(rejected) == len(BAD_ENTRIES) + len(BAD_CONTROLS)
        assert "entry_id" in rejected[0].payload["error"]
        assert not [e for e in log.events if e.type in ("ASSISTANT_QUERY", "SESSION_PAUSED", "CANDIDATE_MESSAGE")]
        assert (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
    finally:
        await handle.terminate("door test done")


async def test_writing_signal_and_updates_refuse_malformed_arguments(door, offline):
    client, address, queue = door
    offline.set_latency(60)    # the run stays in its first state while the door is tried
    wf_id = f"door-live-writing-{uuid.uuid4().hex[:6]}"
    handle = await client.start_workflow(
        writing.WORKFLOW_TYPE, writing.WritingInput(story_text="A night on call.", story_name="door",
                                                    models=["m1"]),
        id=wf_id, task_queue=queue, result_type=writing.WritingResult)
    try:
        for _ in range(200):
            before = await handle.query(writing.QUERY_RUN_STATUS, result_type=writing.StatusView)
            if before.state != "prepare" and before.invocations == 0 and before.event_count:
                break
            await asyncio.sleep(0.05)
        for raw, field in BAD_APPROVALS:
            await _rejected_signal(address, client, wf_id, writing.SIGNAL_APPROVAL, raw, field)
            await _rejected_update(address, wf_id, writing.UPDATE_SUBMIT_APPROVAL, raw, field)
        after = await handle.query(writing.QUERY_RUN_STATUS, result_type=writing.StatusView)
        ignored = [e for e in after.recent_events if e.event == "approval_ignored"]
        assert len(ignored) == len(BAD_APPROVALS) and "decision" in ignored[0].data["reason"]
        strip = {"recent_events", "event_count", "last_event"}
        assert after.model_dump(exclude=strip) == before.model_dump(exclude=strip)
        assert after.event_count == before.event_count + len(BAD_APPROVALS)
    finally:
        await handle.terminate("door test done")


async def test_query_clarify_update_refuses_malformed_arguments(door, offline):
    client, address, queue = door
    offline.set_latency(60)    # the run stays in its first step while the door is tried
    wf_id = f"door-live-query-{uuid.uuid4().hex[:6]}"
    handle = await client.start_workflow(query.WORKFLOW_TYPE, query.QueryRequest(text="what did I eat?"),
                                         id=wf_id, task_queue=queue, result_type=query.QueryResult)
    try:
        before = await handle.query(query.QUERY_SESSION_STATE, result_type=query.SessionStateView)
        for raw, field in BAD_CLARIFY:
            await _rejected_update(address, wf_id, query.UPDATE_CLARIFY, raw, field)
        after = await handle.query(query.QUERY_SESSION_STATE, result_type=query.SessionStateView)
        assert after == before and (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
    finally:
        await handle.terminate("door test done")
