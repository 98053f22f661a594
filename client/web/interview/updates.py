"""One interview's updates from this server, queued under the Temporal server's limit instead of refused.

The Temporal server holds at most a few updates in flight per workflow (its dynamic config
`history.maxInFlightUpdates`, 10 by default) and answers RESOURCE_EXHAUSTED beyond; 300 answers posted at once to
one room used to come back as 237 refusals after the SDK's own retries (~11 s). So each interview gets a gate: at
most `COLLOQUY_SERVE_UPDATES_PER_INTERVIEW` (default 4) of this server's updates to it in flight, the others wait
their turn in arrival order. With replicas, keep replicas x that value under the server's limit (2 x 4 < 10); what
still meets the limit waits and is tried again for up to `BUSY_WAIT_SECONDS`, and only then is refused, with the
true reason (`Busy`: HTTP 429 with Retry-After), never "the server is not answering".

A gate exists only while someone uses it (no state kept per interview otherwise); the queue is bounded
(`MAX_WAITING`): beyond it an answer is refused at once as `Busy`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from temporalio.service import RPCError, RPCStatusCode

PER_INTERVIEW_ENV = "COLLOQUY_SERVE_UPDATES_PER_INTERVIEW"
DEFAULT_PER_INTERVIEW = 4
BUSY_WAIT_SECONDS = 30.0      # how long an update is tried again while the server says the interview is busy
MAX_WAITING = 2000            # updates queued for one interview on this server; more are refused at once
T = TypeVar("T")


class Busy(Exception):
    """The interview is taking more updates than it can hold: try again in a moment (HTTP 429)."""

    retry_after_s = 2


def per_interview() -> int:
    raw = os.environ.get(PER_INTERVIEW_ENV, "")
    try:
        value = int(raw) if raw.strip() else DEFAULT_PER_INTERVIEW
    except ValueError:
        raise ValueError(f"{PER_INTERVIEW_ENV}={raw!r}: expected a whole number from 1") from None
    if value < 1:
        raise ValueError(f"{PER_INTERVIEW_ENV}={raw!r}: expected a whole number from 1")
    return value


@dataclass
class _Gate:
    slots: asyncio.Semaphore
    users: int = 0


@dataclass
class Gates:
    """Per interview: at most `limit` updates in flight from this server; the rest queue (FIFO)."""

    limit: int = field(default_factory=per_interview)
    _gates: dict[str, _Gate] = field(default_factory=dict)

    @contextlib.asynccontextmanager
    async def turn(self, workflow_id: str) -> AsyncIterator[None]:
        gate = self._gates.get(workflow_id)
        if gate is None:
            gate = self._gates[workflow_id] = _Gate(asyncio.Semaphore(self.limit))
        if gate.users >= self.limit + MAX_WAITING:
            raise Busy(f"this interview has {gate.users} answers waiting on this server: try again in a moment")
        gate.users += 1
        try:
            async with gate.slots:
                yield
        finally:
            gate.users -= 1
            if gate.users == 0:
                del self._gates[workflow_id]

    def waiting(self, workflow_id: str) -> int:
        gate = self._gates.get(workflow_id)
        return 0 if gate is None else gate.users

    async def run(self, workflow_id: str, call: Callable[[], Awaitable[T]],
                  busy_wait_s: float = BUSY_WAIT_SECONDS) -> T:
        """`call()` in the interview's turn; while the server answers RESOURCE_EXHAUSTED (another replica's
        updates, the server's limit lower than ours), wait and try again for up to `busy_wait_s`, then `Busy`."""
        async with self.turn(workflow_id):
            loop = asyncio.get_running_loop()
            deadline, delay = loop.time() + busy_wait_s, 0.2
            while True:
                try:
                    return await call()
                except RPCError as exc:
                    if exc.status != RPCStatusCode.RESOURCE_EXHAUSTED:
                        raise
                    if loop.time() + delay > deadline:
                        raise Busy("this interview is taking more answers at once than the Temporal server holds "
                                   f"({exc.message[:120]}): try again in a moment") from None
                await asyncio.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 3.0)
