"""The question-truth changes (issue 20) are behind `workflow.patched(...)` where they change commands: histories
recorded by the engine before them replay, and runs of the current engine replay too.

`interview_before_question_truth_adaptive` / `_structured` were recorded once with the engine of commit 2126864
(before the change) running the scenarios below; together they walk every changed path: a question waiting for its
answer at the deep-dive change (a new decision then), the Orchestrator proposing an answered question again (asked
again then), a section ended by time with a late answer after it (its summary started at once then), a late timer
(one section per timer then), follow-up pools used up with budget left (idle until the deadline then). Do not
re-record them with the current code: their point is that they came from the earlier one.
"""

from __future__ import annotations

import pytest

from models.interview.plan import DimensionSpec, SectionSnapshot
from tests.conftest import replay, replay_recorded
from tests.workflows.interview.helpers import adaptive_plan, assessment, decision, say, start

AGAIN = "Tell me about the worst night you had on call"


def script_adaptive(offline) -> None:
    offline.script("interview_orchestrator", decision(AGAIN, qid="q-worst"), decision(AGAIN, qid="q-worst"),
                   decision(AGAIN, qid="q-worst"), decision(AGAIN, qid="q-worst"))


async def adaptive_scenario(env, queue):
    h = await start(env, queue, plan=adaptive_plan(), duration_seconds=200, write_essay=False)
    await say(h, "interviewee", "I carried the pager for six years.", entry_id="v-1")
    await env.sleep(5)
    await say(h, "interviewer", AGAIN, entry_id="v-2")            # the client shows the question: asked
    await env.sleep(40)                                            # deep_dive at 30 s: the question waits
    await say(h, "interviewee", "The settlement batch at three in the morning.", entry_id="v-3")
    await env.sleep(5)                                             # the Orchestrator proposes it again
    await env.sleep(200)                                           # the sections run out; late grace; the end
    await h.result()
    return h


def structured_sections():
    dims = [DimensionSpec(name="metrics", keywords=["latency"]), DimensionSpec(name="limits", keywords=["quota"])]
    return [SectionSnapshot(id="design", title="Design", goal="Design it", duration_seconds=60, followup_cap=4,
                            primary_prompt="Design a rate limiter.", required_dimensions=dims,
                            followup_pool={"metrics": ["How would you measure it?"], "limits": ["Which limits?"]}),
            SectionSnapshot(id="wrap", title="Wrap-up", goal="Reflect", duration_seconds=60, followup_cap=1,
                            primary_prompt="What would you improve?",
                            required_dimensions=[DimensionSpec(name="reflection", keywords=["improve"])])]


def script_structured(offline) -> None:
    offline.script("interview_orchestrator", *[assessment(metrics="partially_covered", limits="not_covered")] * 4,
                   *[assessment(reflection="not_covered")] * 4)


async def structured_scenario(env, queue):
    h = await start(env, queue, mode="structured", sections=structured_sections(), write_essay=False)
    for i in range(3):                                             # answers until the pools are used up
        await say(h, "candidate", f"A token bucket, answer {i}.", entry_id=f"w-{i}")
        await env.sleep(4)
    await env.sleep(60)                                            # design runs out (if it still runs); wrap starts
    await say(h, "candidate", "I would improve the error messages.", entry_id="w-9")
    await env.sleep(200)                                           # wrap runs out; the late grace; the end
    await h.result()
    return h


@pytest.mark.parametrize("name", ["interview_before_question_truth_adaptive",
                                  "interview_before_question_truth_structured"])
async def test_histories_from_before_the_question_truth_replay(name):
    await replay_recorded(name)


async def test_adaptive_question_truth_paths_replay(ts_env, worker, offline):
    script_adaptive(offline)
    async with worker(ts_env.client) as queue:
        await replay(await adaptive_scenario(ts_env, queue))


async def test_structured_question_truth_paths_replay(ts_env, worker, offline):
    script_structured(offline)
    async with worker(ts_env.client) as queue:
        await replay(await structured_scenario(ts_env, queue))
