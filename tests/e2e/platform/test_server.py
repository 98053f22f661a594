"""`colloquy server start|stop|status` on a temp data dir and non-default ports (never the shared 7233)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.contrib.pydantic import pydantic_data_converter

from core import search_attributes as sa
from models.platform.workflow import MODEL_CHECK_WORKFLOW_TYPE, ModelCheckRequest

pytestmark = pytest.mark.dev_server
COLLOQUY = str(Path(sys.executable).parent / "colloquy")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.3)
        return sock.connect_ex(("127.0.0.1", port)) == 0


class Cli:
    def __init__(self, data_dir: Path) -> None:
        self.port, self.ui_port = _free_port(), _free_port()
        self.data_dir = data_dir
        self.env = {**os.environ, "COLLOQUY_DATA_DIR": str(data_dir)}

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        extra = ["--port", str(self.port)] + (["--ui-port", str(self.ui_port)] if args[-1] == "start" else [])
        return subprocess.run([COLLOQUY, "server", *args, *extra], env=self.env, capture_output=True, text=True,
                              timeout=90)

    def pid(self) -> int:
        return int((self.data_dir / "temporal.pid").read_text())


@pytest.fixture
def cli(tmp_path):
    c = Cli(tmp_path / "data")
    try:
        yield c
    finally:
        c("stop")  # always stop what we started


def _wait_gone(pid: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} still alive")


async def _client(port: int) -> Client:
    return await Client.connect(f"127.0.0.1:{port}", data_converter=pydantic_data_converter)


async def test_start_is_idempotent_and_state_survives_sigkill(cli):
    first = await asyncio.to_thread(cli, "start")
    assert first.returncode == 0, first.stderr
    assert "started" in first.stdout and f"127.0.0.1:{cli.port}" in first.stdout
    pid = cli.pid()
    second = await asyncio.to_thread(cli, "start")
    assert "reused" in second.stdout and cli.pid() == pid
    # WAL pragmas took effect, the UI port is the one asked for, health is reported
    assert (cli.data_dir / "temporal.db-wal").exists()
    status = await asyncio.to_thread(cli, "status")
    assert status.returncode == 0 and "healthy" in status.stdout and f":{cli.ui_port}" in status.stdout
    assert _port_open(cli.ui_port)

    # a workflow (no worker: it stays running) with a Colloquy search attribute registered by start-dev
    client = await _client(cli.port)
    wf_id = f"server-test-{uuid.uuid4().hex[:6]}"
    await client.start_workflow(MODEL_CHECK_WORKFLOW_TYPE, ModelCheckRequest(), id=wf_id, task_queue="nobody-polls",
                                search_attributes=TypedSearchAttributes([SearchAttributePair(sa.PIPELINE, "server-test")]))

    os.kill(pid, signal.SIGKILL)
    await asyncio.to_thread(_wait_gone, pid)
    assert (await asyncio.to_thread(cli, "status")).returncode == 1

    # restart on the same SQLite file (with the --search-attribute flags again): the workflow is still there
    again = await asyncio.to_thread(cli, "start")
    assert again.returncode == 0, again.stderr + again.stdout
    assert "started" in again.stdout and cli.pid() != pid
    client = await _client(cli.port)
    desc = await client.get_workflow_handle(wf_id).describe()
    assert desc.status == WorkflowExecutionStatus.RUNNING
    assert desc.typed_search_attributes.get(sa.PIPELINE) == "server-test"
    found = [w.id async for w in client.list_workflows('ColloquyPipeline="server-test"')]
    assert found == [wf_id]

    new_pid = cli.pid()
    stop = await asyncio.to_thread(cli, "stop")
    assert "stopped" in stop.stdout
    await asyncio.to_thread(_wait_gone, new_pid)
    assert not _port_open(cli.port) and not (cli.data_dir / "temporal.pid").exists()
    assert (await asyncio.to_thread(cli, "status")).returncode == 1
    assert "No embedded Temporal server" in (await asyncio.to_thread(cli, "stop")).stdout


def test_stale_pid_file_never_signals_another_program(cli):
    cli.data_dir.mkdir(parents=True)
    (cli.data_dir / "temporal.pid").write_text(str(os.getpid()))  # this pytest process: not a server
    result = cli("stop")
    assert result.returncode == 0 and "No embedded Temporal server was running" in result.stdout
    assert not (cli.data_dir / "temporal.pid").exists()


def test_concurrent_starts_give_one_server_and_a_second_port_is_refused(cli):
    procs = [subprocess.Popen([COLLOQUY, "server", "start", "--port", str(cli.port), "--ui-port", str(cli.ui_port)],
                              env=cli.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outputs = [" ".join(p.communicate(timeout=90)[0].split()) for p in procs]  # rich wraps lines
    assert [p.returncode for p in procs] == [0, 0], outputs
    assert sorted("reused" in o for o in outputs) == [False, True]
    pid = cli.pid()
    assert all(f"pid {pid}" in o for o in outputs)
    # the same data dir on another port would put two servers on one SQLite file: refused, clearly
    other = subprocess.run([COLLOQUY, "server", "start", "--port", str(_free_port()), "--ui-port",
                            str(_free_port())], env=cli.env, capture_output=True, text=True, timeout=90)
    assert other.returncode == 1
    message = " ".join(other.stderr.split())
    assert f"is still running (pid {pid})" in message and "Traceback" not in message
    assert cli.pid() == pid


def test_status_and_stop_find_the_server_on_its_port_without_port(cli):
    """`server start --port N` remembers N: `status` and `stop` without `--port` report on that server, not
    on 7233 (before: "stopped" while a server ran on N)."""
    assert cli("start").returncode == 0
    bare = lambda *a: subprocess.run([COLLOQUY, "server", *a], env=cli.env, capture_output=True, text=True,  # noqa: E731
                                     timeout=90)
    status = bare("status")
    assert status.returncode == 0 and f"127.0.0.1:{cli.port}" in status.stdout, status.stdout
    stopped = bare("stop")
    assert stopped.returncode == 0 and f"127.0.0.1:{cli.port} stopped" in stopped.stdout
    assert not _port_open(cli.port)


def test_demo_takes_a_port_and_an_address():
    demo = subprocess.run([COLLOQUY, "demo", "--help"], capture_output=True, text=True, timeout=60)
    assert "--port" in demo.stdout and "--address" in demo.stdout
    both = subprocess.run([COLLOQUY, "demo", "--port", "1", "--address", "x:1"], capture_output=True, text=True,
                          timeout=60)
    assert both.returncode == 2 and "not both" in both.stderr and "Traceback" not in both.stderr
