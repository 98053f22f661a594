"""Crash drills: real `colloquy worker` processes on a real dev server; one is SIGKILLed mid-activity while a
second one stands by, and the run must complete within the recovery bound (docs/platform.md).

The activity to interrupt is made to hang on the first worker only (its offline script answers the agent's
first call with the double's `hang` fault: the call never returns, while the activity keeps heartbeating, as an
activity waiting on a slow model does). The standby worker has no such script: its retry answers normally.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType, PendingActivityState
from temporalio.client import Client, WorkflowHandle

from core.pollers import pollers
from tests.e2e.interview.helpers import WorkerProcess, worker_env

#: A killed worker's activity must be running again, elsewhere, and the run complete within this bound.
RECOVERY_BOUND_S = 30.0


async def wait_for(predicate: Any, timeout: float, what: str, poll_s: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = await predicate()
        if value:
            return value
        await asyncio.sleep(poll_s)
    raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")


async def started_activity(handle: WorkflowHandle, activity_type: str) -> Any:
    desc = await handle.describe()
    for pa in desc.raw_description.pending_activities:
        if pa.activity_type.name == activity_type and pa.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED:
            return pa
    return None


async def completed_activities(handle: WorkflowHandle, activity_type: str) -> int:
    """How many activities of this type completed (a duplicated piece of work would count twice)."""
    history = await handle.fetch_history()
    scheduled: dict[int, str] = {}
    done = 0
    for e in history.events:
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled[e.event_id] = e.activity_task_scheduled_event_attributes.activity_type.name
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            if scheduled.get(e.activity_task_completed_event_attributes.scheduled_event_id) == activity_type:
                done += 1
    return done


@dataclass
class Drill:
    """Worker A (hangs on `agent`) and standby worker B on one queue; `kill_a_mid_activity()` measures recovery."""

    client: Client
    queue: str
    agent: str
    tmp: Path
    env: dict[str, str]
    a: WorkerProcess | None = None
    b: WorkerProcess | None = None
    killed_at: float = 0.0

    @property
    def address(self) -> str:
        return self.client.service_client.config.target_host

    async def __aenter__(self) -> Drill:
        env_a = worker_env(self.tmp / "artifacts", {self.agent: [{"fault": "hang"}]}, self.tmp)
        env_a.update(self.env)
        self.a = WorkerProcess(self.address, self.queue, env_a, self.tmp / "worker-a.log")
        await self.a.start()
        await wait_for(lambda: pollers(self.client, self.queue + "-llm", "activity"), 30, "worker A polling")
        return self

    async def kill_a_mid_activity(self, handle: WorkflowHandle, activity_type: str | None = None) -> None:
        """Wait until A runs the activity, start standby B, then SIGKILL A (no graceful anything)."""
        activity_type = activity_type or self.agent
        await wait_for(lambda: started_activity(handle, activity_type), 60, f"{activity_type} started on worker A")
        env_b = worker_env(self.tmp / "artifacts")
        env_b.update(self.env)
        self.b = WorkerProcess(self.address, self.queue, env_b, self.tmp / "worker-b.log")
        await self.b.start()
        pid_b = str(self.b.proc.pid) if self.b.proc else "?"

        async def b_polls() -> bool:
            return any(p.identity.startswith(f"{pid_b}@") for p in await pollers(self.client, self.queue + "-llm",
                                                                                   "activity"))
        await wait_for(b_polls, 30, "standby worker B polling")
        await asyncio.sleep(1.0)  # A keeps heartbeating: the activity is alive and well until the kill
        assert await started_activity(handle, activity_type), "the activity finished before the kill"
        assert self.a is not None
        self.killed_at = time.monotonic()
        await self.a.kill()

    async def result_within_bound(self, handle: WorkflowHandle, bound: float = RECOVERY_BOUND_S) -> tuple[Any, float]:
        result = await asyncio.wait_for(handle.result(), bound * 3)
        recovery = time.monotonic() - self.killed_at
        assert recovery < bound, f"the run took {recovery:.1f}s after the kill (bound {bound:g}s)"
        return result, recovery

    async def __aexit__(self, *exc: object) -> None:
        for wp in (self.b, self.a):
            if wp is not None:
                await wp.stop()
