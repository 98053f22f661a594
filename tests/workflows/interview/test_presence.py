"""Presence through a real workflow (time-skipping server): heartbeats on, silence → PAUSED (disconnect), the
next heartbeat → resumed with the same question in force; no heartbeat ever → never paused; replays."""

from __future__ import annotations

from models.interview.entries import Heartbeat
from models.interview.names import UPDATE_HEARTBEAT
from models.interview.workflow import SessionState
from tests.conftest import replay
from tests.workflows.interview.helpers import adaptive_plan, control, decision, events, of_type, start, state


async def beat(handle, client: str = "page-1", seq: int = 0) -> SessionState:
    return await handle.execute_update(UPDATE_HEARTBEAT, Heartbeat(client_id=client, seq=seq),
                                       result_type=SessionState)


async def test_silence_pauses_the_session_and_a_heartbeat_resumes_it_without_a_new_question(ts_env, worker, offline):
    offline.script("interview_orchestrator", *[decision("How did you end up carrying the pager?", qid="q-origin")] * 5)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, presence_timeout_seconds=10)
        await ts_env.sleep(3)
        s = await beat(h)
        assert s.status == "IN_PROGRESS" and s.presence_timeout_seconds == 10 and s.interviewee_seen_at
        question, qid = s.next_question, s.question_event_id
        assert question and qid
        await ts_env.sleep(5)
        await beat(h, seq=1)
        await ts_env.sleep(5)
        assert (await state(h)).status == "IN_PROGRESS"        # 5 s since the last heartbeat
        await ts_env.sleep(8)
        paused = await state(h)
        assert paused.status == "PAUSED" and paused.paused_reason == "disconnect"
        remaining = paused.seconds_remaining_overall
        await ts_env.sleep(30)
        resumed = await beat(h, "page-2")
        # the clock kept running while paused (a query answers as of the last workflow task — `as_of` — and a
        # paused session arms no timer, so the update's fresh state is the one to compare)
        assert resumed.seconds_remaining_overall < remaining - 25
        assert resumed.status == "IN_PROGRESS" and resumed.next_question == question
        assert resumed.question_event_id == qid
        await control(h, "end")
        await h.result()
        log = await events(h)
        await replay(h)
    pauses = of_type(log, "SESSION_PAUSED")
    assert [p.payload["reason"] for p in pauses] == ["disconnect"]
    assert [r.payload["reason"] for r in of_type(log, "SESSION_RESUMED")] == ["reconnect"]
    assert len([e for e in of_type(log, "PROMPT_PRESENTED", "FOLLOWUP_PRESENTED")
                if e.payload["text"] == question]) == 1


async def test_a_session_whose_client_never_heartbeats_is_never_paused(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, presence_timeout_seconds=5)
        await ts_env.sleep(120)
        assert (await state(h)).status == "IN_PROGRESS"
        await control(h, "end")
        await h.result()
        assert not of_type(await events(h), "SESSION_PAUSED")
