"""Is a worker there? Every command that waits on a worker asks the server first (DescribeTaskQueue, see
core/pollers.py) and says so within 3 s, with the command that starts one — instead of spinning, or failing
half a minute later on a query nobody answers.

    await require_worker(client, task_queue)                 # before starting or querying a run (exit code 3)
    result = await while_worker(client, task_queue, waiting) # while waiting on it: stops if the workers vanish
    await warn_if_no_worker(client, task_queue)              # `--no-wait` starts: the run waits, say so

Queries need a worker too, even on a closed workflow (the worker replays the history to answer them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from temporalio.client import Client, WorkflowExecutionDescription
from temporalio.service import RPCError, RPCStatusCode

from client.errors import CliError, ExitCode, NoWorkerError
from core.pollers import LLM_QUEUE_SUFFIX, check_queues, no_worker_hint

T = TypeVar("T")

CHECK_SECONDS = 3.0      # the whole check (DescribeTaskQueue on each queue, in parallel) answers within this
RECHECK_SECONDS = 0.5    # a queue found without pollers is looked at again this often, within CHECK_SECONDS
WATCH_EVERY_SECONDS = 5.0  # while waiting: how often the workflow queue's pollers are looked at again


async def describe_run(client: Client, workflow_id: str, workflow_type: str | None = None
                       ) -> WorkflowExecutionDescription:
    """Describe the latest run of `workflow_id`: one clear error (exit code 4) when there is none, or when it is
    another kind of workflow. Its `task_queue` is where the worker that answers its queries polls."""
    try:
        desc = await client.get_workflow_handle(workflow_id).describe()
    except RPCError as exc:
        if exc.status != RPCStatusCode.NOT_FOUND:
            raise
        raise CliError(f"no workflow with id {workflow_id!r} in namespace {client.namespace}",
                       ExitCode.REFUSED) from None
    if workflow_type is not None and desc.workflow_type != workflow_type:
        raise CliError(f"{workflow_id!r} is a {desc.workflow_type}, not a {workflow_type}", ExitCode.USAGE)
    return desc


async def missing_queues(client: Client, task_queue: str, agents: bool = True) -> list[str]:
    """The queues (of `task_queue` and, with `agents`, `<task_queue>-llm`) no worker polls, within CHECK_SECONDS.

    A worker that started a moment ago may not be listed yet (its first polls reach the server within a moment),
    so a missing queue is looked at again, every RECHECK_SECONDS, until the budget is spent."""
    role = "all" if agents else "workflows"
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CHECK_SECONDS
    missing: list[str] | None = None
    while True:
        try:
            checks = await asyncio.wait_for(check_queues(client, task_queue, role),
                                            timeout=max(0.1, deadline - loop.time()))
        except RPCError as exc:
            if exc.status == RPCStatusCode.UNIMPLEMENTED:  # a server without DescribeTaskQueue (the time-skipping
                return []                                  # test server): it cannot tell, so nothing is missing
            raise
        except TimeoutError:
            if missing is not None:
                return missing
            raise CliError(f"the Temporal server did not say within {CHECK_SECONDS:g} s who polls task queue "
                           f"{task_queue!r}", ExitCode.USAGE) from None
        missing = list(dict.fromkeys(c.queue for c in checks if not c.ok))
        if not missing or loop.time() + 2 * RECHECK_SECONDS >= deadline:  # answer with a margin to spare
            return missing
        await asyncio.sleep(RECHECK_SECONDS)


def describe_missing(task_queue: str, missing: list[str]) -> str:
    if task_queue in missing:
        return no_worker_hint(task_queue)
    llm = task_queue + LLM_QUEUE_SUFFIX
    flag = "" if task_queue == "colloquy" else f" --task-queue {task_queue}"
    return (f"no worker is polling task queue {llm!r} (the agents' LLM calls): start one with "
            f"`colloquy worker --role llm{flag}` (or `--role all`), pointed at the same server and namespace")


async def require_worker(client: Client, task_queue: str, agents: bool = True) -> None:
    """Raise NoWorkerError (exit code 3) when no worker polls what a run on `task_queue` needs."""
    missing = await missing_queues(client, task_queue, agents)
    if missing:
        raise NoWorkerError(describe_missing(task_queue, missing))


async def warn_if_no_worker(client: Client, task_queue: str, agents: bool = True) -> bool:
    """For commands that start a run and return: say on stderr that it waits for a worker. True if one polls."""
    from client.common import err_console

    missing = await missing_queues(client, task_queue, agents)
    if missing:
        err_console.print(f"[yellow]warning:[/yellow] {describe_missing(task_queue, missing)}; the run waits "
                          "until one does", soft_wrap=True, highlight=False)
    return not missing


async def while_worker(client: Client, task_queue: str, waiting: Awaitable[T], resume_hint: str = "",
                       every: float = WATCH_EVERY_SECONDS) -> T:
    """Await `waiting` (a workflow result, a follow loop) while a worker polls `task_queue`'s workflow tasks.

    A worker that stopped stays listed for up to core.pollers.FRESH_SECONDS; after that the wait stops with
    NoWorkerError (the run itself stays in Temporal: `resume_hint` says how to pick it up again)."""
    task = asyncio.ensure_future(waiting)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=every)
            if done:
                return task.result()
            try:
                checks = await asyncio.wait_for(check_queues(client, task_queue, "workflows"), CHECK_SECONDS)
            except Exception:  # noqa: BLE001 — a slow or failing describe is no proof the worker is gone
                continue
            if not all(c.ok for c in checks if c.kind == "workflow"):
                raise NoWorkerError(no_worker_hint(task_queue) + (f"; then {resume_hint}" if resume_hint else ""))
    finally:
        if not task.done():
            task.cancel()
