"""Worker SIGKILLed mid-session (a real process, `colloquy worker`), restarted: the interview finishes with no
lost and no duplicated entry. Entries sent while no worker runs (signals) are kept by the server."""

from __future__ import annotations

import uuid

import pytest

from client.interview.cli import (
    RehearsalOptions,
    TranscriptAnswers,
    fetch_essay,
    rehearse,
    start_interview,
    wait_for_state,
)
from models.interview.entries import TranscriptEntry, TranscriptView
from models.interview.names import QUERY_TRANSCRIPT, SIGNAL_TRANSCRIPT_ENTRY
from models.interview.workflow import InterviewInput
from tests.e2e.interview.helpers import ANSWERS, ESSAY, worker_env, worker_process

pytestmark = [pytest.mark.dev_server, pytest.mark.drill]


async def test_worker_killed_mid_session_then_restarted_loses_and_duplicates_nothing(dev_env, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    address = dev_env.client.service_client.config.target_host
    queue = f"e2e-crash-{uuid.uuid4().hex[:6]}"
    client = dev_env.client
    inp = InterviewInput(topic="What on-call taught me", duration_seconds=600, cycle_seconds=1.0)
    opts = RehearsalOptions(fresh_question_timeout=20, close_when_done=False)

    first = worker_process(address, queue, worker_env(tmp_path / "artifacts"), tmp_path / "worker1.log")
    async with first as wp:
        handle = await start_interview(client, inp, f"interview-e2e-crash-{uuid.uuid4().hex[:6]}", queue)
        part1 = await rehearse(client, handle.id, TranscriptAnswers(ANSWERS[:3]), opts)
        assert part1.turns == 3
        await wp.kill()  # SIGKILL: no graceful shutdown, in-flight tasks just vanish

        # While no worker runs, the transcription stream keeps going (signals are durable in history) and a
        # flaky client re-sends one entry.
        q4 = TranscriptEntry(entry_id="rehearsal-t004-q", speaker="interviewer", text="What changed after that night?")
        a4 = TranscriptEntry(entry_id="rehearsal-t004-a", speaker="interviewee", text=ANSWERS[3])
        for entry in (q4, a4, a4):
            await handle.signal(SIGNAL_TRANSCRIPT_ENTRY, entry)

    script = {"interview_writer": [ESSAY]}
    second = worker_process(address, queue, worker_env(tmp_path / "artifacts", script, tmp_path),
                            tmp_path / "worker2.log")
    async with second:
        # The restarted rehearsal resumes after the 4 answers already recorded, then closes the interview.
        part2 = await rehearse(client, handle.id, TranscriptAnswers(ANSWERS), RehearsalOptions(fresh_question_timeout=20))
        result, essay, _ = await fetch_essay(handle, wait=True)
        view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        await wait_for_state(handle, lambda s: s.status == "COMPLETED", 10)

    ids = [e.entry_id for e in view.entries]
    sent = [e.entry_id for e in view.entries if e.client_id != "engine"]   # (the engine records its questions)
    expected = [f"rehearsal-t{t:03d}-{w}" for t in range(1, len(ANSWERS) + 1) for w in ("qa" if t == 4 else "a")]
    assert sent == [*expected, "rehearsal-closing"], ids
    assert len(ids) == len(set(ids)) and len(ids) > len(sent)
    assert [e.seq for e in view.entries] == sorted(e.seq for e in view.entries)
    assert [e.text for e in view.entries if e.speaker == "interviewee"] == ANSWERS
    assert part2.turns == len(ANSWERS) and part2.duplicates == 0
    assert result.status == "COMPLETED" and result.entries == len(ids)
    assert "Black Friday" in essay
