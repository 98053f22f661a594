"""Generated door fuzzing (issue 21): inputs generated from each door model's JSON schema (valid, one value spoiled,
hostile JSON) go through

- the workflow doors (`rules.inputs.parse_input`, as every workflow input, signal and update does) and the data
  converter (`core.converter`): each ends as the model or as InvalidInput with one clear line, never another
  exception; an accepted input fits its declared size;
- every JSON route of `colloquy serve`, from the OpenAPI description it publishes (/openapi.json), over real
  HTTP with a scripted Temporal client: each request ends in 2xx/3xx/4xx with one clear message (503 only when the
  scripted Temporal says it is away), never a 500, and the server is still up afterwards.

The default run is quick (tens of examples per door); `pytest -m deep` runs the same properties with a bigger budget.
"""

from __future__ import annotations

import asyncio
import html
import http.client
import json
import socket
import threading
from collections.abc import Iterator
from typing import Any, cast
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from temporalio.api.common.v1 import Payload
from temporalio.client import WorkflowQueryFailedError
from temporalio.service import RPCError, RPCStatusCode

from client.web.errors import AWAY
from client.web.i18n import PAGE_LANGUAGES, page_translations
from client.web.interview.sessions import room_key
from client.web.serve import build_serve_app
from core.codec import EncryptionCodec, Keyring
from core.converter import SafeJSONPayloadConverter
from models.interview.entries import SubmitEntryResult, TranscriptEntry
from models.interview.workflow import SessionState
from rules.inputs import InvalidInput, encoded_size, max_bytes, parse_input
from tests.unit.platform.door_strategies import HOSTILE, door_inputs, from_schema
from tests.unit.platform.test_door_bounds import DOORS

TOKEN = "fuzz-token-for-the-tests"
SECRET = b"fuzz-secret"
QUICK, THOROUGH = 25, 400


# ------------------------------------------------------------------------------------ workflow doors
def check_door(model: type[BaseModel], raw: Any) -> None:
    try:
        parsed = parse_input(model, raw, "door")
    except InvalidInput as exc:
        message = str(exc)
        assert message.startswith("invalid door: ") and "\n" not in message and "Traceback" not in message
        message.encode("utf-8")                                    # no undecodable text echoed back
        return
    assert isinstance(parsed, model)
    assert encoded_size(parsed.model_dump(mode="json")) <= max_bytes(model) + 64 * 1024


def _door_property(model: type[BaseModel], examples: int) -> None:
    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(raw=door_inputs(model.model_json_schema()))
    def prop(raw: Any) -> None:
        check_door(model, raw)

    prop()


@pytest.mark.parametrize("model", DOORS, ids=lambda m: m.__name__)
def test_every_door_model_ends_in_the_model_or_one_clear_message(model):
    _door_property(model, QUICK)


@pytest.mark.deep
@pytest.mark.parametrize("model", DOORS, ids=lambda m: m.__name__)
def test_every_door_model_thoroughly(model):
    _door_property(model, THOROUGH)


PAYLOAD_BYTES = st.one_of(
    st.binary(max_size=64),
    HOSTILE.map(lambda v: json.dumps(v).encode("utf-8", "surrogatepass")),
    st.integers(150, 2000).map(lambda n: b"[" * n + b"]" * n),
    st.sampled_from([b'"\\ud800"', b'{"seq": 1e999}', b'{"a": -1e999}', b"\xed\xa0\x80", b"", b"nul"]),
)


@settings(max_examples=150, deadline=None)
@given(data=PAYLOAD_BYTES)
def test_the_converter_never_fails_an_untyped_argument(data):
    value = SafeJSONPayloadConverter().from_payload(Payload(metadata={"encoding": b"json/plain"}, data=data), None)
    check_door(TranscriptEntry, value)


# --------------------------------------------------------------------------------------------- HTTP
class Handle:
    """A workflow that answers every query/update of the pages (what each answers is scripted here)."""

    def __init__(self, wid: str) -> None:
        self.wid = wid

    def _state(self) -> SessionState:
        return SessionState(workflow_id=self.wid, topic="t", status="IN_PROGRESS", phase="opening",
                            mode="adaptive", duration_seconds=600)

    async def query(self, name: str, *args: Any, result_type: Any = None) -> Any:
        if name == "session_state":
            return self._state()
        raise WorkflowQueryFailedError(f"unknown queryType {name}")

    async def execute_update(self, name: str, arg: Any, result_type: Any = None) -> Any:
        if name == "open_link":                                 # no such study
            raise RPCError("workflow not found", RPCStatusCode.NOT_FOUND, b"")
        if name == "submit_entry":
            return SubmitEntryResult(entry=arg, status="IN_PROGRESS", phase="opening")
        return self._state()

    async def describe(self) -> Any:
        raise RPCError("workflow not found", RPCStatusCode.NOT_FOUND, b"")

    async def result(self) -> Any:
        raise RPCError("workflow not found", RPCStatusCode.NOT_FOUND, b"")


class _AwayService:
    """The client's raw gRPC services (a worker check, a task queue's description): the server is away."""

    def __getattr__(self, name: str) -> Any:
        async def away(*args: Any, **kwargs: Any) -> Any:
            raise RPCError("the Temporal server is away (scripted)", RPCStatusCode.UNAVAILABLE, b"")

        return away


class Temporal:
    workflow_service = _AwayService()
    namespace = "default"

    def get_workflow_handle(self, wid: str, result_type: Any = None) -> Handle:
        return Handle(wid)

    async def start_workflow(self, *args: Any, **kwargs: Any) -> Any:
        raise RPCError("the Temporal server is away (scripted)", RPCStatusCode.UNAVAILABLE, b"")

    async def execute_workflow(self, *args: Any, **kwargs: Any) -> Any:
        raise RPCError("the Temporal server is away (scripted)", RPCStatusCode.UNAVAILABLE, b"")


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    """`colloquy serve`'s whole app on 127.0.0.1 in a thread of its own (its own event loop)."""
    from aiohttp import web

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    loop = asyncio.new_event_loop()
    started = threading.Event()

    async def connect() -> Temporal:
        return Temporal()

    async def start() -> web.AppRunner:
        app = build_serve_app(TOKEN, EncryptionCodec(Keyring.generate()), [], cast(Any, connect), SECRET, "colloquy",
                              "fitness", None)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        return runner

    def run() -> None:
        asyncio.set_event_loop(loop)
        runner = loop.run_until_complete(start())
        started.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    started.wait(10)
    yield port
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)


def request(port: int, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def routes(port: int) -> list[tuple[str, str, dict[str, Any] | None]]:
    status, body = request(port, "GET", "/openapi.json", None, {})
    assert status == 200
    out = []
    for path, methods in json.loads(body)["paths"].items():
        for method, op in methods.items():
            if op.get("x-long-lived"):   # an event stream, or a wait on the audio worker: their own tests
                continue
            schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            out.append((method.upper(), path, schema))
    # the form posts (no JSON body, so not in the description): sign-in, sign-out, a participant's join
    return out + [("POST", "/login", FORM), ("POST", "/logout", FORM), ("POST", "/study/{sid}/join/{token}", FORM)]


FORM = {"x-form": True}


IDS = st.one_of(st.sampled_from(["interview-a", "discussion-1", "study-9", "notes-fitness-0a1b2c3d4e5f"]),
                st.text(min_size=1, max_size=30))
CONTENT_TYPES = st.sampled_from(["application/json", "application/json", "text/plain", "application/x-www-form-"
                                 "urlencoded", "multipart/form-data; boundary=x", ""])


@st.composite
def http_requests(draw: st.DrawFn, table: list[tuple[str, str, dict[str, Any] | None]]) -> tuple[str, str, bytes |
                                                                                               None, dict[str, str]]:
    method, template, schema = draw(st.sampled_from(table))
    wid = draw(IDS)
    key = room_key(SECRET, wid) if draw(st.booleans()) else draw(st.text(max_size=30))
    path = (template.replace("{wid}", quote(wid, safe="")).replace("{key}", quote(key, safe=""))
            .replace("{workflow_id}", quote(wid, safe="")).replace("{sid}", quote(wid, safe=""))
            .replace("{token}", quote(key, safe="")))
    headers: dict[str, str] = {}
    if draw(st.booleans()):
        headers["Authorization"] = f"Bearer {TOKEN}"
    if draw(st.booleans()):
        headers["X-Colloquy-CSRF"] = "page"
    if draw(st.integers(0, 4)) == 0:
        headers["Origin"] = draw(st.sampled_from(["http://127.0.0.1:9999", "null", "https://evil.example"]))
    body: bytes | None = None
    if method == "POST":
        headers["Content-Type"] = draw(CONTENT_TYPES)
        if schema is FORM:
            fields = draw(st.dictionaries(st.sampled_from(["token", "next", "csrf", "language"]) | st.text(max_size=8),
                                          st.text(max_size=60) | st.just(TOKEN), max_size=4))
            headers["Content-Type"] = draw(st.sampled_from(["application/x-www-form-urlencoded", "text/plain"]))
            return method, path, urlencode(fields).encode(), headers
        documents = door_inputs(schema) if schema else HOSTILE
        value = draw(st.one_of(documents, from_schema(schema) if schema else HOSTILE))
        body = draw(st.one_of(st.just(json.dumps(value).encode("utf-8", "surrogatepass")), st.binary(max_size=40)))
    return method, path, body, headers


AWAY_SAID = [html.escape(page_translations(lang).gettext(AWAY)).encode() for lang in PAGE_LANGUAGES]


def _http_property(port: int, examples: int) -> None:
    table = routes(port)
    seen: dict[int, int] = {}

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(req=http_requests(table))
    def prop(req: tuple[str, str, bytes | None, dict[str, str]]) -> None:
        method, path, body, headers = req
        status, raw = request(port, method, path, body, headers)
        seen[status] = seen.get(status, 0) + 1
        assert status != 500 and status < 600, (method, path, status, raw[:300])
        if status >= 400 and raw and raw.lstrip().startswith(b"{"):
            message = json.loads(raw).get("error")
            assert isinstance(message, str) and message.strip(), raw[:300]
        if status == 503:       # the server is away: said so, in English or in the participant's language
            assert b"away" in raw or b"not answering" in raw or any(
                away in raw for away in AWAY_SAID), raw[:300]

    prop()
    assert request(port, "GET", "/healthz", None, {})[0] == 200       # the server is still up
    assert any(200 <= s < 300 for s in seen) and any(400 <= s < 500 for s in seen), seen


def test_every_http_route_ends_in_a_clear_answer(server):
    _http_property(server, 200)


@pytest.mark.deep
def test_every_http_route_thoroughly(server):
    _http_property(server, 3000)
