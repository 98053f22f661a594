"""`colloquy serve`'s whole app over real HTTP (aiohttp's test server): the interviewee room's key, the pages
and their assets as package data, sign-in that returns to the console, the notes API under /notes behind the
token. The browser session itself: tests/e2e/interview/test_browser_room.py."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager

from aiohttp.test_utils import TestClient, TestServer

from client.web.interview.sessions import heartbeat_seconds, load_secret, room_key, room_path
from client.web.serve import build_serve_app

TOKEN = "t0ken-for-the-tests"
SECRET = b"secret-for-tests"


async def _no_temporal():  # noqa: ANN202
    raise ConnectionError("cannot reach Temporal at 127.0.0.1:1 (test)")


@asynccontextmanager
async def serving():
    app = build_serve_app(TOKEN, None, [], _no_temporal, SECRET, "colloquy", "fitness", None)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    try:
        yield client
    finally:
        await client.close()


def test_room_keys_are_per_session_and_per_secret():
    a, b = room_key(SECRET, "interview-a"), room_key(SECRET, "interview-b")
    assert a != b and len(a) == 24 and a == room_key(SECRET, "interview-a")
    assert room_key(b"another secret", "interview-a") != a
    assert room_path(SECRET, "interview-a") == f"/room/interview-a/{a}"


def test_the_secret_is_made_once_and_kept_private(tmp_path, monkeypatch):
    monkeypatch.delenv("COLLOQUY_ROOM_SECRET", raising=False)
    first = load_secret(tmp_path)
    assert load_secret(tmp_path) == first and len(first) >= 32
    assert (tmp_path / "room-secret").stat().st_mode & 0o777 == 0o600
    monkeypatch.setenv("COLLOQUY_ROOM_SECRET", "from-the-environment")
    assert load_secret(tmp_path) == b"from-the-environment"


def test_pages_heartbeat_four_times_per_presence_timeout_within_one_to_five_seconds():
    assert heartbeat_seconds(20) == 5 and heartbeat_seconds(3) == 1 and heartbeat_seconds(8) == 2
    assert heartbeat_seconds(0) == 0


async def test_the_room_opens_with_its_key_only_and_needs_no_token():
    async with serving() as http:
        r = await http.get(room_path(SECRET, "interview-a"))
        assert r.status == 200 and "aria-live" in await r.text()
        assert "script-src 'self'" in r.headers["Content-Security-Policy"]
        assert (await http.get(f"/room/interview-a/{room_key(SECRET, 'interview-b')}")).status == 404
        r = await http.get(room_path(SECRET, "interview-a") + "/state")
        assert r.status == 503 and "cannot reach Temporal" in (await r.json())["error"]
        for name, kind in (("room.js", "text/javascript"), ("room.css", "text/css"), ("console.js", "text/javascript")):
            r = await http.get(f"/static/{name}")
            assert r.status == 200 and r.content_type == kind
        assert (await http.get("/static/secrets.txt")).status == 404


async def test_the_console_needs_the_token_and_signing_in_returns_to_it():
    async with serving() as http:
        r = await http.get("/console/interview-a", allow_redirects=False)
        assert r.status == 303 and r.headers["Location"] == "/login?next=/console/interview-a"
        assert 'name="next" value="/console/interview-a"' in await (await http.get(r.headers["Location"])).text()
        assert (await http.get("/api/interviews/interview-a/console")).status == 401
        r = await http.post("/login", data={"token": TOKEN, "next": "/console/interview-a"}, allow_redirects=False)
        assert r.status == 303 and r.headers["Location"] == "/console/interview-a"
        assert (await http.get("/console/interview-a")).status == 200
        r = await http.post("/login", data={"token": TOKEN, "next": "//elsewhere.example/"}, allow_redirects=False)
        assert r.status == 200                     # never sent to another site
        r = await http.get("/api/interviews/interview-a/room-link")
        assert (await r.json())["url"].endswith(room_path(SECRET, "interview-a"))
        page = await (await http.get("/console/interview-a")).text()
        csrf = re.search(r'<meta name="colloquy-csrf" content="([^"]+)">', page).group(1)
        r = await http.post("/api/interviews/interview-a/control", json={"action": "explode"},
                            headers={"X-Colloquy-CSRF": csrf})
        assert r.status == 400 and "pause" in (await r.json())["error"]


async def test_the_notes_api_is_served_under_notes_behind_the_token():
    async with serving() as http:
        assert (await http.post("/notes/input", json={"text": "bench 80kg"})).status == 401
        r = await http.post("/notes/input", json={}, headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status == 400 and "'text' is required" in (await r.json())["error"]
