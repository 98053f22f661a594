"""000 follow-ups: the Follow-Up agent's suggestions, a 6-minute session linked by previous_session_id, and
Analysis/Writer reading original + follow-up transcripts merged in order."""

from __future__ import annotations

import json

from activities.artifacts import store
from models.interview.names import DEFAULT_FOLLOW_UP_SECONDS, QUERY_PLAN
from models.interview.plan import PlanSnapshot
from models.interview.workflow import InterviewResult
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

FIRST = "the worst night was a settlement batch that failed at three in the morning with no runbook."
SECOND = "the double charge came from a retry that nobody had made idempotent, and it cost us a week."
SUGGESTIONS = {"summary": "We covered the 3am settlement failure.",
               "suggested_topics": [{"title": "The double charge", "description": "Mentioned, not explored",
                                     "suggested_questions": ["What exactly happened with the double charge?",
                                                             "How did you make retries safe?"]},
                                    {"title": "Runbooks", "suggested_questions": ["Who writes them?"]},
                                    {"title": "Hiring", "suggested_questions": ["Who joins on-call?"]}],
               "unexplored_gaps": ["ownership of the batch"], "strengthen_areas": ["metrics"]}


async def test_follow_up_session_continues_the_conversation_and_merges_transcripts(ts_env, worker, offline):
    offline.script("interview_follow_up", SUGGESTIONS)
    async with worker(ts_env.client) as queue:
        first = await start(ts_env, queue, plan=adaptive_plan(), duration_seconds=120)
        await say(first, "interviewer", "Tell me about the worst night you had on call.")
        await say(first, "interviewee", FIRST)
        r1: InterviewResult = await first.result()
        assert [t.title for t in r1.follow_up.suggested_topics] == ["The double charge", "Runbooks", "Hiring"]
        offline.script("interview_orchestrator",
                       *[decision("What exactly happened with the double charge?", qid="fu-q1")] * 2)
        offline.script("interview_writer", "# The double charge\n\nIt started at three in the morning.")

        second = await start(ts_env, queue, previous_session_id=r1.workflow_id, follow_up_topic="The double charge",
                             duration_seconds=DEFAULT_FOLLOW_UP_SECONDS)
        entry = await say(second, "interviewee", SECOND)
        await ts_env.sleep(15)
        s = await state(second)
        plan = await second.query(QUERY_PLAN, result_type=PlanSnapshot)
        r2: InterviewResult = await second.result()
        evts = await events(second)
    assert entry.entry.session_id == r2.workflow_id
    assert plan.is_follow_up and plan.previous_session_id == r1.workflow_id
    assert [q.text for q in plan.sections[0].questions] == SUGGESTIONS["suggested_topics"][0]["suggested_questions"]
    assert s.previous_session_id == r1.workflow_id
    assert s.interviewer_instructions.startswith("**IMPORTANT: This is a FOLLOW-UP conversation.**")
    assert "We covered the 3am settlement failure." in s.interviewer_instructions
    assert s.next_question == "What exactly happened with the double charge?"
    assert of_type(evts, "INTERVIEW_STARTED")[0].payload["duration_seconds"] == 360
    # merged transcript: the original session first, then the follow-up
    merged = json.loads(store().get(r2.transcript))
    assert [(e["session_id"], e["text"]) for e in merged if e["speaker"] == "interviewee"] == [
        (r1.workflow_id, FIRST), (r2.workflow_id, SECOND)]
    analysis_prompt = offline.calls("interview_analysis")[-1].messages[-1]["content"]
    writer_prompt = offline.calls("interview_writer")[-1].messages[-1]["content"]
    for prompt in (analysis_prompt, writer_prompt):
        assert prompt.index(FIRST) < prompt.index(SECOND)
    assert r2.title == "The double charge" and "three in the morning" in store().get(r2.essay)


async def test_follow_up_on_an_unknown_topic_asks_the_planner_with_the_previous_summary(ts_env, worker, offline):
    offline.script("interview_follow_up", SUGGESTIONS)
    async with worker(ts_env.client) as queue:
        first = await start(ts_env, queue, plan=adaptive_plan(), duration_seconds=60, write_essay=True)
        await say(first, "interviewee", FIRST)
        r1 = await first.result()
        second = await start(ts_env, queue, previous_session_id=r1.workflow_id, follow_up_topic="Vendor risk",
                             duration_seconds=60, write_essay=False)
        await say(second, "interviewee", SECOND)
        plan = await second.query(QUERY_PLAN, result_type=PlanSnapshot)
        await control(second, "end")
        await second.result()
    prompt = offline.calls("interview_planner")[-1].messages[-1]["content"]
    assert "FOLLOW-UP session focused on: Vendor risk" in prompt and "We covered the 3am settlement failure." in prompt
    assert plan.is_follow_up and plan.topic == "Vendor risk" and plan.follow_up_context == SUGGESTIONS["summary"]


async def test_unknown_previous_session_terminates_with_a_clear_error(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, previous_session_id="interview-nope-000000")
        result = await h.result()
    assert result.status == "TERMINATED" and result.exit_reason == "system_error"
    assert "no finished interview 'interview-nope-000000' found" in result.error
