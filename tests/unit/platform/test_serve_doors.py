"""`colloquy serve`'s doors as an attacker and a careless user try them (issue 21), over real HTTP (aiohttp's test
server) with a scripted Temporal client: each test says what the workflow would answer, and checks what reached it.

Cross-site requests from another port of 127.0.0.1, text/plain JSON, the session cookie, sign-in throttling and
token strength, `next` after sign-in, the essay's raw HTML, and the inputs that used to answer 500."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from typing import Any, cast

import pytest
from aiohttp.test_utils import TestClient, TestServer
from temporalio.client import WorkflowQueryFailedError

from client.web.app import COOKIE, _next_path, build_app
from client.web.guard import CSRF_HEADER, MIN_TOKEN_CHARS, WeakTokenError
from client.web.interview.sessions import room_path
from client.web.serve import build_serve_app
from models.common import ArtifactRef
from models.interview.entries import SubmitEntryResult, TranscriptEntry
from models.interview.workflow import InterviewResult, SessionState

TOKEN = "door-token-for-the-tests"
SECRET = b"secret-for-tests"
EVIL = "http://127.0.0.1:9999"


class Handle:
    """One workflow as the test scripts it: `answers[name]` is returned (or raised) for that query/update."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.calls: list[tuple[Any, ...]] = []

    def _answer(self, name: str) -> Any:
        value = self.answers[name]
        if isinstance(value, BaseException):
            raise value
        return value

    async def query(self, name: str, *args: Any, result_type: Any = None) -> Any:
        self.calls.append(("query", name))
        return self._answer(name)

    async def execute_update(self, name: str, arg: Any, result_type: Any = None) -> Any:
        self.calls.append(("update", name, arg))
        return self._answer(name)

    async def describe(self) -> Any:
        return self._answer("describe")

    async def result(self) -> Any:
        return self._answer("result")


class Temporal:
    def __init__(self, **handles: Handle) -> None:
        self.handles = handles

    def get_workflow_handle(self, wid: str, result_type: Any = None) -> Handle:
        return self.handles[wid]


def state(wid: str = "interview-a") -> SessionState:
    return SessionState(workflow_id=wid, topic="t", status="IN_PROGRESS", phase="opening", mode="adaptive",
                        duration_seconds=600)


@asynccontextmanager
async def serving(temporal: Temporal | None = None):
    async def connect() -> Temporal:
        if temporal is None:
            raise ConnectionError("no Temporal in this test")
        return temporal

    app = build_serve_app(TOKEN, None, [], cast(Any, connect), SECRET, "colloquy", "fitness", None)
    http = TestClient(TestServer(app, host="127.0.0.1"))
    await http.start_server()
    try:
        yield http
    finally:
        await http.close()


async def sign_in(http: TestClient, wid: str = "interview-a") -> str:
    """Sign in as a browser does; the console page's CSRF token."""
    r = await http.post("/login", data={"token": TOKEN}, allow_redirects=False)
    assert r.status == 200
    page = await (await http.get(f"/console/{wid}")).text()
    found = re.search(r'<meta name="colloquy-csrf" content="([^"]+)">', page)
    assert found is not None
    return found.group(1)


# ------------------------------------------------------------------------------------- cross-site
async def test_a_page_on_another_port_cannot_pause_or_end_an_interview():
    handle = Handle({"control_session": state()})
    async with serving(Temporal(**{"interview-a": handle})) as http:
        csrf = await sign_in(http)
        api = "/api/interviews/interview-a/control"
        # the forged requests of the issue: text/plain JSON from another origin (no preflight), with the cookie
        r = await http.post(api, data='{"action": "end"}', headers={"Content-Type": "text/plain", "Origin": EVIL})
        assert r.status == 403 and "may not act here" in (await r.json())["error"]
        r = await http.post(api, json={"action": "pause"}, headers={"Sec-Fetch-Site": "same-site"})
        assert r.status == 403
        r = await http.post(api, json={"action": "pause"})                      # no CSRF header
        assert r.status == 403 and CSRF_HEADER in (await r.json())["error"]
        r = await http.post(api, json={"action": "pause"}, headers={CSRF_HEADER: "guessed"})
        assert r.status == 403
        r = await http.post(api, data='{"action": "pause"}', headers={"Content-Type": "text/plain",
                                                                      CSRF_HEADER: csrf})
        assert r.status == 415
        assert handle.calls == []                                               # nothing reached the interview
        r = await http.post(api, json={"action": "pause"}, headers={CSRF_HEADER: csrf, "Origin": str(http.make_url(""))
                                                                     .rstrip("/"), "Sec-Fetch-Site": "same-origin"})
        assert r.status == 200 and [c[1] for c in handle.calls] == ["control_session"]


async def test_forged_notes_are_refused():
    async with serving(Temporal()) as http:
        csrf = await sign_in(http)
        r = await http.post("/notes/input", data='{"text": "forged"}', headers={"Content-Type": "text/plain",
                                                                                 "Origin": EVIL})
        assert r.status == 403
        r = await http.post("/notes/input", data='{"text": "forged"}', headers={"Content-Type": "text/plain",
                                                                                 CSRF_HEADER: csrf})
        assert r.status == 415


async def test_the_cli_with_its_bearer_token_needs_no_page_checks():
    handle = Handle({"control_session": state()})
    async with serving(Temporal(**{"interview-a": handle})) as http:
        r = await http.post("/api/interviews/interview-a/control", json={"action": "pause"},
                            headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status == 200


# ------------------------------------------------------------------------------------- sessions
async def test_the_cookie_is_a_signed_session_not_the_token_and_logout_ends_it():
    link = "/api/interviews/interview-a/room-link"
    async with serving() as http:
        r = await http.post("/login", data={"token": TOKEN}, allow_redirects=False,
                            headers={"X-Forwarded-Proto": "https"})
        assert r.cookies[COOKIE]["secure"]                           # behind TLS: never sent over plain HTTP
        r = await http.post("/login", data={"token": TOKEN}, allow_redirects=False)
        cookie = r.cookies[COOKIE]
        assert TOKEN not in cookie.value and cookie["httponly"] and not cookie["secure"]
        http.session.cookie_jar.clear()
        with_cookie = {"Cookie": f"{COOKIE}={cookie.value}"}
        assert (await http.get(link, headers=with_cookie)).status == 200
        assert (await http.get(link, headers={"Cookie": f"{COOKIE}={TOKEN}"})).status == 401  # the raw token: no
        assert (await http.get(link, headers={"Cookie": f"{COOKIE}={cookie.value[:-2]}xx"})).status == 401
        index = await (await http.get("/", headers=with_cookie)).text()
        csrf = re.search(r'name="csrf" value="([^"]+)"', index).group(1)
        r = await http.post("/logout", data={"csrf": csrf}, allow_redirects=False, headers=with_cookie)
        assert r.status == 303
        assert (await http.get(link, headers=with_cookie)).status == 401     # a copy of the old cookie is dead too


async def test_token_guessing_is_throttled():
    async with serving() as http:
        for _ in range(5):
            assert (await http.post("/login", data={"token": "wrong-guess-0000000"})).status == 401
        r = await http.post("/login", data={"token": TOKEN})
        assert r.status == 429 and int(r.headers["Retry-After"]) > 0
    async with serving() as http:
        for _ in range(5):
            r = await http.get("/api/interviews/x/room-link", headers={"Authorization": "Bearer nope-nope-nope"})
            assert r.status == 401
        r = await http.get("/api/interviews/x/room-link", headers={"Authorization": "Bearer nope-nope-nope"})
        assert r.status == 429
        r = await http.get("/api/interviews/x/room-link", headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status == 429                       # locked out: not even the right token is compared


@pytest.mark.parametrize("token", ["x", "short-token", "a" * (MIN_TOKEN_CHARS - 1)])
def test_weak_tokens_are_refused(token):
    with pytest.raises(WeakTokenError, match=f"at least {MIN_TOKEN_CHARS}"):
        build_app(token)


# ------------------------------------------------------------------------------------------ next
@pytest.mark.parametrize("given", ["/%09/evil.example", "/\t/evil.example", "//evil.example", "/\\evil.example",
                                   "/%2F%2Fevil.example", "/%5cevil.example", "https://evil.example", "/\n/evil",
                                   " /x", "javascript:alert(1)"])
async def test_next_never_leaves_this_server(given):
    assert _next_path(given) is None
    async with serving() as http:
        page = await (await http.get("/login", params={"next": given})).text()
        assert 'name="next"' not in page
        r = await http.post("/login", data={"token": TOKEN, "next": given}, allow_redirects=False)
        assert r.status == 200 and "Location" not in r.headers


def test_local_paths_are_kept():
    assert _next_path("/console/interview-a") == "/console/interview-a"
    assert _next_path("/studies/s-1?tab=2") == "/studies/s-1?tab=2"


# ------------------------------------------------------------------------------------------ essay
async def test_the_essay_keeps_no_live_html(tmp_path, monkeypatch):
    from activities.artifacts import ArtifactStore

    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    ref: ArtifactRef = ArtifactStore().put("interview-a", "essay.md", "# On call\n\nShe said <img src=x "
                                           "onerror=alert(1)> and <script>steal()</script>; 3 < 4.\n")

    class Desc:
        class status:  # noqa: N801
            name = "COMPLETED"

    result = InterviewResult(workflow_id="interview-a", status="COMPLETED", exit_reason="done", essay=ref)
    async with serving(Temporal(**{"interview-a": Handle({"describe": Desc(), "result": result})})) as http:
        await sign_in(http)
        r = await http.get("/api/interviews/interview-a/essay")
        text = await r.text()
    assert r.status == 200 and r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.content_type == "text/plain" and "sandbox" in r.headers["Content-Security-Policy"]
    assert "<img" not in text and "<script" not in text and "&lt;img src=x" in text and "3 < 4" in text


# ------------------------------------------------------------------------------ the nine 500s
def _raw(text: str) -> bytes:
    return text.encode("utf-8")


LONE_SURROGATE = '"\\ud800 oops"'
DEEP = "[" * 300 + "]" * 300


@pytest.mark.parametrize(("path", "body", "words"), [
    ("entry", '{"entry_id": "e1", "text": ' + LONE_SURROGATE + "}", "surrogate"),
    ("entry", '{"entry_id": "e1", "text": "hi", "extra": ' + DEEP + "}", "nested"),
    ("entry", '{"entry_id": "e1", "text": "hi", "reply_to_section_id": "' + "s" * 5000 + '"}', "reply_to_section_id"),
    ("entry", '{"entry_id": "e1", "text": "' + "x" * 600_000 + '"}', "bytes"),
    ("heartbeat", '{"client_id": "p", "seq": 1e999}', "seq"),
    ("heartbeat", '{"client_id": "p", "seq": 1e308}', "seq"),
    ("heartbeat", '{"client_id": "p", "seq": ' + "[" * 100_000 + "}", "nested"),
])
async def test_bad_room_bodies_get_a_clear_4xx_and_reach_nothing(path, body, words):
    handle = Handle({"submit_entry": SubmitEntryResult(entry=TranscriptEntry(entry_id="x", speaker="interviewee",
                                                                             text="t"), status="IN_PROGRESS",
                                                        phase="opening"),
                     "heartbeat": state(), "session_state": state()})
    async with serving(Temporal(**{"interview-a": handle})) as http:
        r = await http.post(f"{room_path(SECRET, 'interview-a')}/{path}", data=_raw(body),
                            headers={"Content-Type": "application/json", CSRF_HEADER: "page"})
        message = (await r.json())["error"]
        assert 400 <= r.status < 500 and words in message, (r.status, message)
        assert (await http.get("/healthz")).status == 200
    assert [c for c in handle.calls if c[0] == "update"] == []


@pytest.mark.parametrize("body", ['{"text": ' + LONE_SURROGATE + "}", '{"text": "x", "session_context": ' + DEEP + "}"])
async def test_bad_notes_bodies_get_a_clear_400(body):
    async with serving(Temporal()) as http:
        csrf = await sign_in(http)
        r = await http.post("/notes/input", data=_raw(body), headers={"Content-Type": "application/json",
                                                                      CSRF_HEADER: csrf})
        assert r.status == 400 and (await r.json())["error"]


async def test_other_workflows_ids_on_the_console_and_study_routes_are_404():
    not_here = WorkflowQueryFailedError("unknown queryType session_state. KnownQueryTypes=[progress]")
    study_gone = WorkflowQueryFailedError("unknown queryType progress. KnownQueryTypes=[session_state]")
    temporal = Temporal(**{"discussion-1": Handle({"session_state": not_here}),
                           "interview-b": Handle({"progress": study_gone, "link": study_gone})})
    async with serving(temporal) as http:
        await sign_in(http)
        r = await http.get("/api/interviews/discussion-1/console")
        assert r.status == 404 and "right kind of run" in (await r.json())["error"]
        r = await http.get("/api/studies/interview-b")
        assert r.status == 404
        r = await http.get("/api/studies/interview-b/report")
        assert r.status == 404
        r = await http.get("/study/interview-b/join/some-token")
        assert r.status == 404


async def test_the_standalone_notes_api_refuses_forged_notes():
    from client.query.cli import build_api

    temporal = Temporal()
    async with TestClient(TestServer(build_api(temporal, "colloquy", "fitness", None), host="127.0.0.1")) as http:
        r = await http.post("/input", data='{"text": "forged"}', headers={"Content-Type": "text/plain"})
        assert r.status == 415 and "application/json" in (await r.json())["error"]
        r = await http.post("/input", json={"text": "forged"}, headers={"Origin": EVIL})
        assert r.status == 403
        r = await http.post("/input", json={"text": "forged"}, headers={"Sec-Fetch-Site": "cross-site"})
        assert r.status == 403
