"""Who polls a task queue: the server's own answer (DescribeTaskQueue), used to tell a person at once that no
worker is running, and by the worker's health check (`colloquy health`), which must prove more than "the
process is alive": the server is reachable and a worker on this host polls its queues.

A poller counts while the server saw it within `FRESH_SECONDS` (a worker's long poll lasts up to ~60 s, so an
idle healthy worker is seen at least that often).
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from datetime import UTC, datetime

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client

FRESH_SECONDS = 90.0
LLM_QUEUE_SUFFIX = "-llm"

KINDS = {"workflow": TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, "activity": TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY}


@dataclass(frozen=True)
class Poller:
    identity: str
    seconds_ago: float


@dataclass(frozen=True)
class QueueCheck:
    queue: str
    kind: str  # workflow | activity
    pollers: list[Poller]
    required_host: str | None = None

    @property
    def ok(self) -> bool:
        return bool(self.matching)

    @property
    def matching(self) -> list[Poller]:
        fresh = [p for p in self.pollers if p.seconds_ago <= FRESH_SECONDS]
        if self.required_host is None:
            return fresh
        return [p for p in fresh if p.identity.rsplit("@", 1)[-1] == self.required_host]

    def describe(self) -> str:
        where = f" on host {self.required_host}" if self.required_host else ""
        if self.ok:
            return f"{self.queue} ({self.kind}): {len(self.matching)} poller(s){where}"
        return f"{self.queue} ({self.kind}): no worker{where} is polling"


async def pollers(client: Client, queue: str, kind: str) -> list[Poller]:
    """The pollers the server has seen recently on `queue` for workflow or activity tasks."""
    resp = await client.workflow_service.describe_task_queue(
        DescribeTaskQueueRequest(namespace=client.namespace, task_queue=TaskQueue(name=queue),
                                 task_queue_type=KINDS[kind]),
        timeout=_timeout(),
    )
    now = datetime.now(UTC)
    out = []
    for p in resp.pollers:
        seen = p.last_access_time.ToDatetime(tzinfo=UTC) if p.HasField("last_access_time") else now
        out.append(Poller(identity=p.identity, seconds_ago=max(0.0, (now - seen).total_seconds())))
    return out


def queues_for_role(task_queue: str, role: str) -> list[tuple[str, str]]:
    """(queue, kind) pairs a worker of `role` polls: all | workflows | llm | audio (see `colloquy worker
    --role`; `all` workers poll `<queue>-audio` too, not checked here: the voice room is optional)."""
    llm = task_queue + LLM_QUEUE_SUFFIX
    wanted = {"workflows": [(task_queue, "workflow"), (task_queue, "activity")],
              "llm": [(llm, "activity")], "audio": [(task_queue + "-audio", "activity")]}
    wanted["all"] = wanted["workflows"] + wanted["llm"]
    if role not in wanted:
        raise ValueError(f"unknown role {role!r}: one of all, workflows, llm, audio")
    return wanted[role]


async def check_queues(client: Client, task_queue: str, role: str = "all",
                       this_host: bool = False) -> list[QueueCheck]:
    host = socket.gethostname() if this_host else None
    return [QueueCheck(queue, kind, await pollers(client, queue, kind), host)
            for queue, kind in queues_for_role(task_queue, role)]


def no_worker_hint(task_queue: str) -> str:
    from core.settings import TASK_QUEUE

    flag = "" if task_queue == TASK_QUEUE else f" --task-queue {task_queue}"
    return (f"no worker is polling task queue {task_queue!r}: start one with `colloquy worker{flag}` "
            f"(or `make up`), pointed at the same server and namespace")


def _timeout():  # noqa: ANN202 — a timedelta, imported lazily to keep this module light
    from datetime import timedelta

    return timedelta(seconds=3)
