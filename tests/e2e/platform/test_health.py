"""`colloquy health`: the worker container's real check (server reachable, a worker on this host polls each
queue) and the primitive behind the CLI's "no worker is polling" message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from workers.main import running_workers

COLLOQUY = str(Path(sys.executable).parent / "colloquy")
pytestmark = pytest.mark.dev_server


def _health(address: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TEMPORAL_ADDRESS=address)
    return subprocess.run([COLLOQUY, "health", *args], env=env, capture_output=True, text=True, timeout=60)


async def test_health_fails_without_worker_then_passes_with_one(dev_env):
    address = dev_env.client.service_client.config.target_host
    queue = "health-check-q"
    bad = _health(address, "--task-queue", queue)
    assert bad.returncode == 3, bad.stdout + bad.stderr  # the documented "no worker" code
    assert f"{queue} (workflow): no worker is polling" in bad.stderr
    assert "Traceback" not in bad.stderr
    async with running_workers(dev_env.client, queue):
        import asyncio

        for _ in range(50):  # the pollers register with the server within a moment of starting
            good = await asyncio.to_thread(_health, address, "--task-queue", queue, "--this-host")
            if good.returncode == 0:
                break
            await asyncio.sleep(0.2)
    assert good.returncode == 0, good.stdout + good.stderr
    assert f"ok  {queue}-llm (activity): " in good.stdout and "on host" in good.stdout


def test_health_unreachable_server_is_one_line_exit_2():
    res = _health("127.0.0.1:1", "--role", "llm")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip().startswith("error:") and len(res.stderr.strip().splitlines()) <= 3
