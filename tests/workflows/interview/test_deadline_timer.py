"""A decision that comes within `decision_deadline_seconds` cancels its deadline timer (patch
`interview-decision-deadline-timer-cancelled`, issue 40). Before, the timer always fired 8 s after every answer and
woke the workflow for nothing: a workflow task (and five history events) per exchange, a fifth of a busy worker's
workflow tasks. Runs recorded before keep their timers (`interview_one_answer` replays); `interview_deadline_cancelled`,
recorded with the change (RECORD=1 to record it again, only when these commands change on purpose), walks decisions
in time (each timer cancelled); a decision past its deadline (the timer fires) is the path `interview_one_answer` pins."""

from __future__ import annotations

import asyncio
import os

from temporalio.api.enums.v1 import EventType

from tests.conftest import replay, replay_recorded
from tests.workflows.interview.helpers import adaptive_plan, control, decision, say, start, state


async def deadline_timers(handle) -> dict[str, int]:
    """started / fired / cancelled counts of the decision-deadline timers in the run's history."""
    history = await handle.fetch_history()
    deadline: set[int] = set()
    out = {"started": 0, "fired": 0, "cancelled": 0}
    for e in history.events:
        if e.event_type == EventType.EVENT_TYPE_TIMER_STARTED:
            summary = e.user_metadata.summary.data.decode(errors="replace") if e.HasField("user_metadata") else ""
            if "decision deadline" in summary:
                deadline.add(e.event_id)
                out["started"] += 1
        elif e.event_type == EventType.EVENT_TYPE_TIMER_FIRED:
            out["fired"] += e.timer_fired_event_attributes.started_event_id in deadline
        elif e.event_type == EventType.EVENT_TYPE_TIMER_CANCELED:
            out["cancelled"] += e.timer_canceled_event_attributes.started_event_id in deadline
    return out


async def _answered(h, entry_id: str, text: str) -> None:
    before = (await state(h)).question_entry_id
    await say(h, "interviewee", text, entry_id=entry_id)
    for _ in range(400):
        if (await state(h)).question_entry_id not in (None, before):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"no new question after {entry_id}")


async def deadline_scenario(env, queue, offline):
    offline.script("interview_orchestrator", decision("How did you end up carrying the pager?", qid="q-origin"),
                   *[decision(f"What happened after step {i}?", source="gap") for i in range(6)])
    h = await start(env, queue, plan=adaptive_plan(), duration_seconds=600, write_essay=False,
                    decision_deadline_seconds=8)
    while not (await state(h)).question_entry_id:
        await asyncio.sleep(0.05)
    await _answered(h, "a1", "I volunteered for the pager the week our lead left.")
    await env.sleep(12)                                                # past the bound: nothing left to fire
    await _answered(h, "a2", "The first outage taught me to write the runbook down.")
    await env.sleep(12)
    await control(h, "end")
    await h.result()
    return h


async def test_a_decision_in_time_cancels_its_deadline_timer(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        handle = await deadline_scenario(ts_env, queue, offline)
        timers = await deadline_timers(handle)
        await replay(handle, record_as="interview_deadline_cancelled" if os.environ.get("RECORD") else None)
    assert timers["started"] >= 2, timers
    assert timers["fired"] == 0, f"a deadline timer fired after a decision in time: {timers}"
    assert timers["cancelled"] == timers["started"], timers


async def test_the_deadline_cancelled_history_replays():
    await replay_recorded("interview_deadline_cancelled")
