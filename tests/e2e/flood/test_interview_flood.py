"""Flood (issue 15, defect 3): an interview fed the largest valid input — 100 entries of 8,000 CJK characters
or 300 of 8,000 ASCII, each within the limits, sent as fast as the client can — completes on the real dev server (which enforces Temporal's 2 MiB payload limit):
continue-as-new state, archives and every activity input stay bounded by construction."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from activities.artifacts import store
from models.interview.entries import SessionControl, TranscriptEntry
from models.interview.names import MAX_ENTRY_CHARS, SIGNAL_SESSION_CONTROL, SIGNAL_TRANSCRIPT_ENTRY
from models.interview.workflow import InterviewInput, InterviewResult
from tests.workflows.interview.helpers import adaptive_plan, decision
from workflows.interview.workflow import InterviewWorkflow

pytestmark = [pytest.mark.dev_server, pytest.mark.drill]


def cjk(i: int) -> str:
    # 8,000 characters of 3-byte UTF-8 (24 KB per entry, 2.4 MB for 100 entries)
    head = f"{i:04d}："
    return head + "".join(chr(0x4E00 + (i * 131 + k) % 20000) for k in range(MAX_ENTRY_CHARS - len(head)))


def ascii_text(i: int) -> str:
    head = f"{i:04d}: "
    return head + "".join("abcdefghij klmnopqrstuvwxyz. "[(i + k) % 29] for k in range(MAX_ENTRY_CHARS - len(head)))


@pytest.mark.parametrize(("make", "count", "can_after"), [
    (cjk, 100, 400),      # continue-as-new by history length, with 1 MB+ of text in memory
    (cjk, 100, 5000),     # the default: continue-as-new because of the texts in memory
    (ascii_text, 300, 5000),
], ids=["cjk-100-can400", "cjk-100-default", "ascii-300-default"])
async def test_maximal_valid_entries_complete(dev_env, worker, offline, tmp_path, monkeypatch, make, count, can_after):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    # a new question each time (the offline double's plan questions would all be answered within the flood, and
    # an interview with nothing left to ask ends on its own)
    offline.script("interview_orchestrator", *[decision(f"And what happened after part {n}?", source="gap")
                                               for n in range(2 * count)])
    client = dev_env.client
    async with worker(client) as queue:
        inp = InterviewInput(topic="洪水测试", plan=adaptive_plan(), duration_seconds=3600, cycle_seconds=1.0,
                             continue_as_new_after_events=can_after)
        handle = await client.start_workflow(InterviewWorkflow.run, inp, id=f"interview-flood-{uuid.uuid4().hex[:6]}",
                                             task_queue=queue)
        for i in range(count):
            speaker = "interviewer" if i % 2 == 0 else "interviewee"
            text = make(i)
            assert len(text) == MAX_ENTRY_CHARS
            await handle.signal(SIGNAL_TRANSCRIPT_ENTRY, TranscriptEntry(entry_id=f"flood-{i:03d}", speaker=speaker,
                                                                          text=text))
            if i % 20 == 19:
                await asyncio.sleep(1.5)  # let cycles run (note-taker windows, continue-as-new) mid-flood
        await handle.signal(SIGNAL_SESSION_CONTROL, SessionControl(action="end"))
        result: InterviewResult = await asyncio.wait_for(handle.result(), 240)
    assert result.status == "COMPLETED", result
    transcript = json.loads(store().get(result.transcript))
    assert result.entries == len(transcript) and [e["seq"] for e in transcript] == list(range(1, len(transcript) + 1))
    sent = [e for e in transcript if e["client_id"] != "engine"]          # (and the questions the engine asked)
    assert [e["entry_id"] for e in sent] == [f"flood-{i:03d}" for i in range(count)]  # none lost, none twice
    assert all(e["text"] == make(i) for i, e in enumerate(sent))
    exported = [json.loads(line) for line in store().get(result.event_log).splitlines()]
    assert [e["event_id"] for e in exported] == list(range(1, len(exported) + 1))
    assert result.essay is not None
