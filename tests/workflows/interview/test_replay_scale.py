"""Running interviews survive the cheaper live cycle (issue: Scale).

`interview_before_scale.json` was recorded with the engine as it was before the change — a cadence timer every
cycle, whole windows, notes and research inline in every agent input. It must keep replaying (the change is
behind `workflow.patched`), and a run under the current code must replay too.

Re-record only the fresh one: COLLOQUY_RECORD_HISTORIES=1 .venv/bin/pytest -q tests/workflows/interview/test_replay_scale.py
"""

from __future__ import annotations

import os

import pytest

from tests.conftest import HISTORIES, replay, replay_recorded
from tests.workflows.interview.helpers import adaptive_plan, decision, say, start

RECORD = os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1"
RECORD_AS = os.environ.get("COLLOQUY_RECORD_AS", "interview_after_scale")


async def _live_session(ts_env, queue):
    h = await start(ts_env, queue, plan=adaptive_plan(), duration_seconds=240, cycle_seconds=5)
    await say(h, "interviewer", "How did you end up carrying the pager?", entry_id="s-1")
    await ts_env.sleep(4)
    await say(h, "interviewee", "By accident: I kept answering it at night and after a year it was my job.",
              entry_id="s-2")
    await ts_env.sleep(45)   # nobody asks: the decision expires (000's 30 s rule) and is made again
    await say(h, "interviewer", "What changed after the Black Friday outage?", entry_id="s-3")
    await ts_env.sleep(6)
    await say(h, "interviewee", "We reviewed config exactly like code, and alerts went to a watched channel.",
              entry_id="s-4")
    await ts_env.sleep(20)
    await say(h, "interviewee", "Also, we deleted every alert nobody had acted on in ninety days.", entry_id="s-5")
    return h


@pytest.mark.parametrize("name", ["interview_before_scale", "interview_after_scale"])
async def test_sessions_recorded_before_and_after_the_cheaper_cycle_replay(name):
    assert (HISTORIES / f"{name}.json").is_file()
    await replay_recorded(name)


def test_the_recorded_histories_are_the_two_engines():
    """The 'before' history ticks every cycle_seconds and carries whole entries; the 'after' one arms a timer only
    for an expiring decision and carries WindowLines — so the replay above really covers both command sequences."""
    import json

    def timers(name: str) -> list[float]:
        events = json.loads((HISTORIES / f"{name}.json").read_text())["events"]
        return [float(e["timerStartedEventAttributes"]["startToFireTimeout"].rstrip("s")) for e in events
                if "timerStartedEventAttributes" in e]

    before, after = timers("interview_before_scale"), timers("interview_after_scale")
    assert before.count(5.0) > 20                         # cycle_seconds=5: the cadence ticker
    assert 5.0 not in after and any(abs(t - 30) < 1 for t in after)   # only expiry timers (and the clock's)


async def test_a_session_under_the_current_cycle_replays(ts_env, worker, offline):
    offline.script("interview_orchestrator", *[decision("What changed after that?", source="gap")] * 6)
    async with worker(ts_env.client) as queue:
        h = await _live_session(ts_env, queue)
        await h.result()
        await replay(h, record_as=RECORD_AS if RECORD else None)
