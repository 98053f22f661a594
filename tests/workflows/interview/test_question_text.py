"""Every text put in front of the interviewee is a question, and a follow-up never asks again what the earlier
session got an answer to (patches `interview-shown-text-is-a-question` and `interview-no-reask-across-sessions`,
issue 35 items 3 and 6): on the local model, 3 of 5 "questions" shown were its prompt's debris ("Where it started
(140s left)", braces and ids), and `continue --topic "<a suggested topic>"` put in force, word for word, a question
answered in the earlier session.

`interview_question_text` (the follow-up's history) was recorded once with this change running the scenario below
(set COLLOQUY_RECORD_HISTORIES=1 to record it again — only when these patches' commands change on purpose)."""

from __future__ import annotations

import os

from models.interview.names import DEFAULT_FOLLOW_UP_SECONDS
from rules.interview.questions import normalized
from tests.conftest import replay, replay_recorded
from tests.interview_invariants import check_presentations
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

RECORD = os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1"
ANSWERED = "What exactly happened with the double charge?"
TIMER = "Where it started (140s left)"
DEBRIS = "Where it started (120s left) },\n[id]: 3, … { targetSectionID } …(no notes yet),\n{"
SUGGESTIONS = {"summary": "We covered the double charge.",
               "suggested_topics": [{"title": "The double charge", "description": "Mentioned",
                                     "suggested_questions": [ANSWERED, "How did you make retries safe?"]}]}


async def earlier_session(env, queue, offline):
    offline.script("interview_follow_up", SUGGESTIONS)
    h = await start(env, queue, plan=adaptive_plan(), duration_seconds=120)
    await say(h, "interviewer", ANSWERED, entry_id="p-q")
    await say(h, "interviewee", "A retry nobody had made idempotent charged customers twice.", entry_id="p-a")
    await control(h, "end")
    return await h.result()


async def test_debris_is_never_shown_and_a_follow_up_never_asks_again(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        earlier = await earlier_session(ts_env, queue, offline)
        offline.script("interview_orchestrator", decision(TIMER, source="gap"), decision(DEBRIS, source="gap"),
                       decision(ANSWERED, source="gap"), *[decision("Who noticed it first?", source="gap")] * 10)
        h = await start(ts_env, queue, previous_session_id=earlier.workflow_id, follow_up_topic="The double charge",
                        duration_seconds=DEFAULT_FOLLOW_UP_SECONDS, write_essay=False)
        await ts_env.sleep(5)
        first = await state(h)
        await say(h, "interviewee", "We put idempotency keys on every retry.", entry_id="b-1")
        await ts_env.sleep(5)
        second = await state(h)
        await say(h, "interviewee", "Support noticed, from the refunds queue.", entry_id="b-2")
        await ts_env.sleep(5)
        third = await state(h)
        if third.status in ("IN_PROGRESS", "PAUSED"):
            await control(h, "end")
        await h.result()
        log = await events(h)
        await replay(h, record_as="interview_question_text" if RECORD else None)
    shown = [first.next_question, second.next_question, third.next_question]
    assert first.next_question == "How did you make retries safe?" and first.decision_method == "fallback"
    assert TIMER not in shown and DEBRIS not in shown and ANSWERED not in shown
    check_presentations(log, mode="adaptive", answered_before={normalized(ANSWERED)})
    rejected = [e.payload["rejected_question_reason"] for e in of_type(log, "PROMPT_PRESENTED", "FOLLOWUP_PRESENTED")
                if "rejected_question_reason" in e.payload]
    assert rejected and rejected[0].startswith("template residue")
    assert ANSWERED not in [e.payload.get("text") for e in of_type(log, "PROMPT_PRESENTED", "FOLLOWUP_PRESENTED")]


async def test_the_recorded_question_text_history_replays():
    await replay_recorded("interview_question_text")
