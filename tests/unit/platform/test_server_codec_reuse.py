"""`colloquy server start` with payload encryption on never silently reuses a running server whose Web UI has no
codec endpoint (issue 25): the server we started is refused with the restart to do; a server another program
started (no pid of ours) is reused with a warning. A real process stands for the server (its command line is
what is checked, as /proc shows it); the port is a real listening socket."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from core.server import DevServer

ENDPOINT = "http://127.0.0.1:8234/codec"


@pytest.fixture
def listening():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def _fake_server(tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    """A process whose command line reads `<dir>/temporal ... server start-dev ...` like the real one's."""
    exe = tmp_path / "bin" / "temporal"
    exe.parent.mkdir(exist_ok=True)
    exe.symlink_to(sys.executable)
    proc = subprocess.Popen([str(exe), "-c", "import time; time.sleep(60)", "server", "start-dev", *args])
    cmdline = Path(f"/proc/{proc.pid}/cmdline")
    deadline = time.monotonic() + 10
    while b"start-dev" not in cmdline.read_bytes() and time.monotonic() < deadline:  # until it has exec'd
        time.sleep(0.02)
    return proc


@pytest.mark.parametrize(("args", "words"), [
    ((), "without a codec endpoint"),
    (("--ui-codec-endpoint", "http://127.0.0.1:9999/codec"), "with the codec endpoint http://127.0.0.1:9999/codec"),
])
def test_our_server_without_this_codec_endpoint_is_refused_with_the_restart_to_do(tmp_path, listening, monkeypatch,
                                                                                  args, words):
    from client.cli import app

    monkeypatch.setattr(DevServer, "healthy", lambda self: True)
    proc = _fake_server(tmp_path, *args)
    try:
        data = tmp_path / "data"
        data.mkdir()
        (data / "temporal.pid").write_text(str(proc.pid))
        server = DevServer(data, port=listening, ui_port=listening + 1, codec_endpoint=ENDPOINT)
        with pytest.raises(RuntimeError, match=words) as err:
            server.start(5)
        assert "colloquy server stop" in str(err.value)
        same = DevServer(data, port=listening, codec_endpoint=None)  # encryption off: reused as before
        assert same.start(5).reused
        monkeypatch.setenv("COLLOQUY_DATA_DIR", str(data))
        monkeypatch.setenv("COLLOQUY_CODEC_KEYS_FILE", str(tmp_path / "keys.json"))
        result = CliRunner().invoke(app, ["server", "start", "--port", str(listening)])
        assert result.exit_code == 1 and "colloquy server stop" in " ".join(result.output.split())
    finally:
        proc.kill()
        proc.wait()


def test_a_server_we_did_not_start_is_reused_with_a_warning(tmp_path, listening, monkeypatch):
    monkeypatch.setattr(DevServer, "healthy", lambda self: True)
    status = DevServer(tmp_path, port=listening, codec_endpoint=ENDPOINT).start(5)
    assert status.reused and status.notice and ENDPOINT in status.notice and "--ui-codec-endpoint" in status.notice
    assert os.getpid() != status.pid
