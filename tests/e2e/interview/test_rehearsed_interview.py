"""A rehearsed interview end to end on the dev server (real clock): engine asks, rehearsal answers, essay."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from activities.artifacts import ArtifactStore
from client.interview.cli import (
    CLOSING_REMARK,
    RehearsalOptions,
    TranscriptAnswers,
    fetch_essay,
    rehearse,
    start_interview,
    watch_events,
)
from models.interview.entries import TranscriptView
from models.interview.names import QUERY_EVENT_LOG, QUERY_TRANSCRIPT
from models.interview.workflow import EventLogPage, InterviewInput
from tests.e2e.interview.helpers import ANSWERS, ESSAY

pytestmark = pytest.mark.dev_server


async def test_rehearsed_interview_ends_in_an_essay(dev_env, worker, offline, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    offline.script("interview_writer", ESSAY)
    said: list[str] = []
    async with worker(dev_env.client) as queue:
        inp = InterviewInput(topic="What on-call taught me", duration_seconds=600, cycle_seconds=1.0,
                             interviewee_name="Maya")
        handle = await start_interview(dev_env.client, inp, f"interview-e2e-rehearsal-{uuid.uuid4().hex[:6]}", queue)
        streamed = []
        watcher = asyncio.create_task(watch_events(handle, streamed.append, poll_seconds=0.1))  # `watch`, live
        report = await rehearse(dev_env.client, handle.id, TranscriptAnswers(ANSWERS[:4]),
                                RehearsalOptions(fresh_question_timeout=20), say=said.append)
        result, essay, path = await fetch_essay(handle, wait=True)
        view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        last_seen = await asyncio.wait_for(watcher, 30)
        final_log = await handle.query(QUERY_EVENT_LOG, 0, result_type=EventLogPage)

    # The live stream saw every event once, in order, and stopped by itself at the end.
    assert [e.event_id for e in streamed] == list(range(1, last_seen + 1)) and last_seen == final_log.last_event_id
    assert "INTERVIEW_COMPLETED" in [e.type for e in streamed]
    assert [e.payload["entry_id"] for e in streamed if "entry_id" in e.payload and e.type in (
        "CANDIDATE_MESSAGE", "INTERVIEWER_MESSAGE", "PROMPT_PRESENTED", "FOLLOWUP_PRESENTED")] == \
        [e.entry_id for e in view.entries]      # (the engine's questions: their presentation is their entry)
    assert report.turns == 4 and report.closed_by_client and not report.rejected
    assert report.final_status in ("FINALIZING", "COMPLETED")
    # The engine asked, the rehearsal answered, in order; nothing lost, nothing doubled.
    ids = [e.entry_id if e.client_id != "engine" else "engine" for e in view.entries]
    assert ids == [x for t in range(1, 5) for x in ("engine", f"rehearsal-t{t:03d}-a")] + ["engine",
                                                                                         "rehearsal-closing"]
    assert [e.text for e in view.entries if e.speaker == "interviewee"] == ANSWERS[:4]
    assert [e.text for e in view.entries if e.speaker == "interviewer"][:4] == report.questions
    assert len(set(report.questions)) == 4  # a fresh question each turn
    assert view.entries[-1].text == CLOSING_REMARK
    # The essay is the writer's (scripted) text, stored as an artifact; history only holds its reference.
    assert result.status == "COMPLETED" and result.essay is not None
    assert "A certificate expired at 2 a.m. on Black Friday" in essay
    assert path == ArtifactStore.local_path(result.essay) and path.is_file() and path.is_relative_to(tmp_path)
    assert result.entries == len(view.entries) == 10
