"""InterviewWorkflow, continued: the session clock. Every deadline (sections, warnings, phases, the end, late
grace, presence) is a workflow timer armed for what the pure `Session` says is due next — never the wall clock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from rules.interview.session import Outcome, Session


class Clock:
    """The clock task and its timers (a mixin: the workflow owns the state and applies each Outcome)."""

    s: Session
    can_requested: bool
    schedule_changed: bool
    clock_fired: bool
    timer_tasks: list[asyncio.Task[None]]
    _apply: Callable[[Outcome], None]

    async def _clock(self) -> None:
        """Server-authoritative time (003 §5): every deadline is a workflow timer, never the wall clock.

        Timers are never cancelled: when the schedule moves earlier a new, earlier timer is started and the old
        one fires later harmlessly (a cancelled timer that had already fired strands the run on the
        time-skipping test server, temporalio/sdk-java#3088; it also keeps the history free of cancellations)."""
        armed: datetime | None = None
        while not self.s.ended and not self.can_requested:
            now = workflow.now()
            self._apply(self.s.on_clock(now))
            if self.s.ended:
                break
            due = self.s.next_due(now)
            if due is not None and (armed is None or due < armed):
                self._start_timer((due - now).total_seconds(), "clock_fired", f"clock: next due {due:%H:%M:%S}")
                armed = due
            self.schedule_changed = False
            await workflow.wait_condition(
                lambda: self.s.ended or self.schedule_changed or self.clock_fired or self.can_requested)
            if self.clock_fired:
                self.clock_fired = False
                armed = None          # re-arm for whatever is due next

    def _start_timer(self, seconds: float, flag: str, summary: str) -> asyncio.Task[None]:
        async def fire() -> None:
            await workflow.sleep(max(0.001, seconds), summary=summary)
            setattr(self, flag, True)

        self.timer_tasks = [t for t in self.timer_tasks if not t.done()]
        task = asyncio.create_task(fire())
        self.timer_tasks.append(task)
        return task
