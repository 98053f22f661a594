"""Issue 39: a discussion without a moderator on the offline profile — the Team Leader decides (docs/discussion.md),
and progress never says the Moderator scores anything."""

from __future__ import annotations

from models.discussion.workflow import DiscussionResult
from tests.workflows.discussion.helpers import start
from workflows.discussion.workflow import DiscussionWorkflow


async def test_without_a_moderator_the_offline_leader_selects_and_no_moderator_is_announced(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue, team=["ideation", "leader"])
        result: DiscussionResult = await handle.result()
        progress = await handle.query(DiscussionWorkflow.progress)
    assert result.outcome == "selected", result.outcome_detail
    assert result.selected is not None and "no moderator in the team" in result.outcome_detail
    steps = " | ".join(progress.steps)
    assert "Moderator" not in steps, steps
    assert "no moderator in the team: the Team Leader decides" in steps


async def test_a_role_named_twice_fails_the_start_as_a_model_id_with_markup_does(ts_env, worker, offline):
    import pytest
    from temporalio.client import WorkflowFailureError

    async with worker(ts_env.client) as queue:
        twice = await start(ts_env.client, queue, team=["leader", "ideation", "critic", "critic"])
        with pytest.raises(WorkflowFailureError) as info:
            await twice.result()
        assert "the team names 'critic' more than once" in str(info.value.cause)
        markup = await start(ts_env.client, queue, models={"leader": "<script>alert(1)</script>"})
        with pytest.raises(WorkflowFailureError) as info:
            await markup.result()
        assert "is not a litellm model id" in str(info.value.cause)
    assert offline.calls() == []
