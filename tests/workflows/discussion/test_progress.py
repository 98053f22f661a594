"""The `progress` query and search attributes while a discussion runs (what the CLI and Web UI show)."""

from __future__ import annotations

import asyncio

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import CancelledError

from models.discussion.workflow import DiscussionProgress
from tests.workflows.discussion.helpers import ideas, scores, search_attributes, start, uniform
from workflows.discussion.workflow import DiscussionWorkflow


async def _query_until(handle, predicate, timeout: float = 15.0) -> DiscussionProgress:
    """Ask the workflow (a query, not a guess) until its progress satisfies `predicate`."""
    async with asyncio.timeout(timeout):
        while True:
            progress = await handle.query(DiscussionWorkflow.progress)
            if predicate(progress):
                return progress
            await asyncio.sleep(0.05)


async def test_progress_shows_phase_round_ideas_and_usage_mid_run(ts_env, worker, offline):
    offline.script("discussion_kickoff", "Kickoff.")
    offline.script("discussion_ideate", ideas("Compost hub", "Surplus app", "School kitchens"))
    for agent in ("discussion_research", "discussion_critique", "discussion_implement", "discussion_synthesize"):
        offline.script(agent, f"{agent} text")
    offline.script("discussion_score", scores(uniform("I1", 8), uniform("I2", 7), uniform("I3", 6)))
    offline.script("discussion_select", {"explanation": "I1.", "preferred_idea_id": "I1"})
    offline.set_latency(1.0, agent="discussion_score")  # the moderator takes a moment: look while it works
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue, topic="Food waste")
        progress = await _query_until(handle, lambda p: p.phase == "validation")
        attrs = await search_attributes(handle)
        desc = await handle.describe()
        await handle.result()
    assert progress.status == "running" and progress.round == 1 and progress.max_rounds == 1
    assert progress.current_step == "scoring (moderator)"
    assert [(i.id, i.overall) for i in progress.ideas] == [("I1", None), ("I2", None), ("I3", None)]
    assert progress.messages == 6 and progress.usage.calls == 6 and progress.selected_idea_id is None
    assert attrs["ColloquyPhase"] == "validation" and attrs["ColloquyStatus"] == "running"
    assert attrs["ColloquyPipeline"] == "discussion" and attrs["ColloquyTopic"] == "Food waste"
    assert desc.id.startswith("discussion-")


async def test_cancelling_stops_the_discussion_instead_of_skipping_the_step(ts_env, worker, offline):
    offline.script("discussion_kickoff", "Kickoff.")
    offline.script("discussion_research", "Facts.")
    offline.script("discussion_ideate", ideas("Compost hub", "Surplus app", "School kitchens"))
    offline.set_latency(1.5, agent="discussion_critique")  # the critic is slow: cancel while it works
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue)
        await _query_until(handle, lambda p: p.current_step == "round 1 · critique (critic)")
        await handle.cancel()
        with pytest.raises(WorkflowFailureError) as info:
            await handle.result()
        progress = await handle.query(DiscussionWorkflow.progress)
        attrs = await search_attributes(handle)
    assert isinstance(info.value.cause, CancelledError)
    assert progress.status == "cancelled" and progress.events == []  # not logged as a skipped agent
    assert offline.calls("discussion_implement") == [] and offline.calls("discussion_synthesize") == []
    assert attrs["ColloquyStatus"] == "cancelled"
