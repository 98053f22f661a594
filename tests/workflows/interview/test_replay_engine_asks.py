"""The engine records the question it puts in force (issue 24 item 3) behind
`workflow.patched("interview-engine-records-its-question")`: runs recorded before it replay the old way (their
clients echoed the question; tests/histories/interview_before_* and the other interview histories), and runs of
the current engine replay too.

`interview_engine_asks_adaptive` / `_structured` were recorded once with the engine of this change running the
scenarios below (set COLLOQUY_RECORD_HISTORIES=1 to record them again — only when this patch's commands change on
purpose): the first question recorded at once, a person's own question, silence through a phase change (the
question waits: no re-decision, no expiry timer), a section change (a new question), the engine's own closing line
in the wrap-up; in structured mode the primary prompts and follow-ups recorded, sections ended by coverage, by
the follow-up budget and by time.
"""

from __future__ import annotations

import os

import pytest

from tests.conftest import replay, replay_recorded
from tests.workflows.interview.helpers import (
    adaptive_plan,
    assessment,
    decision,
    say,
    start,
    structured_sections,
)

RECORD = os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1"


def script_adaptive(offline) -> None:
    def orchestrator(req):
        if req.context.get("phase") == "wrap_up":
            return decision("Thank you so much for your time today.", source="gap")
        return decision("What did the worst night teach you?", source="gap")

    offline.script("interview_orchestrator", decision("Tell me about the worst night you had on call", qid="q-worst"),
                   *[orchestrator] * 20)


async def adaptive_scenario(env, queue):
    h = await start(env, queue, plan=adaptive_plan(), duration_seconds=200, write_essay=False)
    await say(h, "interviewee", "I carried the pager for six years.", entry_id="v-1")
    await env.sleep(5)                                              # the question, recorded by the engine
    await say(h, "interviewer", "Before that: who trained you?", entry_id="v-2")     # a person asks
    await say(h, "interviewee", "Nobody did, really.", entry_id="v-3")
    await env.sleep(60)                                             # silence through deep_dive and a section
    await say(h, "interviewee", "The settlement batch at three in the morning.", entry_id="v-4")
    await env.sleep(120)                                            # wrap-up; the next answer brings the closing
    await say(h, "interviewee", "That is all, thank you.", entry_id="v-5")
    await h.result()
    return h


def script_structured(offline) -> None:
    offline.script("interview_orchestrator", *[assessment(metrics="partially_covered", failure_modes="not_covered")] * 3,
                   *[assessment(correctness="covered")] * 2, *[assessment(reflection="not_covered")] * 4)


async def structured_scenario(env, queue):
    h = await start(env, queue, mode="structured", sections=structured_sections(), write_essay=False)
    for i in range(3):                                              # answers to the prompt and its follow-ups
        await say(h, "candidate", f"A token bucket, answer {i}.", entry_id=f"w-{i}")
        await env.sleep(4)
    await say(h, "candidate", "Refill at a fixed rate up to the capacity.", entry_id="w-5")   # coding: covered
    await env.sleep(4)
    await say(h, "candidate", "I would improve the error messages.", entry_id="w-9")
    await env.sleep(200)                                            # wrap runs out; the late grace; the end
    await h.result()
    return h


@pytest.mark.parametrize("name", ["interview_engine_asks_adaptive", "interview_engine_asks_structured"])
async def test_histories_of_the_engine_that_records_its_questions_replay(name):
    await replay_recorded(name)


async def test_adaptive_engine_asks_paths_replay(ts_env, worker, offline):
    script_adaptive(offline)
    async with worker(ts_env.client) as queue:
        await replay(await adaptive_scenario(ts_env, queue),
                     record_as="interview_engine_asks_adaptive" if RECORD else None)


async def test_structured_engine_asks_paths_replay(ts_env, worker, offline):
    script_structured(offline)
    async with worker(ts_env.client) as queue:
        await replay(await structured_scenario(ts_env, queue),
                     record_as="interview_engine_asks_structured" if RECORD else None)
