"""000's live engine seen through real workflows: lifecycle, parallel NoteTaker ∥ Researcher, question
tracking, phases, fallbacks, cadence (skip / reuse / freshness), closing detection, instructions, essay."""

from __future__ import annotations

import json
import time

from temporalio.api.enums.v1 import EventType

from activities.artifacts import store
from activities.llm.offline import Fault
from models.interview.names import QUERY_NOTES
from models.interview.notes import NotesState
from tests.workflows.interview.helpers import (
    adaptive_plan,
    control,
    decision,
    events,
    of_type,
    say,
    start,
    state,
)

ANSWER_1 = ("i started carrying the pager in 2015 because nobody else wanted to. the worst night was a "
            "settlement batch that failed at three in the morning, and we had no runbook at all.")
ANSWER_2 = ("we measure rotation health by pages per shift and how many of them were actionable. if fewer "
            "than half are actionable, the rotation is broken, no matter what the dashboard says.")


async def _scheduled(handle) -> list[tuple[str, int, int]]:
    """(activity type, scheduled event id, workflow task completed id) for every scheduled activity."""
    history = await handle.fetch_history()
    out = []
    for e in history.events:
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            a = e.activity_task_scheduled_event_attributes
            out.append((a.activity_type.name, e.event_id, a.workflow_task_completed_event_id))
    return out


async def test_fourteen_minute_interview_lifecycle(ts_env, worker, offline):
    offline.script("interview_orchestrator",
                   decision("Tell me about the worst night you had on call", qid="q-worst"),
                   decision("So how do you measure whether an on-call rotation is healthy?", qid=None,
                            phase="deep_dive", brief="Reference the settlement batch."))
    offline.script("interview_note_taker", {"key_ideas": [{"title": "no runbook", "description": "3am failure"}],
                                            "gaps": [{"description": "who owned the batch",
                                                      "suggested_followup": "Who owned it?"}]})
    offline.script("interview_researcher", {"items": [{"topic": "settlement batch", "kind": "definition",
                                                       "summary": "End-of-day money movement.", "priority": 1}]})
    offline.script("interview_analysis", {"main_claims": ["runbooks matter"], "suggested_title": "Three in the Morning",
                                          "quotes": [{"text": "we had no runbook at all"},
                                                     {"text": "words nobody ever said in this interview"}]})
    offline.script("interview_writer", '# Three in the Morning\n\nI remember it well: "the worst night was a '
                                       'settlement batch that failed at three in the morning". And then '
                                       '"we always had a runbook for everything" — I never said that.')
    async with worker(ts_env.client) as queue:
        wall = time.perf_counter()
        h = await start(ts_env, queue, plan=adaptive_plan())
        q1 = await say(h, "interviewer", "Welcome, and thanks for joining.")       # a person's own words
        assert q1.status == "IN_PROGRESS" and q1.section_id == "origins" and q1.phase == "opening"
        await ts_env.sleep(5)
        s = await state(h)
        # decided, put in force and recorded by the engine as the interviewer's entry: asked (by its plan id)
        assert s.next_question == "Tell me about the worst night you had on call"
        assert s.asked_question_ids == ["q-worst"] and s.question_entry_id == f"question-{s.question_event_id}"
        a1 = await say(h, "interviewee", ANSWER_1)
        await ts_env.sleep(30)
        s = await state(h)                                     # decided with the answer: asked (Jaccard: q-measure)
        assert s.next_question.startswith("So how do you measure") and s.asked_question_ids == ["q-worst", "q-measure"]
        assert s.research_topics == ["settlement batch"]
        assert s.interviewer_instructions.startswith("## Current Phase:")
        await ts_env.sleep(150)                                # into deep_dive
        deep = await state(h)
        assert deep.phase == "deep_dive" and deep.next_question == s.next_question       # waiting: not swapped
        a2 = await say(h, "interviewee", ANSWER_2)
        assert a2.interviewer_instructions.startswith("## Current Phase: ")
        assert "## Next Question to Ask" in a2.interviewer_instructions
        result = await h.result()
        wall = time.perf_counter() - wall
        evts = await events(h)
        notes = await h.query(QUERY_NOTES, result_type=NotesState)
        scheduled = await _scheduled(h)
        final = await state(h)
    assert a1.entry.seq == 3 and a1.entry.speaker == "interviewee"
    # 14 minutes of workflow time in a small fraction of that in wall time (time-skipping timers)
    started, done = of_type(evts, "INTERVIEW_STARTED")[0], of_type(evts, "INTERVIEW_COMPLETED")[0]
    assert (done.timestamp - started.timestamp).total_seconds() >= 840
    assert wall < 84, f"a 14-minute interview took {wall:.1f}s of wall time"
    # phases at 15 % and 85 % of 840 s
    phases = of_type(evts, "PHASE_CHANGED")
    offsets = [round((e.timestamp - started.timestamp).total_seconds()) for e in phases]
    assert [(e.payload["to"], o) for e, o in zip(phases, offsets, strict=True)] == [("deep_dive", 126), ("wrap_up", 714)]
    # both plan questions the Orchestrator chose are marked: one by id, one by Jaccard > 0.6
    assert {"q-worst", "q-measure"} <= set(final.asked_question_ids)
    log = store().get(result.activity_log)
    assert "method: direct id" in log and "method: jaccard" in log
    assert "NoteTaker and Researcher working in parallel" in log
    # NoteTaker and Researcher are scheduled by the same workflow task; the Orchestrator only after both
    first_nt = next(s for s in scheduled if s[0] == "interview_note_taker")
    first_rs = next(s for s in scheduled if s[0] == "interview_researcher")
    assert first_nt[2] == first_rs[2]
    orch_after = [s for s in scheduled if s[0] == "interview_orchestrator" and s[1] > max(first_nt[1], first_rs[1])]
    assert orch_after and orch_after[0][2] > first_nt[2]
    # notes merged from the scripted NoteTaker answer; gaps show in the instructions
    assert notes.key_ideas[0].title == "no runbook" and notes.gaps[0].description == "who owned the batch"
    # every agent call is a request/response pair in the event log
    requests, responses = of_type(evts, "AI_REQUEST"), of_type(evts, "AI_RESPONSE")
    assert len(requests) == len(responses) > 5
    assert {e.payload["agent"] for e in responses} >= {"interview_note_taker", "interview_researcher",
                                                        "interview_orchestrator", "interview_analysis",
                                                        "interview_writer", "interview_follow_up"}
    # the essay exists, is first-person material from the transcript, and the result holds refs only
    assert result.status == "COMPLETED" and result.exit_reason == "time_expired"
    essay = store().get(result.essay)
    assert result.title == "Three in the Morning" and essay.startswith("[offline test double]\n\n# Three in the Morning\n")
    assert "1 verified quotes" in log                      # the invented quote is not counted as verified
    analysis = json.loads(store().get(result.analysis))
    assert [q["text"] for q in analysis["quotes"]] == ["we had no runbook at all"]   # invented quote dropped
    transcript = json.loads(store().get(result.transcript))
    # the person's welcome; then each question the engine put in force (recorded by it) and the answers
    assert [(e["speaker"], e["client_id"] == "engine") for e in transcript][:5] == [
        ("interviewer", False), ("interviewer", True), ("interviewee", False), ("interviewer", True),
        ("interviewee", False)]
    assert all(e["speaker"] == "interviewer" and e["client_id"] == "engine" for e in transcript[5:])
    assert result.usage.calls == len(responses)
    bundle = json.loads(store().get(result.evaluation_bundle))
    assert [s["section_id"] for s in bundle["sections"]] == ["origins", "practice"]
    replay_bundle = json.loads(store().get(result.replay_bundle))
    assert len(replay_bundle["timeline"]) == len(evts)


async def test_agent_failures_fall_back_and_the_interview_goes_on(ts_env, worker, offline):
    def note_taker(req):        # works on the first answer, then the provider rejects the key
        return Fault(kind="auth") if ANSWER_2 in req.prompt else {"key_ideas": [{"title": "pager fatigue is real"}]}

    def orchestrator(req):      # decides until the second answer, then the provider is down (both attempts)
        return Fault(kind="server_error") if ANSWER_2 in req.prompt else \
            decision("How did you end up carrying the pager?", qid="q-origin")

    offline.script("interview_note_taker", *[note_taker] * 6)
    offline.script("interview_researcher", *[Fault(kind="bad_request")] * 6)
    offline.script("interview_orchestrator", *[orchestrator] * 8)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        await say(h, "interviewee", ANSWER_1)
        await ts_env.sleep(20)
        first = await state(h)
        await say(h, "interviewee", ANSWER_2)
        await ts_env.sleep(20)
        second = await state(h)
        notes = await h.query(QUERY_NOTES, result_type=NotesState)
        await control(h, "end")
        result = await h.result()
        evts = await events(h)
    assert first.decision_method == "orchestrator" and first.next_question == "How did you end up carrying the pager?"
    # Orchestrator failed (first try and one retry) → the first unasked P1 question of the plan
    assert second.decision_method == "fallback"
    assert second.next_question == "Tell me about the worst night you had on call"
    # NoteTaker failed → the previous notes stay; Researcher failed → no research
    assert [k.title for k in notes.key_ideas] == ["pager fatigue is real"]
    assert second.research_topics == []
    failed = [e.payload["agent"] for e in of_type(evts, "AI_FAILED")]
    assert failed.count("interview_note_taker") == 1 and failed.count("interview_researcher") == 2
    assert failed.count("interview_orchestrator") >= 1
    assert len([c for c in offline.calls("interview_orchestrator") if c.fault == "server_error"]) == 2
    assert result.status == "COMPLETED" and result.exit_reason == "ended_by_client"


async def test_llm_garbage_is_reasked_then_falls_back(ts_env, worker, offline):
    offline.script("interview_orchestrator", *[Fault(kind="invalid_json")] * 12)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        await say(h, "interviewee", ANSWER_1)
        await ts_env.sleep(15)
        s = await state(h)
        await control(h, "end")
        await h.result()
        evts = await events(h)
    assert s.decision_method == "fallback"
    # each fallback takes the next unasked question by priority: P1 (plan order) before P2/P3
    presented = [e.payload["text"] for e in of_type(evts, "PROMPT_PRESENTED")]
    order = ["Tell me about the worst night you had on call",
             "How do you measure whether an on-call rotation is healthy?", "How did you end up carrying the pager?"]
    assert presented and presented == order[: len(presented)] and s.next_question == presented[-1]
    assert "returned invalid output twice" in of_type(evts, "AI_FAILED")[0].payload["error"]
    calls = offline.calls("interview_orchestrator")
    assert calls and len(calls) % 4 == 0    # each failed decision: 2 attempts x (answer + one re-ask)


async def test_silence_skips_listeners_and_reuses_recent_decisions(ts_env, worker, offline):
    """No idle cycles: after the answer the listeners ran once and the Orchestrator once; its question, recorded by
    the engine, waits for its answer through the silence — nothing is decided again and no timer ticks."""
    offline.script("interview_orchestrator", *[decision("How did you end up carrying the pager?", qid="q-origin")] * 4)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, cycle_seconds=2)
        await say(h, "interviewee", "hello, glad to be here.")
        await ts_env.sleep(5)
        before = len(offline.calls("interview_orchestrator"))
        listeners_before = len(offline.calls("interview_note_taker"))
        await ts_env.sleep(60)
        after = len(offline.calls("interview_orchestrator"))
        listeners_after = len(offline.calls("interview_note_taker"))
        await control(h, "end")
        await h.result()
        timers = [e.timer_started_event_attributes for e in (await h.fetch_history()).events
                  if e.HasField("timer_started_event_attributes")]
    assert listeners_after == listeners_before == 1         # only the one cycle that had new content
    assert after == before == 1                              # the question waits: nothing to decide again
    summaries = [t.start_to_fire_timeout.ToSeconds() for t in timers]
    assert not any(abs(x - 2) < 0.01 for x in summaries), summaries   # no cadence ticks (cycle_seconds=2)
    assert not any(abs(x - 30) < 1.5 for x in summaries), summaries   # no decision-expiry timers either


async def test_researcher_topics_are_not_repeated_within_five_minutes(ts_env, worker, offline):
    item = {"items": [{"topic": "Kafka", "summary": "A log.", "kind": "definition"}]}
    offline.script("interview_researcher", item, item, item)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, duration_seconds=900)
        await say(h, "interviewee", "we moved every payment event onto a log in the first year.")
        await ts_env.sleep(20)
        await say(h, "interviewee", "the log made replays possible after incidents.")
        await ts_env.sleep(20)
        soon = await state(h)
        await ts_env.sleep(300)
        await say(h, "interviewee", "and replays are how we found the double charge bug.")
        await ts_env.sleep(20)
        later = await state(h)
        await control(h, "end")
        await h.result()
    assert len(offline.calls("interview_researcher")) == 3
    assert soon.research_topics == ["Kafka"]
    assert later.research_topics == ["Kafka", "Kafka"]       # refreshed after 300 s


async def test_interviewer_closing_remark_ends_the_interview_at_once(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        await say(h, "interviewee", ANSWER_1)
        await ts_env.sleep(60)
        closing = await say(h, "interviewer", "Thank you so much for sharing all of this today!")
        assert closing.status in ("FINALIZING", "COMPLETED") and closing.next_question is None
        result = await h.result()
        evts = await events(h)
    assert result.exit_reason == "interviewer_closing"
    started, done = of_type(evts, "INTERVIEW_STARTED")[0], of_type(evts, "INTERVIEW_COMPLETED")[0]
    assert (done.timestamp - started.timestamp).total_seconds() < 120
    assert of_type(evts, "CLOSING_DETECTED")


async def test_a_question_in_the_air_is_not_replaced_before_the_answer(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        await say(h, "interviewee", "happy to talk about pagers.")
        await ts_env.sleep(5)
        before = len(offline.calls("interview_orchestrator"))
        asked = await say(h, "interviewer", "Tell me about the worst night you had on call.")
        await ts_env.sleep(5)
        while_waiting = len(offline.calls("interview_orchestrator"))
        await say(h, "interviewee", ANSWER_1)
        await ts_env.sleep(5)
        after = len(offline.calls("interview_orchestrator"))
        await control(h, "end")
        result = await h.result()
    assert while_waiting == before and after == before + 1
    assert asked.entry.speaker == "interviewer"
    assert "the interviewer's question is waiting for an answer" in store().get(result.activity_log)
