"""The project's own processes, each on a host of the fault drill (tests/netns.py): the Temporal dev server, the
SeaweedFS S3 server, one `colloquy worker` and two `colloquy serve` replicas. The driver (tests/e2e/drill/driver.py)
runs on a host of its own and reaches them by address, as users and operators would.

The dev server, worker and S3 server are the test suite's own (tests/e2e/crash/test_server_restart.Server,
tests/e2e/interview/helpers.WorkerProcess, tests/seaweedfs.py), given the host's address and its command prefix.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from temporalio.client import Client

from core.pollers import pollers
from tests.e2e.crash.helpers import wait_for
from tests.e2e.crash.test_server_restart import Server
from tests.e2e.interview.helpers import ROOT, WorkerProcess, worker_env
from tests.netns import Lab
from tests.seaweedfs import SeaweedS3, seaweedfs
from tests.workflows.interview.helpers import decision

TEMPORAL_PORT = 7233
SERVE_PORT = 8234
TOKEN = "drill-serve-token-for-tests"
ROOM_SECRET = "drill-room-secret-shared-by-both-replicas"
QUEUE = "drill"
HOSTS = ["temporal", "s3", "worker", "serve-a", "serve-b", "driver"]
#: the model calls that make a writing run and an import last a few seconds (so a fault meets them mid-run)
SLOW_AGENTS = "writing_draft,parse_log"
SLOW_MS = 1200
ORCHESTRATOR_TURNS = 5000   # per worker start: more than the answers of the longer drill


class ServeProcess:
    """`colloquy serve` on a host (bound to its address), in its own process group: started, killed, restarted."""

    def __init__(self, lab: Lab, host: str, address: str, data: Path, extra: dict[str, str]) -> None:
        self.lab, self.host, self.address, self.data, self.extra = lab, host, address, data, extra
        self.proc: asyncio.subprocess.Process | None = None
        self.base = f"http://{lab.ip(host)}:{SERVE_PORT}"

    async def start(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("COLLOQUY_", "AWS_"))}
        env.update(PYTHONPATH=str(ROOT), COLLOQUY_PROFILE="offline", COLLOQUY_DATA_DIR=str(self.data),
                   COLLOQUY_SERVE_TOKEN=TOKEN, COLLOQUY_ROOM_SECRET=ROOM_SECRET, COLLOQUY_TASK_QUEUE=QUEUE,
                   TEMPORAL_ADDRESS=self.address, LITELLM_LOCAL_MODEL_COST_MAP="True", **self.extra)
        out = open(self.data / "serve.log", "ab")  # noqa: SIM115  (kept open for the child's lifetime)
        self.proc = await asyncio.create_subprocess_exec(
            *self.lab.wrap(self.host), sys.executable, "-m", "client.cli", "serve", "--host", self.lab.ip(self.host),
            "--port", str(SERVE_PORT), env=env, cwd=str(self.data), stdout=out, stderr=out, start_new_session=True)
        out.close()
        deadline = time.monotonic() + 90
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as http:
            while time.monotonic() < deadline:
                if self.proc.returncode is not None:
                    raise AssertionError(f"serve on {self.host} exited: {(self.data / 'serve.log').read_text()[-2000:]}")
                with contextlib.suppress(aiohttp.ClientError, OSError, TimeoutError):
                    async with http.get(self.base + "/healthz") as r:
                        if r.status < 500:
                            return
                await asyncio.sleep(0.2)
        raise AssertionError(f"serve on {self.host} did not answer in 90 s")

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            await self.proc.wait()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 15)
            except TimeoutError:
                await self.kill()


@dataclass
class System:
    """Everything of the drill but the driver, on its hosts; `kill(name)` / `restart(name)` by host name."""

    lab: Lab
    tmp: Path
    server: Server | None = None
    s3: SeaweedS3 | None = None
    worker: WorkerProcess | None = None
    serves: dict[str, ServeProcess] = field(default_factory=dict)
    _stack: ExitStack = field(default_factory=ExitStack)
    starts: int = 0

    @property
    def address(self) -> str:
        return f"{self.lab.ip('temporal')}:{TEMPORAL_PORT}"

    @property
    def journal(self) -> Path:
        return self.tmp / "journal"

    def s3_env(self) -> dict[str, str]:
        assert self.s3 is not None
        return self.s3.env(prefix="drill")

    async def start(self) -> None:
        (self.tmp / "temporal").mkdir(parents=True, exist_ok=True)
        self.server = Server(self.tmp / "temporal", TEMPORAL_PORT, ip=self.lab.ip("temporal"),
                             wrap=self.lab.wrap("temporal"))
        await self.server.start()
        self.s3 = await asyncio.to_thread(self._stack.enter_context,
                                          seaweedfs(ip=self.lab.ip("s3"), wrap=self.lab.wrap("s3")))
        self.journal.mkdir(parents=True, exist_ok=True)
        env = worker_env(self.tmp / "artifacts", self.script(), self.tmp)
        env.update(self.s3_env(), COLLOQUY_HISTORY_DB=str(self.tmp / "history.duckdb"),
                   COLLOQUY_DATA_DIR=str(self.tmp / "worker"), COLLOQUY_NOTES_DIR=str(self.tmp / "notes"),
                   COLLOQUY_IMPORT_ROOTS=f"drill={self.journal}", COLLOQUY_OFFLINE_LATENCY_MS=str(SLOW_MS),
                   COLLOQUY_OFFLINE_LATENCY_AGENTS=SLOW_AGENTS,
                   COLLOQUY_SERVE_URL=f"http://{self.lab.ip('serve-a')}:{SERVE_PORT}/")
        self.worker = WorkerProcess(self.address, QUEUE, env, self.tmp / "worker.log", wrap=self.lab.wrap("worker"))
        await self.worker.start()
        # serve A reads the artifacts from the object store itself, serve B (no store settings) through a worker
        self.serves = {"serve-a": ServeProcess(self.lab, "serve-a", self.address, self.tmp / "serve-a", self.s3_env()),
                       "serve-b": ServeProcess(self.lab, "serve-b", self.address, self.tmp / "serve-b", {})}
        await asyncio.gather(*(s.start() for s in self.serves.values()))

    def script(self) -> dict[str, list[dict]]:
        """The interviews stay live until the driver ends them: a new next question for every answer (a restarted
        worker reads its script from the start: questions of their own, never one already answered)."""
        self.starts += 1
        return {"interview_orchestrator": [decision(f"What happened next ({self.starts}.{i})?", qid=f"q-{i}")
                                           for i in range(ORCHESTRATOR_TURNS)]}

    async def kill(self, name: str) -> None:
        if name == "temporal":
            assert self.server is not None
            await self.server.kill()
        elif name == "s3":
            assert self.s3 is not None
            await asyncio.to_thread(self.s3.stop)
        elif name == "worker":
            assert self.worker is not None
            await self.worker.kill()
        else:
            await self.serves[name].kill()

    async def restart(self, name: str, client: Client) -> None:
        """Start a killed process again; back when it serves (the worker: when it polls its queues)."""
        if name == "temporal":
            assert self.server is not None
            await self.server.start()
        elif name == "s3":
            assert self.s3 is not None
            await asyncio.to_thread(self.s3.start)
        elif name == "worker":
            assert self.worker is not None
            fresh = worker_env(self.tmp / "artifacts", self.script(), self.tmp)
            self.worker.env["COLLOQUY_OFFLINE_SCRIPT"] = fresh["COLLOQUY_OFFLINE_SCRIPT"]
            await self.worker.start()
            pid = self.worker.proc.pid if self.worker.proc else 0

            async def polls() -> bool:
                for queue, kind in ((QUEUE, "workflow"), (QUEUE + "-llm", "activity")):
                    if not any(p.identity.startswith(f"{pid}@") for p in await pollers(client, queue, kind)):
                        return False
                return True
            await wait_for(polls, 120, "the restarted worker polling")
        else:
            await self.serves[name].start()

    async def stop(self) -> None:
        for serve in self.serves.values():
            await serve.stop()
        if self.worker is not None:
            await self.worker.stop()
        await asyncio.to_thread(self._stack.close)
        if self.server is not None:
            await self.server.kill()
