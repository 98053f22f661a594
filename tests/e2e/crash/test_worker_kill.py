"""Crash drill, every pipeline: a worker SIGKILLed in the middle of an agent activity, a standby worker process
takes over, and the run completes within the recovery bound (30 s) with nothing lost or duplicated.

Before agent activities had a heartbeat timeout, the retry waited out the activity's whole start-to-close
timeout (120-300 s) — and in the writing pipeline the per-branch timer expired first, so the run lost the draft.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.service import RPCError

from activities.artifacts import ArtifactStore
from client.interview.cli import wait_for_state
from models.discussion.workflow import WORKFLOW_TYPE as DISCUSSION
from models.discussion.workflow import DiscussionInput, DiscussionResult
from models.interview.entries import SessionControl, TranscriptEntry
from models.interview.names import QUERY_EVENT_LOG, SIGNAL_SESSION_CONTROL, UPDATE_SUBMIT_ENTRY
from models.interview.names import WORKFLOW_TYPE as INTERVIEW
from models.interview.workflow import EventLogPage, InterviewInput, InterviewResult
from models.query.workflow import WORKFLOW_TYPE as QUERY
from models.query.workflow import QueryRequest, QueryResult
from models.writing.workflow import WORKFLOW_TYPE as WRITING
from models.writing.workflow import WritingInput, WritingResult
from tests.e2e.crash.helpers import RECOVERY_BOUND_S, Drill, completed_activities, wait_for
from tests.e2e.interview.helpers import ANSWERS
from tests.workflows.interview.helpers import adaptive_plan
from tests.workflows.writing.conftest import STORY

pytestmark = [pytest.mark.dev_server, pytest.mark.drill]


def queue() -> str:
    return f"crash-{uuid.uuid4().hex[:6]}"


async def test_interview_analysis_killed_mid_call(dev_env, tmp_path):
    client = dev_env.client
    async with Drill(client, queue(), "interview_analysis", tmp_path, {}) as drill:
        handle = await client.start_workflow(
            INTERVIEW, InterviewInput(topic="What on-call taught me", plan=adaptive_plan(), duration_seconds=600,
                                      cycle_seconds=1.0),
            id=f"interview-crash-{uuid.uuid4().hex[:6]}", task_queue=drill.queue, result_type=InterviewResult)
        await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS", 30)
        for i, answer in enumerate(ANSWERS[:3]):
            for speaker, text in (("interviewer", f"Question {i + 1}?"), ("interviewee", answer)):
                await handle.execute_update(UPDATE_SUBMIT_ENTRY, TranscriptEntry(
                    entry_id=f"e{i}-{speaker}", speaker=speaker, text=text))
        await handle.signal(SIGNAL_SESSION_CONTROL, SessionControl(action="end"))
        await drill.kill_a_mid_activity(handle)
        result, recovery = await drill.result_within_bound(handle)
    assert result.status == "COMPLETED" and result.essay is not None, result
    transcript = json.loads(ArtifactStore(tmp_path / "artifacts").get(result.transcript))
    assert [e["entry_id"] for e in transcript if e["client_id"] != "engine"] == [  # (the engine's own questions too)
        f"e{i}-{s}" for i in range(3) for s in ("interviewer", "interviewee")]
    assert await completed_activities(handle, "interview_analysis") == 1
    print(f"interview: recovered and completed {recovery:.1f}s after the kill")


async def test_interview_live_orchestrator_killed_mid_call_answers_within_the_bound(dev_env, tmp_path):
    """The live cycle: the interviewer's next question comes from the orchestrator; its worker killed mid-call, the
    retry on the standby worker answers within the bound (the issue measured 83 s; 45 s start-to-close before)."""
    client = dev_env.client
    async with Drill(client, queue(), "interview_orchestrator", tmp_path, {}) as drill:
        handle = await client.start_workflow(
            INTERVIEW, InterviewInput(topic="What on-call taught me", plan=adaptive_plan(), duration_seconds=600,
                                      cycle_seconds=1.0, write_essay=False),
            id=f"interview-live-crash-{uuid.uuid4().hex[:6]}", task_queue=drill.queue, result_type=InterviewResult)
        await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS", 30)
        await handle.execute_update(UPDATE_SUBMIT_ENTRY, TranscriptEntry(
            entry_id="q1", speaker="interviewer", text="How did you end up carrying the pager?"))
        await handle.execute_update(UPDATE_SUBMIT_ENTRY, TranscriptEntry(
            entry_id="a1", speaker="interviewee", text=ANSWERS[0]))
        await drill.kill_a_mid_activity(handle)

        async def answered() -> bool:
            try:  # a query sent to the dead worker's sticky queue times out until the standby takes the workflow
                page = await handle.query(QUERY_EVENT_LOG, 0, result_type=EventLogPage,
                                          rpc_timeout=timedelta(seconds=3))
            except RPCError:
                return False
            return any(e.type == "AI_RESPONSE" and e.payload.get("agent") == "interview_orchestrator"
                       and e.payload.get("attempt", 1) >= 2 for e in page.events)
        await wait_for(answered, RECOVERY_BOUND_S * 3, "the orchestrator's retried answer")
        recovery = time.monotonic() - drill.killed_at
        assert recovery < RECOVERY_BOUND_S, recovery
        await handle.signal(SIGNAL_SESSION_CONTROL, SessionControl(action="end"))
        result = await handle.result()
    assert result.status == "COMPLETED", result
    transcript = json.loads(ArtifactStore(tmp_path / "artifacts").get(result.transcript))
    assert [e["entry_id"] for e in transcript if e["client_id"] != "engine"] == ["q1", "a1"]
    assert [e["text"] for e in transcript if e["client_id"] == "engine"]   # the retried decision, recorded
    print(f"interview live cycle: the orchestrator answered {recovery:.1f}s after the kill")


async def test_query_parser_killed_mid_call(dev_env, tmp_path):
    client = dev_env.client
    notes = tmp_path / "notes"
    note = f"Squatted 5x5 at 100 kg, felt strong ({uuid.uuid4().hex[:6]})"
    async with Drill(client, queue(), "parse_log", tmp_path, {"COLLOQUY_NOTES_DIR": str(notes)}) as drill:
        handle = await client.start_workflow(
            QUERY, QueryRequest(text=note, app_id="fitness", today="2026-01-16"),
            id=f"notes-crash-{uuid.uuid4().hex[:6]}", task_queue=drill.queue, result_type=QueryResult)
        await drill.kill_a_mid_activity(handle)
        result, recovery = await drill.result_within_bound(handle)
    assert result.stored_entries, result
    raw = "".join(p.read_text() for p in (notes / "logs" / "raw").rglob("*.md"))
    assert raw.count(note) == 1, raw  # stored once: not lost, not duplicated
    assert await completed_activities(handle, "parse_log") == 1
    print(f"query: recovered and completed {recovery:.1f}s after the kill")


async def test_writing_draft_killed_mid_call(dev_env, tmp_path):
    client = dev_env.client
    env = {"COLLOQUY_HISTORY_DB": str(tmp_path / "history.duckdb")}
    async with Drill(client, queue(), "writing_draft", tmp_path, env) as drill:
        handle = await client.start_workflow(
            WRITING, WritingInput(story_text=STORY, story_name="crash", models=["m-a", "m-b"]),
            id=f"writing-crash-{uuid.uuid4().hex[:6]}", task_queue=drill.queue, result_type=WritingResult)
        await drill.kill_a_mid_activity(handle)
        result, recovery = await drill.result_within_bound(handle)
    assert result.status == "complete" and result.final_post is not None, result
    assert await completed_activities(handle, "writing_draft") == 2  # both drafts, each once
    drafts = sorted(p.name for p in Path(tmp_path / "artifacts").rglob("draft_v1_*.md")
                    if not p.name.endswith(".prompt.md"))  # the prompts saved beside them
    assert len(drafts) == 2, drafts
    print(f"writing: recovered and completed {recovery:.1f}s after the kill")


async def test_discussion_turn_killed_mid_call(dev_env, tmp_path):
    client = dev_env.client
    async with Drill(client, queue(), "discussion_kickoff", tmp_path, {}) as drill:
        handle = await client.start_workflow(
            DISCUSSION, DiscussionInput(topic="How can a small town cut food waste?", level="standard"),
            id=f"discussion-crash-{uuid.uuid4().hex[:6]}", task_queue=drill.queue, result_type=DiscussionResult)
        await drill.kill_a_mid_activity(handle)
        result, recovery = await drill.result_within_bound(handle)
    assert result.outcome == "selected" and result.selected is not None, result
    ids = [m.id for m in result.messages]
    assert ids and len(ids) == len(set(ids))  # no turn twice
    assert await completed_activities(handle, "discussion_kickoff") == 1
    print(f"discussion: recovered and completed {recovery:.1f}s after the kill")
