"""Waiting for workflow state through queries (never sleeps): the time-skipping server answers queries as soon
as the workflow has processed its tasks; each poll yields to the event loop so workers make progress."""

from __future__ import annotations

import asyncio

from models.query.workflow import PendingClarification
from workflows.query.workflow import QueryWorkflow


async def until_pending(handle, attempts: int = 2000) -> PendingClarification:  # noqa: ANN001
    for _ in range(attempts):
        pending = await handle.query(QueryWorkflow.pending_clarification)
        if pending is not None:
            return pending
        await asyncio.sleep(0)
    raise AssertionError("the workflow never asked a clarifying question")


async def until_state(handle, state: str, attempts: int = 2000):  # noqa: ANN001, ANN201

    for _ in range(attempts):
        view = await handle.query(QueryWorkflow.session_state)
        if view.state == state:
            return view
        await asyncio.sleep(0)
    raise AssertionError(f"the workflow never reached {state}")
