"""The per-interview update gate of `colloquy serve` (client/web/interview/updates.py).

Invariants, on generated bursts: at most `limit` calls in flight per interview; every call runs exactly once and
its caller gets its own result; calls start in arrival order; nothing is kept once a burst is over; the server's
RESOURCE_EXHAUSTED is waited out, and only after the bound does it become `Busy` (HTTP 429)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from temporalio.service import RPCError, RPCStatusCode

from client.web.interview.updates import PER_INTERVIEW_ENV, Busy, Gates, per_interview


def _exhausted() -> RPCError:
    return RPCError("limit on number of concurrent in-flight updates has been reached (10)",
                    RPCStatusCode.RESOURCE_EXHAUSTED, b"")


@settings(max_examples=60, deadline=None)
@given(limit=st.integers(1, 6),
       burst=st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 3)), min_size=1, max_size=60))
def test_a_burst_runs_each_call_once_in_order_under_the_limit(limit: int, burst: list[tuple[str, int]]):
    async def scenario() -> None:
        gates = Gates(limit=limit)
        in_flight: dict[str, int] = {}
        peak: dict[str, int] = {}
        started: dict[str, list[int]] = {}

        async def call(wid: str, i: int, ticks: int) -> int:
            started.setdefault(wid, []).append(i)
            in_flight[wid] = in_flight.get(wid, 0) + 1
            peak[wid] = max(peak.get(wid, 0), in_flight[wid])
            for _ in range(ticks):
                await asyncio.sleep(0)
            in_flight[wid] -= 1
            return i

        def caller(wid: str, i: int, ticks: int) -> Callable[[], Awaitable[int]]:
            return lambda: call(wid, i, ticks)

        results = await asyncio.gather(*(gates.run(wid, caller(wid, i, t)) for i, (wid, t) in enumerate(burst)))
        assert results == list(range(len(burst)))                          # each caller, its own result
        assert all(p <= limit for p in peak.values())                      # never over the limit
        for wid, order in started.items():                                 # arrival order, each once
            assert order == [i for i, (w, _) in enumerate(burst) if w == wid]
        assert gates._gates == {}                                          # nothing kept afterwards

    asyncio.run(scenario())


async def test_the_servers_limit_is_waited_out_then_the_call_goes_through():
    gates, tries = Gates(limit=2), []

    async def call() -> str:
        tries.append(1)
        if len(tries) < 3:
            raise _exhausted()
        return "accepted"

    assert await gates.run("wf", call, busy_wait_s=10) == "accepted"
    assert len(tries) == 3


async def test_past_the_bound_the_answer_is_busy_with_the_true_reason():
    gates = Gates(limit=1)

    async def call() -> str:
        raise _exhausted()

    with pytest.raises(Busy, match="more answers at once than the Temporal server holds"):
        await gates.run("wf", call, busy_wait_s=0.5)
    assert gates._gates == {}


async def test_other_errors_are_not_retried():
    gates, tries = Gates(limit=1), []

    async def call() -> str:
        tries.append(1)
        raise RPCError("not found", RPCStatusCode.NOT_FOUND, b"")

    with pytest.raises(RPCError):
        await gates.run("wf", call)
    assert tries == [1]


def test_the_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(PER_INTERVIEW_ENV, "3")
    assert per_interview() == 3 and Gates().limit == 3
    for bad in ("0", "-1", "many"):
        monkeypatch.setenv(PER_INTERVIEW_ENV, bad)
        with pytest.raises(ValueError, match=PER_INTERVIEW_ENV):
            per_interview()
