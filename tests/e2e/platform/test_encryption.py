"""Payload encryption end to end, on a real dev server with a SQLite file (free ports, temp data dir):

the README's Temporal CLI recipe runs verbatim through `colloquy serve` (TEMPORAL_CODEC_ENDPOINT /
TEMPORAL_CODEC_AUTH) against workers whose client comes from `core.temporal.connect` with
COLLOQUY_CODEC_KEYS_FILE set; afterwards the interviewee's sentence is in no event of the raw history and not in
the server's database bytes, while `temporal workflow show`/`query` with the codec endpoint print it decoded and
the codec server refuses a caller without the token. Everything started here is stopped here.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from temporalio.client import Client

from client.interview.cli import wait_for_state
from core.codec import ENCODING, KEYS_FILE_ENV, EncryptionCodec, Keyring
from core.server import DevServer
from core.settings import TemporalSettings
from core.temporal import connect
from models.interview.names import TASK_QUEUE
from tests.e2e.interview.test_readme_cli_recipe import recipe_commands
from workers.main import running_workers

pytestmark = pytest.mark.dev_server

BIN = Path(sys.executable).parent
SECRET_WORDS = (b"Black Friday", b"certificate expired", b"channel nobody watched")
TOKEN = "e2e-codec-token-for-tests"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"colloquy serve exited with {proc.returncode}")
        with socket.socket() as sock:
            sock.settimeout(0.2)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"colloquy serve not listening on {port}")


async def _sh(command: str, env: dict[str, str]) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec("bash", "-c", command, env=env, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode()


def _post(url: str, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=b'{"payloads": []}', method="POST",
                                     headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_encrypted_end_to_end_readme_recipe_history_database_and_codec_server(tmp_path, monkeypatch, offline):
    keys = Keyring.generate().save(tmp_path / "keys" / "codec-keys.json")
    serve_port = _free_port()
    artifacts = tmp_path / "artifacts"
    monkeypatch.setenv(KEYS_FILE_ENV, str(keys))
    monkeypatch.setenv("COLLOQUY_SERVE_PORT", str(serve_port))
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(artifacts))
    endpoint = f"http://127.0.0.1:{serve_port}/codec"

    data = tmp_path / "data"
    server = DevServer(data, port=_free_port(), ui_port=_free_port())
    assert server.codec_endpoint == endpoint  # encryption on: the Web UI is pointed at `colloquy serve`
    serve: subprocess.Popen[bytes] | None = None
    outputs: list[tuple[str, int, str]] = []
    cmds = recipe_commands()
    wf_id = next(c for c in cmds if "workflow start" in c).split("--workflow-id ")[1].split()[0]
    try:
        status = await asyncio.to_thread(server.start, 60)
        assert status.healthy and status.pid is not None
        cmdline = Path(f"/proc/{status.pid}/cmdline").read_bytes().split(b"\0")
        assert cmdline[cmdline.index(b"--ui-codec-endpoint") + 1] == endpoint.encode()
        with urllib.request.urlopen(f"http://127.0.0.1:{server.ui_port}/api/v1/settings", timeout=10) as r:
            assert json.loads(r.read())["Codec"]["Endpoint"] == endpoint  # what the Web UI is told
        assert (await asyncio.to_thread(server.start, 10)).reused  # the same endpoint: reused
        # a `server start` that wants another codec endpoint is never silently given this one (issue 25)
        other = DevServer(data, port=server.port, ui_port=server.ui_port, codec_endpoint="http://127.0.0.1:1/codec")
        with pytest.raises(RuntimeError, match=r"started with the codec endpoint .*colloquy server stop"):
            await asyncio.to_thread(other.start, 10)

        serve_env = {**os.environ, "COLLOQUY_SERVE_TOKEN": TOKEN}
        serve = subprocess.Popen([str(BIN / "colloquy"), "serve", "--port", str(serve_port)], env=serve_env,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        await asyncio.to_thread(_wait_port, serve_port, serve)
        # Without the token the codec server answers 401; with it, 200 (asked before the wrong-token `show` below,
        # whose many wrong guesses lock this address out for a minute: 429)
        codes = [_post(f"{endpoint}/decode", {}), _post(f"{endpoint}/decode", {"Authorization": "Bearer wrong"}),
                 _post(f"{endpoint}/decode", {"Authorization": f"Bearer {TOKEN}"})]

        client = await connect(TemporalSettings.from_env(address=server.address))
        assert isinstance(client.data_converter.payload_codec, EncryptionCodec)  # the one setting did it
        cli_env = {k: v for k, v in os.environ.items() if k != KEYS_FILE_ENV}  # the CLI has no keys: only the server
        cli_env.update(TEMPORAL_ADDRESS=server.address, TEMPORAL_CODEC_ENDPOINT=endpoint,
                       TEMPORAL_CODEC_AUTH=f"Bearer {TOKEN}", PATH=f"{BIN}:{os.environ['PATH']}")
        async with running_workers(client, TASK_QUEUE):
            handle = client.get_workflow_handle(wf_id)
            for cmd in cmds:
                code, out = await _sh(cmd, cli_env)
                outputs.append((cmd, code, out))
                if "workflow start" in cmd:
                    await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS", 60)
                if "--name transcript_entry" in cmd:
                    await _wait_for_entry(handle, "a1")
            # `temporal workflow show` through the codec server prints the sentence decoded ...
            shown = await _sh(f"temporal workflow show --workflow-id {wf_id} --detailed", cli_env)
            # ... and a query result too (the recipe's `--type transcript` is one; here its own check)
            queried = await _sh(f"temporal workflow query --workflow-id {wf_id} --type transcript", cli_env)
            plain_env = {k: v for k, v in cli_env.items() if not k.startswith("TEMPORAL_CODEC")}
            shown_raw = await _sh(f"temporal workflow show --workflow-id {wf_id} --output json", plain_env)
            bad_env = {**cli_env, "TEMPORAL_CODEC_AUTH": "Bearer wrong"}
            shown_bad = await _sh(f"temporal workflow show --workflow-id {wf_id} --output json", bad_env)

        # The README recipe works as documented, with the codec.
        def find(fragment: str) -> tuple[int, str]:
            return next((c, o) for cmd, c, o in outputs if fragment in cmd)

        code, out = find("workflow start")
        assert code == 0 and "Running execution" in out, out
        code, out = find("--type session_state")
        assert code == 0 and '"status"' in out and "next_question" in out, out
        code, out = find('"entry_id": "q1"')
        assert code == 0 and "What was your worst night on call?" in out, out
        code, out = find("--name transcript_entry")
        assert code == 0 and "Signal workflow succeeded" in out, out
        code, out = find('"speaker": "narrator"')
        assert code != 0 and "narrator" in out, out
        code, out = find("--type transcript")
        assert code == 0 and "Black Friday" in out and '"q1"' in out and '"x1"' not in out, out
        code, out = find("--type event_log")
        assert code == 0 and "CANDIDATE_MESSAGE" in out, out
        code, out = find("workflow result")
        assert code == 0 and "COMPLETED" in out and "essay" in out, out

        assert shown[0] == 0 and "Black Friday" in shown[1], shown[1][:6000]
        assert queried[0] == 0 and "certificate expired at 2 a.m. on Black Friday" in queried[1], queried[1]
        assert shown_raw[0] == 0 and "Black Friday" not in shown_raw[1] and "binary/encrypted" in str(
            _b64_words(shown_raw[1]))
        assert "Black Friday" not in shown_bad[1]

        # The raw history (a client without the codec): no event holds the sentence; payloads are encrypted.
        raw = await Client.connect(server.address, namespace="default")
        history = await raw.get_workflow_handle(wf_id).fetch_history()
        assert len(history.events) > 10
        for event in history.events:
            blob = event.SerializeToString()
            assert not [w for w in SECRET_WORDS if w in blob], event
        assert ENCODING in history.events[0].SerializeToString()  # the start input, encrypted by the CLI's codec

        assert codes == [401, 401, 200]
        assert _post(f"{endpoint}/decode", {"Authorization": f"Bearer {TOKEN}"}) == 429   # guessing was throttled
    finally:
        if serve is not None and serve.poll() is None:
            os.killpg(serve.pid, signal.SIGTERM)
            try:
                serve.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(serve.pid, signal.SIGKILL)
                serve.wait()
        await asyncio.to_thread(server.stop)

    # `colloquy serve` printed no key material
    assert serve is not None and serve.stdout is not None
    serve_out = serve.stdout.read().decode()
    assert "codec endpoint" in serve_out and Path(keys).read_text().split('"key": "')[1][:20] not in serve_out

    # The database file (and its WAL): the workflow is there, the sentence is not.
    db = b"".join(p.read_bytes() for p in sorted(data.glob("temporal.db*")))
    assert wf_id.encode() in db and b"What on-call taught me" in db  # the right file (search attributes are plain)
    assert not [w for w in SECRET_WORDS if w in db]

    # Private files: the data dir 0700, the database 0600, the artifacts (transcript export etc.) 0600.
    assert _mode(data) == 0o700 and _mode(data / "temporal.db") == 0o600
    files = [p for p in artifacts.rglob("*") if p.is_file()]
    assert files and all(_mode(p) == 0o600 for p in files), {p.name: oct(_mode(p)) for p in files}


async def _wait_for_entry(handle, entry_id: str) -> None:  # type: ignore[no-untyped-def]
    from models.interview.entries import TranscriptView
    from models.interview.names import QUERY_TRANSCRIPT

    for _ in range(100):  # the signal is asynchronous: see it land before querying
        view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        if any(e.entry_id == entry_id for e in view.entries):
            return
        await asyncio.sleep(0.05)


def _b64_words(text: str) -> list[str]:
    """Base64 strings in the CLI's JSON output, decoded where they decode (metadata such as 'encoding')."""
    import base64
    import re

    words = []
    for match in re.findall(r'"([A-Za-z0-9+/=]{8,})"', text):
        try:
            words.append(base64.b64decode(match).decode())
        except (ValueError, UnicodeDecodeError):
            continue
    return words
