"""The truthful-engine changes (issue 11) are behind `workflow.patched(...)` where they change commands: histories
recorded by the engine before them still replay, and runs of the current engine replay too.

`interview_before_truth_adaptive` / `_structured` were recorded once with the engine of commit 743b3e1 (before
the change) running the two scenarios below; each walks through every changed path: an interviewer-only entry
(NoteTaker/Researcher ran on it then), the "Japan" sentence (it ended the interview then), an answer to the new
section's question within the late grace (late to the previous section then), and `candidate_done` (the end time
stayed then). Do not re-record them with the current code: their point is that they came from the earlier one.
"""

from __future__ import annotations

import pytest

from tests.conftest import replay, replay_recorded
from tests.workflows.interview.helpers import (
    adaptive_plan,
    assessment,
    control,
    say,
    start,
    structured_sections,
)

JAPAN = "Thank you for sharing that. Let us turn to your years in Japan."


async def adaptive_scenario(env, queue):
    h = await start(env, queue, plan=adaptive_plan(), duration_seconds=300, write_essay=False)
    await say(h, "interviewer", "Welcome, and thanks for joining.", entry_id="t-1")
    await env.sleep(12)                                   # a cycle with only the interviewer's words
    await say(h, "interviewee", "i carried the pager for six years.", entry_id="t-2")
    await env.sleep(12)
    await say(h, "interviewer", JAPAN, entry_id="t-3")
    await env.sleep(12)
    if (await h.describe()).status.name == "RUNNING":
        await say(h, "interviewee", "tokyo was where i learned to sleep through pages.", entry_id="t-4")
        await control(h, "end")
    await h.result()
    return h


async def structured_scenario(env, queue):
    h = await start(env, queue, mode="structured", sections=structured_sections(), write_essay=False)
    await say(h, "candidate", "A token bucket per API key in a shared store.", entry_id="u-1")
    await env.sleep(302)                                  # design ran out of time; coding's question is on screen
    await say(h, "interviewer", "Implement a token bucket.", entry_id="u-2")
    await say(h, "candidate", "Refill by elapsed time up to the capacity, take one token per request.",
              entry_id="u-3")
    await env.sleep(10)
    await control(h, "candidate_done")
    await env.sleep(10)
    await control(h, "end")
    await h.result()
    return h


async def test_adaptive_truth_paths_replay(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await adaptive_scenario(ts_env, queue)
        await replay(h)


async def test_structured_truth_paths_replay(ts_env, worker, offline):
    offline.script("interview_orchestrator", assessment(metrics="partially_covered"), assessment(),
                   assessment(correctness="covered"), assessment())
    async with worker(ts_env.client) as queue:
        h = await structured_scenario(ts_env, queue)
        await replay(h)


@pytest.mark.parametrize("name", ["interview_before_truth_adaptive", "interview_before_truth_structured"])
async def test_histories_recorded_before_the_change_still_replay(name):
    await replay_recorded(name)
