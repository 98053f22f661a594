"""Two `colloquy serve` replicas with the same secrets (token, room secret) behave as one (issue 25): a browser
signed in on one is signed in on the other (the console's SSE reconnects to either), a room link made by one opens
on the other, and a finished interview's essay is read through the store or a worker, never from serve's own disk.
Over real HTTP (aiohttp's test servers) with a scripted Temporal client."""

from __future__ import annotations

import asyncio
import time
from contextlib import AsyncExitStack
from typing import Any, cast

import pytest
from aiohttp.test_utils import TestClient, TestServer

from client.web.app import COOKIE
from client.web.guard import Sessions
from client.web.interview.sessions import load_secret
from client.web.serve import build_serve_app
from tests.unit.platform.test_serve_doors import Handle, Temporal, state

TOKEN = "replica-token-for-the-tests"


async def _replicas(stack: AsyncExitStack, temporal: Temporal, n: int = 2) -> list[TestClient]:
    async def connect() -> Temporal:
        return temporal

    clients = []
    for _ in range(n):
        app = build_serve_app(TOKEN, None, [], cast(Any, connect), load_secret(), "colloquy", "fitness", None)
        http = TestClient(TestServer(app, host="127.0.0.1"))
        await http.start_server()
        stack.push_async_callback(http.close)
        clients.append(http)
    return clients


async def test_a_session_and_a_room_link_made_by_one_replica_work_on_the_other(monkeypatch, tmp_path):
    monkeypatch.setenv("COLLOQUY_ROOM_SECRET", "room-secret-shared-by-the-replicas")
    monkeypatch.setenv("COLLOQUY_DATA_DIR", str(tmp_path / "never-used"))
    temporal = Temporal(**{"interview-a": Handle({"session_state": state()})})
    async with AsyncExitStack() as stack:
        one, two = await _replicas(stack, temporal)
        cookie = (await one.post("/login", data={"token": TOKEN}, allow_redirects=False)).cookies[COOKIE].value
        with_cookie = {"Cookie": f"{COOKIE}={cookie}"}
        link = (await (await one.get("/api/interviews/interview-a/room-link", headers=with_cookie)).json())["url"]
        assert (await two.get("/api/interviews/interview-a/room-link", headers=with_cookie)).status == 200
        # the console's stream reconnects to the other replica with the same cookie
        stream = await two.get("/api/interviews/interview-a/stream", headers=with_cookie)
        assert stream.status == 200 and stream.content_type == "text/event-stream"
        first = b""
        while b"interview-a" not in first:  # after the retry hint: the session's state
            first += await asyncio.wait_for(stream.content.readuntil(b"\n\n"), 10)
        assert b"data:" in first
        stream.close()
        path = link.split("://", 1)[1].split("/", 1)[1]
        r = await two.get(f"/{path}/state")
        assert r.status == 200 and (await r.json())["workflow_id"] == "interview-a"
        wrong = "/" + path[:-3] + ("aaa" if not path.endswith("aaa") else "bbb")
        assert (await two.get(f"{wrong}/state")).status in (403, 404)
    assert not (tmp_path / "never-used").exists()  # the room secret came from the environment, not a file


def test_a_session_cookie_carries_its_own_expiry_and_cannot_be_stretched():
    a, b = Sessions(TOKEN), Sessions(TOKEN)
    now = time.time()
    cookie = a.new(now)
    assert b.session_id(cookie, now) == a.session_id(cookie, now) is not None
    assert b.session_id(cookie, now + a.seconds + 1) is None                # expired on every replica
    sid, until, sig = cookie.split(".")
    assert b.session_id(f"{sid}.{int(until) + 3600}.{sig}", now) is None   # a longer life is not signed
    assert Sessions("another-token-entirely!").session_id(cookie, now) is None
    b.end(cookie)
    assert b.session_id(cookie, now) is None and a.session_id(cookie, now) is not None


@pytest.mark.parametrize("cookie", ["", "a.b", "a.b.c.d", "x.1e9.sig", "x." + "9" * 13 + ".sig", "." * 2])
def test_malformed_cookies_are_no_session(cookie):
    assert Sessions(TOKEN).session_id(cookie) is None


@pytest.mark.parametrize("command", [["serve", "--port", "1"], ["worker"]])
@pytest.mark.parametrize(("env", "words"), [
    ({"COLLOQUY_ARTIFACT_STORE": "s3"}, "COLLOQUY_S3_BUCKET"),
    ({"COLLOQUY_ARTIFACT_STORE": "s3", "COLLOQUY_S3_BUCKET": "b", "COLLOQUY_S3_ENDPOINT": "seaweedfs:8333"},
     "http"),
    ({"COLLOQUY_ARTIFACT_ENCRYPTION": "on"}, "COLLOQUY_CODEC_KEYS_FILE"),
])
def test_unusable_store_settings_stop_serve_and_the_worker_at_once(monkeypatch, command, env, words):
    from typer.testing import CliRunner

    from client.cli import app

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(app, command)
    out = " ".join(result.output.split())
    assert result.exit_code == 2 and "artifact store" in out and words in out and "Traceback" not in out, out
