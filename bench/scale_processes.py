"""The Temporal side of `bench.interview_scale`: an ephemeral dev server (a child of the bench) and N worker
PROCESSES (`colloquy worker --role all`, the offline provider at the simulated latency), or one worker pair in the
bench process (`--in-process`); CPU of each read from /proc (bench/scale_metrics.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bench.interview_common import workers
from bench.scale_cores import CoreLayout, pin
from bench.scale_metrics import children, cmdline, cpu_seconds, rusage_seconds
from core.settings import WORKER_TUNING_ENV, WorkerTuning

if TYPE_CHECKING:
    from core.pollers import QueueCheck

LIVE = ("interview_note_taker", "interview_researcher", "interview_orchestrator")
SLOW_AGENTS = (*LIVE, "interview_planner")  # the agents given the simulated latency (as before, in-process)
ROOT = Path(__file__).resolve().parent.parent

@dataclass
class WorkerProcess:
    index: int
    proc: subprocess.Popen[bytes]
    log: Path
    ready_cpu: float = 0.0
    final_cpu: float | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def cpu_now(self) -> float:
        return cpu_seconds(self.pid)

    async def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> None:
        """Signal the worker and reap it; its CPU comes from the exit rusage (whole life)."""
        if self.final_cpu is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, sig)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, ru = os.wait4(self.pid, os.WNOHANG)
            if pid:
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                self.final_cpu = rusage_seconds(ru)
                return
            if time.monotonic() > deadline and sig != signal.SIGKILL:
                sig = signal.SIGKILL
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, sig)
            await asyncio.sleep(0.05)


def worker_env(latency: float, tuning: WorkerTuning, tree: Path = ROOT) -> dict[str, str]:
    """The worker processes' environment; for another source tree (`--compare-tree`) PYTHONPATH is that tree
    alone, so none of this tree's modules leak into its workers. Bytecode is cached as an installed wheel has it
    (pip compiles at install; deploy/Dockerfile): with PYTHONDONTWRITEBYTECODE (set on some machines) a source
    tree has none, and the sandbox then compiled the workflow's module again for every workflow it started."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update({
        "COLLOQUY_PROFILE": "offline",
        "COLLOQUY_LOG_LEVEL": "ERROR",
        "RUST_LOG": "error",
        "COLLOQUY_OFFLINE_LATENCY_MS": str(int(latency * 1000)),
        "COLLOQUY_OFFLINE_LATENCY_AGENTS": ",".join(SLOW_AGENTS),
        "PYTHONPATH": (os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
                       if tree == ROOT else str(tree)),
    })
    for name, var in WORKER_TUNING_ENV.items():
        env[var] = str(getattr(tuning, name))
    env.pop("COLLOQUY_MAX_CONCURRENT_ACTIVITIES", None)
    return env


def poller_pids(check: QueueCheck) -> set[int]:
    """The process ids of a queue's pollers (the SDK's identity is `<pid>@<host>`)."""
    pids = (p.identity.partition("@")[0] for p in check.pollers)
    return {int(pid) for pid in pids if pid.isdigit()}


async def start_worker_processes(client, address: str, queue: str, count: int, latency: float,  # noqa: ANN001
                                 tuning: WorkerTuning, timeout: float = 120.0, tree: Path = ROOT,
                                 cores: frozenset[int] | None = None,
                                 roles: tuple[str, ...] = ("all",)) -> list[WorkerProcess]:
    """`count` times one `colloquy worker --role R` process per role in `roles` (`all`: one process polling both
    queues; `workflows`, `llm`: the roles split, as deploy/k8s runs them) on `queue`, run from `tree` (cwd and
    PYTHONPATH; this tree by default) and pinned to `cores` (before exec, so every thread they start inherits it);
    returns once the server sees each poll its role's queues."""
    from core.pollers import check_queues

    env = worker_env(latency, tuning, tree)
    preexec = None if cores is None else (lambda: os.sched_setaffinity(0, cores))
    procs = []
    role_of: dict[int, str] = {}
    logs = Path(os.environ.get("COLLOQUY_ARTIFACT_DIR") or "/tmp")
    for i in range(count * len(roles)):
        role = roles[i % len(roles)]
        cmd = [sys.executable, "-m", "client.cli", "worker", "--role", role, "--task-queue", queue,
               "--address", address]
        log = logs / f"worker-{queue}-{i + 1}.log"  # a file, not a pipe nobody drains
        with open(log, "wb") as out:
            proc = subprocess.Popen(cmd, env=env, cwd=tree, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, preexec_fn=preexec)
        procs.append(WorkerProcess(i + 1, proc, log))
        role_of[proc.pid] = role
    deadline = time.monotonic() + timeout
    waiting = {p.pid for p in procs}
    while waiting:
        for p in procs:
            if p.proc.poll() is not None:
                err = p.log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"worker process {p.index} exited with {p.proc.returncode}:\n{err}")
        seen = {role: [poller_pids(c) for c in await check_queues(client, queue, role)] for role in set(roles)}
        waiting = {pid for pid in waiting if not all(pid in s for s in seen[role_of[pid]])}
        if time.monotonic() > deadline:
            raise TimeoutError(f"worker processes {sorted(waiting)} not polling {queue} after {timeout:.0f} s")
        if waiting:
            await asyncio.sleep(0.5)
    for p in procs:
        p.ready_cpu = p.cpu_now()
    return procs


def dev_server_pid() -> int | None:
    """The ephemeral dev server: a child process of this one running `temporal server start-dev`."""
    for pid in children(os.getpid()):
        if "start-dev" in cmdline(pid):
            return pid
    return None


@asynccontextmanager
async def temporal_side(n_workers: int, latency: float, tuning: WorkerTuning, in_process: bool,
                        server_config: list[str], tree: Path = ROOT, layout: CoreLayout | None = None
                        ) -> AsyncIterator[tuple[object, str, list[WorkerProcess]]]:
    """A fresh dev server and workers; with `layout` (--per-core) the server's threads on layout.server and the
    worker processes on layout.workers."""
    from core.server import start_ephemeral_dev_server

    env = await start_ephemeral_dev_server(dynamic_config=server_config)
    try:
        server_pid = dev_server_pid()
        if layout is not None and server_pid:
            pin(server_pid, layout.server)  # inherited from this (pinned) process already; every thread, to be sure
        queue = f"bench-{uuid.uuid4().hex[:6]}"
        if in_process:
            async with workers(env.client, queue, tuning=tuning):
                yield env, queue, []
        else:
            address = env.client.service_client.config.target_host
            procs = await start_worker_processes(env.client, address, queue, n_workers, latency, tuning, tree=tree,
                                                 cores=None if layout is None else layout.workers,
                                                 roles=("all",) if layout is None else layout.roles)
            try:
                yield env, queue, procs
            finally:
                await asyncio.gather(*(p.stop() for p in procs))
    finally:
        await env.shutdown()
