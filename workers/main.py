"""`colloquy worker`: one entry point that runs Colloquy's workers.

Roles:
  all        — workflows + every activity; polls `<queue>` and `<queue>-llm` (the default).
  workflows  — workflows + non-LLM activities (storage, artifacts, history) on `<queue>`.
  llm        — agent (LLM) activities only, on `<queue>-llm`: scale these where the models are.
  audio      — transcription and speech only, on `<queue>-audio` (the voice room); `all` polls it too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import timedelta
from typing import Literal

import structlog
from temporalio.client import Client
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.worker import PollerBehaviorSimpleMaximum, Worker

from core.settings import WorkerTuning
from workers import registry
from workers.collector import tune_collector

Role = Literal["all", "workflows", "llm", "audio"]
log = structlog.get_logger("colloquy.worker")


# On SIGTERM, in-flight activities (an LLM call) get this long to finish before they are cancelled.
GRACEFUL_SHUTDOWN = timedelta(seconds=30)


def _interceptors(client: Client) -> list[TracingInterceptor]:
    """Tracing on every worker that exports spans, exactly once: a client made by `core.temporal.connect` already
    carries a TracingInterceptor, which Temporal applies to its workers too (adding another would double every
    span); with no exporter there is none (core/telemetry.py)."""
    from core.telemetry import tracing_interceptors

    if any(isinstance(i, TracingInterceptor) for i in client.config().get("interceptors", [])):
        return []
    return tracing_interceptors()


def _tuned(tuning: WorkerTuning, polls_workflows: bool) -> dict[str, object]:
    """Worker keyword arguments for one Worker of this process (docs/performance.md)."""
    kwargs: dict[str, object] = {
        "max_concurrent_activities": tuning.max_concurrent_activities,
        "activity_task_poller_behavior": PollerBehaviorSimpleMaximum(maximum=tuning.activity_task_pollers),
    }
    if polls_workflows:
        kwargs.update(
            max_concurrent_workflow_tasks=tuning.max_concurrent_workflow_tasks,
            max_cached_workflows=tuning.max_cached_workflows,
            workflow_task_poller_behavior=PollerBehaviorSimpleMaximum(maximum=tuning.workflow_task_pollers),
            sticky_queue_schedule_to_start_timeout=timedelta(seconds=tuning.sticky_queue_timeout_s),
        )
    return kwargs


def llm_tuning(tuning: WorkerTuning) -> tuple[WorkerTuning, str]:
    """The `<queue>-llm` Worker's tuning: its activity slots follow the models' real concurrency
    (activities/llm/slots.py), so a call beyond what the provider serves waits in the task queue, before its
    attempt (and its start-to-close clock) starts. Returns (tuning, a line saying what bounds the slots)."""
    from activities.llm.config import ConfigError, current_config
    from activities.llm.slots import worker_slots

    try:
        bound = worker_slots(current_config())
    except ConfigError as exc:  # every agent call reports it (non-retryable); the slots stay as tuned
        return tuning, f"LLM slots {tuning.max_concurrent_activities} (configuration error: {exc})"
    if bound.slots is None or bound.slots >= tuning.max_concurrent_activities:
        return tuning, f"LLM slots {tuning.max_concurrent_activities} ({bound.why})"
    return (replace(tuning, max_concurrent_activities=bound.slots),
            f"LLM slots {bound.slots}: {bound.why}")


def build_workers(client: Client, task_queue: str = "colloquy", role: Role = "all",
                  max_concurrent_activities: int | None = None,
                  graceful_shutdown_timeout: timedelta = GRACEFUL_SHUTDOWN,
                  tuning: WorkerTuning | None = None) -> list[Worker]:
    """The Worker objects for a role (not yet running). Raises ConfigError when the LLM config names an agent
    that does not exist.

    `tuning` defaults to `WorkerTuning.from_env()` (COLLOQUY_WORKER_* variables); `max_concurrent_activities`,
    when given, overrides its activity slots."""
    if role not in ("all", "workflows", "llm", "audio"):
        raise ValueError(f"unknown worker role {role!r}: use all, workflows, llm or audio")
    registry.check_agent_config()
    tuning = tuning or WorkerTuning.from_env()
    if max_concurrent_activities is not None:
        tuning = replace(tuning, max_concurrent_activities=max_concurrent_activities)
    interceptors = _interceptors(client)
    workers: list[Worker] = []
    if role in ("all", "workflows"):
        from workers.sandbox import sandbox_runner
        from workflows.one_input import OneInputInterceptor

        workers.append(Worker(
            client, task_queue=task_queue, workflows=registry.workflows(),
            workflow_runner=sandbox_runner(client.data_converter),
            activities=registry.other_activities(), interceptors=[*interceptors, OneInputInterceptor()],
            graceful_shutdown_timeout=graceful_shutdown_timeout,
            **_tuned(tuning, polls_workflows=True),  # type: ignore[arg-type]
        ))
    if role in ("all", "llm"):
        agents_tuning, why = llm_tuning(tuning)
        log.info("worker.llm_slots", slots=agents_tuning.max_concurrent_activities, why=why)
        workers.append(Worker(
            client, task_queue=f"{task_queue}-llm", activities=registry.llm_worker_activities(),
            interceptors=interceptors, graceful_shutdown_timeout=graceful_shutdown_timeout,
            **_tuned(agents_tuning, polls_workflows=False),  # type: ignore[arg-type]
        ))
    if role in ("all", "audio"):
        from models.voice.workflow import audio_queue

        # transcription is CPU-bound: COLLOQUY_AUDIO_CONCURRENCY clips at a time (default 2), not the LLM slots
        audio_slots = int(os.environ.get("COLLOQUY_AUDIO_CONCURRENCY", "2") or 2)
        workers.append(Worker(
            client, task_queue=audio_queue(task_queue), activities=registry.audio_activities(),
            interceptors=interceptors, graceful_shutdown_timeout=graceful_shutdown_timeout,
            **{**_tuned(tuning, polls_workflows=False), "max_concurrent_activities": max(1, audio_slots)},  # type: ignore[arg-type]
        ))
    return workers


async def run_workers(workers: Sequence[Worker], stop: asyncio.Event | None = None,
                      tune_gc: bool | None = None) -> bool:
    """Run until `stop` is set (SIGTERM/SIGINT set it), then shut down gracefully. First the process's garbage
    collector is set for a long run (workers/collector.py; `tune_gc` None: as COLLOQUY_WORKER_GC_TUNED says).

    Returns True on a requested stop, False when a worker exited by itself (e.g. it lost the server)."""
    stop = stop or asyncio.Event()
    frozen = tune_collector(tune_gc)
    if frozen:
        log.info("worker.gc_tuned", frozen_objects=frozen)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    tasks = [asyncio.create_task(w.run()) for w in workers]
    stopper = asyncio.create_task(stop.wait())
    done, _ = await asyncio.wait([*tasks, stopper], return_when=asyncio.FIRST_COMPLETED)
    for task in done:
        if task is not stopper and task.exception():
            log.error("worker.crashed", error=str(task.exception()))
    requested = stopper in done
    log.info("worker.shutdown", reason="signal" if requested else "worker exited")
    await asyncio.gather(*(w.shutdown() for w in workers), return_exceptions=True)
    stopper.cancel()
    return requested


@asynccontextmanager
async def running_workers(client: Client, task_queue: str | None = None, role: Role = "all",
                          graceful_shutdown_timeout: timedelta | None = None,
                          tuning: WorkerTuning | None = None) -> AsyncIterator[str]:
    """Run workers in this process for the duration of a block; yields the task queue (tests, demo, benches).

    Without a queue name a fresh `test-xxxxxxxx` queue is used, so concurrent users never share pollers.
    """
    queue = task_queue or f"test-{uuid.uuid4().hex[:8]}"
    workers = build_workers(client, queue, role,
                            graceful_shutdown_timeout=graceful_shutdown_timeout or GRACEFUL_SHUTDOWN, tuning=tuning)
    tasks = [asyncio.create_task(w.run()) for w in workers]
    try:
        yield queue
    finally:
        for w in workers:
            with contextlib.suppress(Exception):
                await w.shutdown()
        for t in tasks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await t
