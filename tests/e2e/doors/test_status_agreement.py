"""One status vocabulary everywhere: for runs of each pipeline in each status, the ColloquyStatus search attribute
(describe), the status query's `colloquy_status` field and the word the `colloquy` CLI prints agree.

Before, queries and the CLI spoke each pipeline's own words (`IN_PROGRESS`, `complete`, `waiting_approval`, ...)
while the search attribute said `running`, `completed`, `waiting_user`. The CLI runs in a subprocess against a dev
server; the workers run in this process (agents scripted).
"""

from __future__ import annotations

import asyncio
import re
import uuid
from datetime import date

import pytest
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle

from activities.llm.offline import Fault
from models.interview import names as interview
from models.interview.workflow import InterviewInput, InterviewResult, SessionState
from models.query import workflow as query
from models.writing import workflow as writing
from tests.e2e.platform.test_cli_doors import colloquy

pytestmark = pytest.mark.dev_server


@pytest.fixture(autouse=True)
def _stores(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    monkeypatch.setenv("COLLOQUY_HISTORY_DB", str(tmp_path / "history.duckdb"))


async def searched(handle: WorkflowHandle) -> str:
    desc = await handle.describe()
    return {pair.key.name: pair.value for pair in desc.typed_search_attributes}.get("ColloquyStatus", "")


async def settled(handle: WorkflowHandle, query_name: str, result_type: type, want: str) -> str:
    """The query's colloquy_status once the run reached `want` (and the search attribute with it)."""
    view = None
    for _ in range(150):
        view = await handle.query(query_name, result_type=result_type)
        if view.colloquy_status == want and await searched(handle) == want:
            return want
        await asyncio.sleep(0.1)
    return f"query {getattr(view, 'colloquy_status', None)!r}, search attribute {await searched(handle)!r}"


async def ended(handle: WorkflowHandle) -> None:
    try:
        await handle.result()
    except WorkflowFailureError:
        pass


# ------------------------------------------------------------------------------------------------ interview
async def test_interview_running_failed_and_halted_agree(dev_env, worker, offline):
    from client.interview.cli import wait_for_state
    from tests.workflows.interview.helpers import say, start, structured_sections

    client: Client = dev_env.client
    address = client.service_client.config.target_host
    async with worker(client) as queue:
        live = await client.start_workflow(interview.WORKFLOW_TYPE, InterviewInput(
            topic="on-call nights", duration_seconds=900), id=f"interview-agree-{uuid.uuid4().hex[:6]}",
            task_queue=queue)
        try:
            state = await wait_for_state(live, lambda s: s.status == "IN_PROGRESS", 60)   # the seed's own word
            assert state.colloquy_status == "running"
            assert await settled(live, interview.QUERY_SESSION_STATE, SessionState, "running") == "running"
            done = await colloquy("interview", "watch", live.id, "--no-follow", address=address)
            assert done.code == 0 and "status running (IN_PROGRESS))" in done.out, (done.out[-800:], done.err)
        finally:
            await live.terminate("agreement test done")

        bad = await client.start_workflow(interview.WORKFLOW_TYPE, {"topic": "x", "duration_seconds": "abc"},
                                          id=f"interview-agree-bad-{uuid.uuid4().hex[:6]}", task_queue=queue)
        await ended(bad)
        assert await settled(bad, interview.QUERY_SESSION_STATE, SessionState, "failed") == "failed"
        done = await colloquy("interview", "essay", bad.id, address=address)
        assert done.code == 1 and f"{bad.id} failed: " in done.err and "duration_seconds" in done.err, done.err

        # structured: the interviewer AI fails after one retry → INTERVIEW_TERMINATED → halted
        offline.script("interview_orchestrator", Fault(kind="server_error"), Fault(kind="server_error"))
        halted = await start(dev_env, queue, mode="structured", sections=structured_sections(), cycle_seconds=1,
                             write_essay=False)
        await wait_for_state(halted, lambda s: s.status == "IN_PROGRESS", 60)
        await say(halted, "candidate", "A token bucket per API key, stored in a shared cache.")
        result = InterviewResult.model_validate(await halted.result())
        assert result.status == "TERMINATED" and result.colloquy_status == "halted"
        assert await settled(halted, interview.QUERY_SESSION_STATE, SessionState, "halted") == "halted"
        done = await colloquy("interview", "essay", halted.id, address=address)
        assert "ended halted (TERMINATED) without an essay" in done.err, (done.out, done.err)


# ------------------------------------------------------------------------------------------------ writing
async def test_writing_waiting_user_completed_halted_and_failed_agree(dev_env, worker, offline):
    from tests.workflows.writing.conftest import STORY, config

    client: Client = dev_env.client
    address = client.service_client.config.target_host

    async def start(models: list[str], cfg: writing.WorkflowConfig | None = None) -> WorkflowHandle:
        return await client.start_workflow(writing.WORKFLOW_TYPE, writing.WritingInput(
            story_text=STORY, story_name="post_agree", models=models, config=cfg),
            id=f"writing-agree-{uuid.uuid4().hex[:6]}", task_queue=queue, result_type=writing.WritingResult)

    async def status_line(wid: str) -> str:
        done = await colloquy("write", "status", wid, address=address)
        assert done.code == 0, done.err
        return done.out

    async with worker(client) as queue:
        gated = await start(["m-a"], config("gated"))
        assert await settled(gated, writing.QUERY_RUN_STATUS, writing.StatusView, "waiting_user") == "waiting_user"
        assert "waiting_user (waiting_approval) in state" in await status_line(gated.id)
        done = await colloquy("write", "approve", gated.id, address=address)
        assert done.code == 0 and re.search(r"the run is (running|completed \(complete\)) in state", done.out), \
            (done.out, done.err)
        result = await gated.result()
        assert result.status == "complete" and result.colloquy_status == "completed"
        assert await settled(gated, writing.QUERY_RUN_STATUS, writing.StatusView, "completed") == "completed"
        assert "completed (complete) in state 'complete'" in await status_line(gated.id)

        offline.script("writing_final_audit", *[Fault(kind="auth")] * 4)
        offline.script("writing_orchestrator", {"reasoning": "the final audit keeps failing", "decision": "halt"})
        halted = await start(["m-a"])
        result = await halted.result()
        assert result.status == "halted" and result.colloquy_status == "halted"
        assert await settled(halted, writing.QUERY_RUN_STATUS, writing.StatusView, "halted") == "halted"
        assert "halted in state 'halt'" in await status_line(halted.id)

        failed = await start([f"m-{i}" for i in range(9)])
        await ended(failed)
        assert await settled(failed, writing.QUERY_RUN_STATUS, writing.StatusView, "failed") == "failed"
        assert "failed in state 'prepare'" in await status_line(failed.id)


# ------------------------------------------------------------------------------------------------ query
async def test_query_waiting_user_completed_and_failed_agree(dev_env, worker, offline, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_NOTES_DIR", str(tmp_path))   # the worker's notes root (rules/paths.py)
    from tests.workflows.query.helpers import (
        analysis,
        answer,
        evaluation,
        finding,
        gap,
        no_update,
        plan,
        route,
        seed_notes,
    )

    q = "What should I do today?"
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(q), plan(q, action="clarify"))
    offline.script("analyze_evidence", analysis("insufficient", [finding("heavy bench", "2026-01-12#1")],
                                                [gap("how you feel", "subjective")]),
                   analysis("sufficient", [finding("you feel rested", "your answer")]))
    offline.script("clarify_gaps", {"questions": [{"question": "How do you feel today?", "options": ["tired",
                                                                                                 "rested"]}],
                                    "context_explanation": "Only you know how you feel.",
                                    "fallback_action": "a suggestion from your notes"})
    offline.script("synthesize_answer", answer("A tempo run fits today.", ["2026-01-14#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    client: Client = dev_env.client
    address = client.service_client.config.target_host
    notes = tmp_path / "notes"
    seed_notes(notes)
    async with worker(client) as queue:
        handle = await client.start_workflow(query.WORKFLOW_TYPE, query.QueryRequest(
            text=q, notes_dir="notes", today=date(2026, 1, 16)), id=f"notes-agree-{uuid.uuid4().hex[:6]}", task_queue=queue,
            result_type=query.QueryResult)
        assert await settled(handle, query.QUERY_SESSION_STATE, query.SessionStateView,
                             "waiting_user") == "waiting_user"
        view = await handle.query(query.QUERY_SESSION_STATE, result_type=query.SessionStateView)
        assert view.state == "WAIT_USER"   # the state machine's own name stays
        done = await colloquy("notes", "answer", handle.id, address=address, stdin=b"rested\n")
        assert done.code == 0, (done.out[-1500:], done.err)
        result = await handle.result()
        assert result.colloquy_status == "completed"
        assert await settled(handle, query.QUERY_SESSION_STATE, query.SessionStateView, "completed") == "completed"
        assert re.search(r"\bcompleted · query · domains", done.out), done.out

        bad = await client.start_workflow(query.WORKFLOW_TYPE, {"txt": "typo"},
                                          id=f"notes-agree-bad-{uuid.uuid4().hex[:6]}", task_queue=queue)
        await ended(bad)
        assert await settled(bad, query.QUERY_SESSION_STATE, query.SessionStateView, "failed") == "failed"
        done = await colloquy("notes", "answer", bad.id, address=address)
        assert done.code == 1 and "error: the run failed: " in done.err and "txt" in done.err, done.err
