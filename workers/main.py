"""`colloquy worker`: one entry point that runs Colloquy's workers.

Roles:
  all        — workflows + every activity; polls `<queue>` and `<queue>-llm` (the default).
  workflows  — workflows + non-LLM activities (storage, artifacts, history) on `<queue>`.
  llm        — agent (LLM) activities only, on `<queue>-llm`: scale these where the models are.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Sequence
from typing import Literal

import structlog
from temporalio.client import Client
from temporalio.worker import Worker

from workers import registry

Role = Literal["all", "workflows", "llm"]
log = structlog.get_logger("colloquy.worker")


def build_workers(client: Client, task_queue: str = "colloquy", role: Role = "all",
                  max_concurrent_activities: int = 100) -> list[Worker]:
    """The Worker objects for a role (not yet running)."""
    from core.telemetry import tracing_interceptor

    interceptors = [tracing_interceptor()]
    workers: list[Worker] = []
    if role in ("all", "workflows"):
        workers.append(Worker(
            client, task_queue=task_queue, workflows=registry.workflows(),
            activities=registry.other_activities(), interceptors=interceptors,
            max_concurrent_activities=max_concurrent_activities,
        ))
    if role in ("all", "llm"):
        workers.append(Worker(
            client, task_queue=f"{task_queue}-llm", activities=registry.llm_activities(),
            interceptors=interceptors, max_concurrent_activities=max_concurrent_activities,
        ))
    return workers


async def run_workers(workers: Sequence[Worker], stop: asyncio.Event | None = None) -> None:
    """Run until `stop` is set (SIGTERM/SIGINT set it), then shut down gracefully."""
    stop = stop or asyncio.Event()
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
    log.info("worker.shutdown", reason="signal" if stopper in done else "worker exited")
    await asyncio.gather(*(w.shutdown() for w in workers), return_exceptions=True)
    stopper.cancel()
