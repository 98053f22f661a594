"""InterviewWorkflow, continued: the live loop. It wakes on new entries, controls and phase/section changes, and on
a timer only when a decision can expire (000's 30 s rule); each wake-up runs one cycle (`InterviewWorkflow._cycle`:
NoteTaker ∥ Researcher on new interviewee words, then the Orchestrator). Runs recorded before QUIET_CYCLE keep
their cadence ticker (`_ticking_live_loop`), so their histories replay."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.interview.patches import QUIET_CYCLE
    from models.interview.workflow import InterviewInput
    from rules.interview.session import Session

#: patch id: the live loop arms a timer only when a decision will expire (before: a timer every cycle_seconds)


class LiveLoop:
    """The live loop of InterviewWorkflow (a mixin: the workflow owns the state, the cycle and the timers)."""

    s: Session
    inp: InterviewInput
    wake: bool
    tick: bool
    can_requested: bool
    _cycle: Callable[[], Awaitable[None]]
    _start_timer: Callable[[float, str, str], asyncio.Task[None]]
    _history_long: Callable[[], bool]
    _should_continue_as_new: Callable[[], bool]

    async def _live_loop(self) -> None:
        """Wake on new entries, controls, phase/section changes — and on a timer only when something is due: the
        decision in force expiring under 000's 30 s rule while no question waits for its answer. A silent or
        waiting session arms no timer at all (runs recorded before this ticked every cycle_seconds)."""
        if not workflow.patched(QUIET_CYCLE):
            await self._ticking_live_loop()
            return
        expiry: tuple[datetime, asyncio.Task[None]] | None = None   # the one expiry timer pending, if any
        settle: datetime | None = None     # the answer-in-parts timer armed (it wakes the loop when it fires)
        while not self.s.ended:
            due = self.s.decision_due()
            if expiry is not None and expiry[0] != due:
                expiry[1].cancel()     # a question is now waiting, or a newer decision: this expiry is moot
                expiry = None
            if due is not None and expiry is None:
                expiry = (due, self._start_timer((due - workflow.now()).total_seconds(), "tick",
                                                 f"decision expires at {due:%H:%M:%S} (000: 30 s)"))
            await workflow.wait_condition(partial(self._loop_should_look, self.s.state.status))
            woke, fired = self.wake, self.tick
            self.wake = self.tick = False
            if fired:
                expiry = None
            step = self._next_step()
            if step != "cycle":
                if step == "stop":
                    return
                continue
            if not woke and not fired:
                continue   # a status change (e.g. resumed by a heartbeat): re-arm, nothing to decide yet
            hold = self.s.answer_settles_at(workflow.now())
            if hold is not None:       # the last answer may go on in parts: one decision, after the last one
                if hold != settle:
                    settle = hold
                    self._start_timer((hold - workflow.now()).total_seconds(), "wake",
                                      f"answer in parts: decide at {hold:%H:%M:%S} unless more parts come")
                continue
            await self._cycle()

    def _loop_should_look(self, status: str) -> bool:
        """A long history wakes the loop only when it may continue as new — never in the late grace, where the loop
        would wake, find nothing to do and wake again at once (a spin: the workflow task never completed)."""
        long_history = self._history_long() and self.s.state.grace_until is None
        return self.s.ended or self.wake or self.tick or long_history or self.s.state.status != status

    async def _ticking_live_loop(self) -> None:
        """The live loop of runs recorded before QUIET_CYCLE: a cadence timer every cycle_seconds."""
        self._start_ticker()
        while not self.s.ended:
            await workflow.wait_condition(lambda: self.s.ended or self.wake or self.tick)
            self.wake = False
            if self.tick:
                self.tick = False
                self._start_ticker()          # the cycle's cadence: one timer at a time, never cancelled
            step = self._next_step()
            if step == "stop":
                return
            if step == "cycle":
                await self._cycle()

    def _next_step(self) -> str:
        """After a wake-up: 'stop' (ended, or continue-as-new requested), 'wait' (paused — silence costs nothing —
        or in the late grace after time ran out) or 'cycle'."""
        if self.s.ended:
            return "stop"
        if self._should_continue_as_new():
            self.can_requested = True
            return "stop"
        if self.s.state.status != "IN_PROGRESS" or self.s.runtime() is None:
            return "wait"
        return "cycle"

    def _start_ticker(self) -> None:
        self._start_timer(self.inp.cycle_seconds, "tick", f"live cycle tick ({self.inp.cycle_seconds:g}s)")
