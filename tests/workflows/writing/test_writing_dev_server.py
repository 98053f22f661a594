"""Real clock, real dev server: a gated run waits for a human, is found by its search attributes, approved."""

from __future__ import annotations

import pytest

from core import search_attributes as sa
from models.writing.workflow import ApprovalInput
from tests.workflows.writing.conftest import config, start
from workflows.writing.workflow import WritingWorkflow

pytestmark = pytest.mark.dev_server


async def test_gated_run_on_the_dev_server_shows_its_state_in_search_attributes(dev_env, worker, offline):
    offline.script("writing_synthesize", "DEV SERVER POST.")
    async with worker(dev_env.client) as queue:
        handle = await start(dev_env, queue, ["m-a", "m-b"], config("gated"), story_name="post_dev")
        pending = await handle.execute_update(WritingWorkflow.await_approval_request)
        assert "DEV SERVER POST." in pending.post_text
        attrs = (await handle.describe()).typed_search_attributes
        assert attrs.get(sa.PIPELINE) == "writing" and attrs.get(sa.TOPIC) == "post_dev"
        assert attrs.get(sa.STATUS) == "waiting_user" and attrs.get(sa.PHASE) == "human-approval"
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        result = await handle.result()
        attrs = (await handle.describe()).typed_search_attributes
    assert result.status == "complete"
    assert attrs.get(sa.STATUS) == "completed" and attrs.get(sa.PHASE) == "done"
