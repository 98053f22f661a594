"""Determinism: replay fresh histories and the recorded ones in tests/histories/ against the current code.

Re-record after an intended workflow change (and say so in the commit):
    COLLOQUY_RECORD_HISTORIES=1 .venv/bin/pytest -q tests/workflows/interview/test_replay.py
"""

from __future__ import annotations

import asyncio
import os

import pytest

from tests.conftest import HISTORIES, replay, replay_recorded
from tests.workflows.interview.helpers import (
    adaptive_plan,
    assessment,
    control,
    decision,
    say,
    signal_control,
    start,
    structured_sections,
)

RECORD = os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1"


async def test_adaptive_interview_replays(dev_env, worker, offline):
    """An adaptive interview that ends by its own clock, with a pause, on the dev server in real time (~35 s).

    Not on the time-skipping server: there the clock jumps to the next timer while a workflow task is in flight,
    the server then refuses that task's CancelTimer for the timer that just fired and leaves the run stuck for good
    ("invalid history builder state for action", temporalio/sdk-java#2606 and #3088). An interview re-arms its clock
    after nearly every step, so letting time skip through a whole one hung this test about one run in two.
    """
    offline.script("interview_orchestrator", *[decision("How did you end up carrying the pager?", qid="q-origin")] * 2)
    async with worker(dev_env.client) as queue:
        h = await start(dev_env, queue, plan=adaptive_plan(), duration_seconds=30)
        await say(h, "interviewer", "Welcome!", entry_id="r-1")
        await say(h, "interviewee", "i carried the pager for six years and it changed how i write code.", entry_id="r-2")
        # controls by signal here (the update path is covered in test_engine_scenarios / test_bad_input)
        await signal_control(h, "pause")
        await asyncio.sleep(2)
        await signal_control(h, "resume")
        await asyncio.wait_for(h.result(), 120)
        await replay(h, record_as="interview_adaptive" if RECORD else None)


async def test_structured_interview_replays(ts_env, worker, offline):
    offline.script("interview_orchestrator", assessment(metrics="partially_covered"), assessment(metrics="covered"))
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, mode="structured", sections=structured_sections(), write_essay=False)
        await say(h, "candidate", "A counter per key with a latency budget.", entry_id="s-1")
        await ts_env.sleep(10)
        await say(h, "candidate", "Throughput is measured per second.", entry_id="s-2")
        await control(h, "candidate_done")
        await control(h, "end")
        await h.result()
        await replay(h, record_as="interview_structured" if RECORD else None)


@pytest.mark.parametrize("name", ["interview_adaptive", "interview_structured"])
async def test_recorded_histories_still_replay(name):
    assert (HISTORIES / f"{name}.json").is_file(), f"record it: COLLOQUY_RECORD_HISTORIES=1 pytest {__file__}"
    await replay_recorded(name)
