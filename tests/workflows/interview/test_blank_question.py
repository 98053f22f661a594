"""A blank question is never put in force (patch `interview-no-blank-question`): found by the real-model pipeline
test over llama.cpp's server, where SmolLM2 planned a section with no question and then proposed "" as the next
question — the engine recorded an empty interviewer entry and the rehearsing client waited 15 minutes for a question.

`interview_blank_question` was recorded once with this change running the scenario below (set
COLLOQUY_RECORD_HISTORIES=1 to record it again — only when this patch's commands change on purpose)."""

from __future__ import annotations

import os

from tests.conftest import replay, replay_recorded
from tests.interview_invariants import check_presentations
from tests.workflows.interview.helpers import control, decision, events, say, start, state

RECORD = os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1"
NO_QUESTION_PLAN = {"topic": "What on-call taught me", "research_goal": "g", "angle": "a",
                    "sections": [{"id": "1", "title": "Why I work in a hospital.", "questions": []}]}


def script(offline) -> None:
    offline.script("interview_planner", NO_QUESTION_PLAN)
    offline.script("interview_orchestrator", decision(""), decision("  \n", source="gap"),
                   *[decision("What did the worst night teach you?", source="gap")] * 10)


async def scenario(env, queue):
    h = await start(env, queue, topic="What on-call taught me", duration_seconds=600, write_essay=False)
    await env.sleep(5)
    first = await state(h)
    await say(h, "interviewee", "I answered the pager at night for years.", entry_id="b-1")
    await env.sleep(5)
    second = await state(h)
    await control(h, "end")
    await h.result()
    return h, first, second


async def test_a_blank_plan_and_blank_proposals_are_never_asked(ts_env, worker, offline):
    script(offline)
    async with worker(ts_env.client) as queue:
        h, first, second = await scenario(ts_env, queue)
        log = await events(h)
        await replay(h, record_as="interview_blank_question" if RECORD else None)
    assert first.next_question and first.next_question.strip() and first.decision_method == "fallback"
    assert second.next_question and second.next_question.strip() and second.next_question != first.next_question
    check_presentations(log, mode="adaptive")                       # no-blank-question, on the workflow's log
    planned = next(e for e in log if e.type == "PLAN_READY")
    assert planned.payload["questions"] >= 3                        # the topic's plan, not the empty one


async def test_the_recorded_blank_question_history_replays():
    await replay_recorded("interview_blank_question")
