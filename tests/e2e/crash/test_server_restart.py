"""Crash drill: the dev server itself is SIGKILLed in the middle of a writing run's drafts and stays down
(COLLOQUY_CRASH_DOWN_S, 60 s by default, as in the issue). The drafts finish during the outage and their
completions are lost with it; after the restart the server fails those attempts at their heartbeat timeout, the
retries return the drafts already written (completed_once), and the run completes — within the recovery bound
after the restart, with both drafts used and none written twice.

Before: no heartbeat timeout, so the lost attempts waited out their 300 s start-to-close; the per-branch timer
(also 300 s) expired first and the run halted with the finished drafts unused."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
import uuid
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from core.server import dev_server_args, temporal_binary
from models.writing.workflow import WORKFLOW_TYPE as WRITING
from models.writing.workflow import WritingInput, WritingResult
from tests.e2e.crash.helpers import RECOVERY_BOUND_S, completed_activities, started_activity, wait_for
from tests.e2e.interview.helpers import worker_env, worker_process
from tests.workflows.writing.conftest import STORY

pytestmark = [pytest.mark.dev_server, pytest.mark.drill]

DOWN_S = float(os.environ.get("COLLOQUY_CRASH_DOWN_S", "60"))
MODEL_LATENCY_MS = 6000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """`temporal server start-dev` on a SQLite file (state survives SIGKILL), in its own process group; `ip` and
    `wrap` put it on a host of the fault drill (tests/netns.py), where it binds every address of that host
    (`--ip 0.0.0.0`): with the host's address only, its own services still dial each other on 127.0.0.1."""

    def __init__(self, data: Path, port: int, ip: str = "127.0.0.1", wrap: list[str] | None = None) -> None:
        self.data, self.port, self.ip, self.wrap = data, port, ip, list(wrap or [])
        self.bind = "0.0.0.0" if self.wrap else ip  # noqa: S104 — a host of the lab: its lo and its lab link
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *self.wrap, temporal_binary(), "server", "start-dev",
            *dev_server_args(self.data / "temporal.db", self.port, ip=self.bind, ui=False),
            stdout=asyncio.subprocess.DEVNULL, stderr=open(self.data / "server.log", "ab"),  # noqa: SIM115
            start_new_session=True)

        async def up() -> bool:
            try:
                await asyncio.wait_for(asyncio.open_connection(self.ip, self.port), 1)
                return True
            except OSError:
                return False
        await wait_for(up, 30, "the dev server listening")

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            await self.proc.wait()


async def test_dev_server_down_mid_draft_then_restarted_the_run_completes(tmp_path):
    server = Server(tmp_path, free_port())
    await server.start()
    try:
        address = f"127.0.0.1:{server.port}"
        client = await Client.connect(address, data_converter=pydantic_data_converter)
        queue = f"restart-{uuid.uuid4().hex[:6]}"
        env = worker_env(tmp_path / "artifacts")
        env.update(COLLOQUY_OFFLINE_LATENCY_MS=str(MODEL_LATENCY_MS), COLLOQUY_HISTORY_DB=str(tmp_path / "h.duckdb"))
        async with worker_process(address, queue, env, tmp_path / "worker.log"):
            handle = await client.start_workflow(
                WRITING, WritingInput(story_text=STORY, story_name="restart", models=["m-a", "m-b"]),
                id=f"writing-restart-{uuid.uuid4().hex[:6]}", task_queue=queue, result_type=WritingResult)
            await wait_for(lambda: started_activity(handle, "writing_draft"), 60, "drafts started")
            await server.kill()
            await asyncio.sleep(DOWN_S)          # the drafts finish meanwhile; their completions go nowhere
            await server.start()
            restarted = time.monotonic()
            result = await asyncio.wait_for(handle.result(), RECOVERY_BOUND_S * 4)
            recovery = time.monotonic() - restarted
        drafts = sorted(p.name for p in (tmp_path / "artifacts").rglob("draft_v1_*.md")
                        if not p.name.endswith(".prompt.md"))  # the prompts saved beside them
        assert result.status == "complete" and result.final_post is not None, result
        assert len(drafts) == 2, drafts
        assert await completed_activities(handle, "writing_draft") == 2
        # the rest of the run (audits, synthesis, final audit...) takes a few model calls of MODEL_LATENCY_MS
        assert recovery < RECOVERY_BOUND_S + 8 * MODEL_LATENCY_MS / 1000, recovery
        print(f"writing: completed {recovery:.1f}s after the server came back ({DOWN_S:g}s down)")
    finally:
        await server.kill()
