"""How many calls a model provider serves at once, and the LLM worker slots that follow it.

A provider that serves one call at a time (the in-process `local` model; a llama.cpp server; Ollama with
OLLAMA_NUM_PARALLEL=1) must get one call at a time. Otherwise every call waits for the one model *inside* its
activity attempt, its start-to-close clock running, and parallel agents (NoteTaker ∥ Researcher, a model check,
two interviews) time out while queueing, not while the model works.

Two layers, both from `llm.providers.<name>.concurrency` (`COLLOQUY_PROVIDER_CONCURRENCY` for the default provider):

- **The LLM worker's slots** (`worker_slots`): when every provider an agent can resolve to (default, fallback and
  the providers agents name) is bounded, the `<queue>-llm` Worker takes at most the sum of their concurrencies.
  A call beyond it waits in the Temporal task queue *before its attempt starts* (the Web UI shows it as a
  pending activity, state Scheduled), so queueing never eats an attempt's timeout.
- **A per-provider limiter in the process** (`provider_slot`): where a bounded provider is mixed with an unbounded
  one (a local model for some agents, a hosted API for the rest), the worker cannot bound its slots; the limiter
  still never sends a bounded provider more calls than it serves. That wait happens inside the attempt (the
  agent keeps heartbeating): run such agents on their own LLM worker to keep it out of their timeouts.

Both are per worker process: N LLM worker processes in front of one serial server send it N calls at once —
set `concurrency` to what the server serves divided by the processes, or give each process its own server.
Each call's usage says how long it queued (`LLMUsage.queued_ms`: task queue + limiter), apart from the model's
own latency.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from temporalio import activity

from activities.llm.config import LLMConfig, provider_for


@dataclass(frozen=True)
class WorkerSlots:
    """The LLM worker's activity slots as the config bounds them (None: unbounded) and why, in words."""

    slots: int | None
    why: str


def provider_limit(cfg: LLMConfig, provider: str) -> int | None:
    """How many calls `provider` serves at once (None: no bound)."""
    prov = cfg.providers.get(provider)
    return prov.concurrency if prov is not None else None


def providers_in_use(cfg: LLMConfig) -> list[str]:
    """Every provider an agent can resolve to: the default, the fallback, the providers agents (or their models)
    name."""
    names = [cfg.default_provider]
    if cfg.fallback_provider:
        names.append(cfg.fallback_provider)
    for agent in cfg.agents.values():
        if agent.provider:
            names.append(agent.provider)
        elif agent.model and "/" in agent.model:
            names.append(provider_for(agent.model, cfg))
    return sorted(set(names))


def worker_slots(cfg: LLMConfig) -> WorkerSlots:
    """The `<queue>-llm` Worker's slots: the sum of the providers' concurrencies when every provider in use is
    bounded, else None (the worker tuning decides)."""
    names = providers_in_use(cfg)
    limits = {name: provider_limit(cfg, name) for name in names}
    unbounded = [name for name, limit in limits.items() if limit is None]
    if unbounded:
        bounded = [f"{n} {limits[n]}" for n in names if limits[n] is not None]
        why = f"{', '.join(unbounded)} serve{'s' if len(unbounded) == 1 else ''} calls in parallel"
        if bounded:
            why += f"; bounded in the worker only: {', '.join(bounded)}"
        return WorkerSlots(None, why)
    total = sum(limit for limit in limits.values() if limit is not None)
    served = ", ".join(f"{n} serves {limits[n]} call{'s' if limits[n] != 1 else ''} at once" for n in names)
    return WorkerSlots(total, f"{served}: more calls wait in the task queue before their attempt starts")


# One limiter per (event loop, provider, limit): an asyncio.Semaphore belongs to one loop (tests run many).
_LIMITERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, int], asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary())


def _limiter(provider: str, limit: int) -> asyncio.Semaphore:
    per_loop = _LIMITERS.setdefault(asyncio.get_running_loop(), {})
    return per_loop.setdefault((provider, limit), asyncio.Semaphore(limit))


@asynccontextmanager
async def provider_slot(provider: str, limit: int | None) -> AsyncIterator[float]:
    """Hold one of `provider`'s `limit` call slots in this process for the block (no-op when unbounded); yields
    the milliseconds waited for it."""
    if limit is None:
        yield 0.0
        return
    started = time.perf_counter()
    async with _limiter(provider, limit):
        yield round((time.perf_counter() - started) * 1000, 2)


def attempt_deadline() -> float | None:
    """Monotonic time by which this activity attempt must be done (90% of its start-to-close), if any:
    the gateway never waits on a model past the point where Temporal would time the attempt out."""
    try:
        info = activity.info()
    except RuntimeError:
        return None
    if not info.start_to_close_timeout:
        return None
    return time.monotonic() + info.start_to_close_timeout.total_seconds() * 0.9


def time_left(deadline: float | None, cap: float) -> float:
    return cap if deadline is None else min(cap, deadline - time.monotonic())


def attempt_number() -> int:
    try:
        return activity.info().attempt
    except RuntimeError:
        return 1


def task_queue_wait_ms() -> float:
    """How long this activity attempt waited in the task queue for a worker slot (0 outside an activity)."""
    try:
        info = activity.info()
    except RuntimeError:
        return 0.0
    scheduled, started = info.current_attempt_scheduled_time, info.started_time
    if scheduled is None or started is None:
        return 0.0
    return max(0.0, round((started - scheduled).total_seconds() * 1000, 2))
