"""The JSON bodies `colloquy serve` accepts (client/web/app.py, client/web/interview/room.py,
client/query/cli.py), each with declared maxima like every other door, and the OpenAPI description GET
/openapi.json publishes: every route the app's router answers (so it cannot drift), with these bodies. The door
fuzz tests generate requests from it: tests/unit/platform/test_door_fuzz.py. Fields a page may add later are
allowed and ignored (the body as a whole is measured: client/web/guard.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from models.common import MAX_ITEMS, IdStr, TextStr
from models.interview.entries import MAX_ANSWER_PARTS
from models.interview.names import CONTROL_ACTIONS
from models.query.workflow import MAX_INPUT_CHARS
from models.study.workflow import ReviewPlan


class PageBody(BaseModel):
    model_config = ConfigDict(extra="allow")


class RoomEntryBody(PageBody):
    """POST /room/{wid}/{key}/entry: an answer typed in the interviewee room."""

    entry_id: str = Field(min_length=1, max_length=100, description="The page's id for it (idempotency)")
    text: TextStr
    reply_to_section_id: IdStr | None = None
    reply_to_question_id: IdStr | None = Field(default=None, description="The question on screen when the person "
                                               "began the answer (`question_entry_id`)")
    answer_id: str | None = Field(default=None, max_length=100, description="One answer in parts: the page's id "
                                  "for the whole answer (its first part's `entry_id`)")
    part: int | None = Field(default=None, ge=1, le=MAX_ANSWER_PARTS, description="Which part (1-based)")
    parts: int | None = Field(default=None, ge=1, le=MAX_ANSWER_PARTS, description="How many parts")
    audio_clips: list[IdStr] | None = Field(default=None, max_length=60, description="A spoken answer: the clip "
                                            "names POST /room/ID/KEY/audio returned (the entry keeps them)")


class HeartbeatBody(PageBody):
    """POST /room/{wid}/{key}/heartbeat: the room page is still open."""

    client_id: IdStr = "page"
    seq: int = Field(default=0, ge=0, le=2 ** 53)


class ControlBody(PageBody):
    """POST /api/interviews/{wid}/control: the console's session controls."""

    action: IdStr = Field(description=" | ".join(CONTROL_ACTIONS))


class NotesInputBody(PageBody):
    """POST /notes/input: a note, a question, both, or a correction."""

    text: str = Field(min_length=1, max_length=MAX_INPUT_CHARS)
    session_context: TextStr | None = None
    app_id: IdStr | None = None
    today: IdStr | None = Field(default=None, description="YYYY-MM-DD")
    time_zone: IdStr | None = None
    utc_offset_minutes: int | None = Field(default=None, ge=-14 * 60, le=14 * 60)


class ClarifyBody(PageBody):
    """POST /notes/input/{workflow_id}/clarify: answers by question id, or decline."""

    request_id: IdStr | None = None
    answers: dict[IdStr, TextStr] = Field(default_factory=dict, max_length=MAX_ITEMS)
    decline: bool = False


class CodecBody(BaseModel):
    """POST /codec/encode, /codec/decode: Temporal's codec-server JSON."""

    payloads: list[dict[str, Any]] = Field(max_length=10_000)


#: The JSON bodies (and summaries) of the routes that take one, by (method, path). Which routes exist is the app's
#: router's business: `openapi` describes every route `colloquy serve` answers (client/web/app.py `served_routes`),
#: so the description cannot drift from the router (tests/unit/platform/test_openapi.py).
BODIES: dict[tuple[str, str], tuple[type[BaseModel] | None, str]] = {
    ("post", "/room/{wid}/{key}/entry"): (RoomEntryBody, "an interviewee's answer"),
    ("post", "/room/{wid}/{key}/heartbeat"): (HeartbeatBody, "the room page is open"),
    ("get", "/room/{wid}/{key}/state"): (None, "what the room shows"),
    ("post", "/api/interviews/{wid}/control"): (ControlBody, "pause, resume, end, …"),
    ("get", "/api/interviews/{wid}/console"): (None, "everything the console shows"),
    ("get", "/api/interviews/{wid}/room-link"): (None, "the interviewee link"),
    ("get", "/api/interviews/{wid}/essay"): (None, "the essay (plain text)"),
    ("post", "/notes/input"): (NotesInputBody, "a note or a question"),
    ("post", "/notes/input/{workflow_id}/clarify"): (ClarifyBody, "answers to a clarifying question"),
    ("get", "/notes/input/{workflow_id}"): (None, "a query's outcome"),
    ("get", "/api/studies/{sid}"): (None, "a study's progress"),
    ("post", "/api/studies/{sid}/plan"): (ReviewPlan, "the researcher edits or approves the plan"),
    ("post", "/codec/encode"): (CodecBody, "encrypt payloads"),
    ("post", "/codec/decode"): (CodecBody, "decrypt payloads"),
    ("get", "/"): (None, "public: whether this browser is signed in"),
    ("get", "/healthz"): (None, "public: up, and whether payload encryption is on"),
    ("get", "/login"): (None, "public: the sign-in page"),
    ("post", "/login"): (None, "public: sign in with the token (a form; sets the session cookie)"),
    ("post", "/logout"): (None, "public: end this browser's session (a form)"),
    ("post", "/room/{wid}/{key}/audio"): (None, "a spoken answer (?consent=yes&lang=); its transcription"),
    ("get", "/room/{wid}/{key}/question-audio"): (None, "the question in force, spoken (?lang=&q=)"),
    ("get", "/study/{sid}/join/{token}"): (None, "a participant's study link (the page)"),
    ("post", "/study/{sid}/join/{token}"): (None, "a participant joins (a form)"),
    ("post", "/study/{sid}/check/{token}"): (None, "a participant's member check"),
    ("get", "/studies/{sid}"): (None, "the researcher's study page"),
    ("post", "/api/studies/{sid}/themes"): (None, "the researcher edits a theme"),
    ("get", "/api/studies/{sid}/report"): (None, "the study's report (HTML)"),
    ("get", "/api/studies/{sid}/{name}"): (None, "a study output: findings.md or findings.json"),
}
#: Bodies that are not JSON: the sign-in forms and the recorded answers.
FORM_ROUTES = {("post", "/login"), ("post", "/logout"), ("post", "/study/{sid}/join/{token}")}
AUDIO_ROUTES = {("post", "/room/{wid}/{key}/audio"): ("audio/wav", "audio/webm", "audio/ogg")}
#: Answers that stay open (Server-Sent Events) or wait on a worker up to a minute (transcription, speech): marked
#: `x-long-lived` in the description (the door fuzz leaves them to their own tests: tests/unit/voice/).
LONG_LIVED = {("get", "/room/{wid}/{key}/stream"), ("get", "/api/interviews/{wid}/stream"),
              ("post", "/room/{wid}/{key}/audio"), ("get", "/room/{wid}/{key}/question-audio")}
_FORM = {"application/x-www-form-urlencoded": {"schema": {"type": "object", "additionalProperties": {
    "type": "string", "maxLength": 2000}}}}
_RESPONSES = {
    "200": {"description": "done"}, "400": {"description": "invalid input: {\"error\": …}"},
    "401": {"description": "sign in or send the bearer token"}, "403": {"description": "cross-site"},
    "404": {"description": "no such run"}, "413": {"description": "too large"},
    "415": {"description": "not JSON"}, "422": {"description": "refused by the run"},
    "429": {"description": "too many wrong tokens"}}


def openapi(routes: Iterable[tuple[str, str, str, bool]]) -> dict[str, Any]:
    """An OpenAPI 3.1 description of `routes`: (method, path, summary, public) for every route the app answers
    (client/web/app.py `served_routes`); the bodies from the models above, with their maxima."""
    paths: dict[str, Any] = {}
    for method, path, summary, is_public in routes:
        params = [{"name": p.strip("{}"), "in": "path", "required": True, "schema": {"type": "string",
                                                                                   "maxLength": 200}}
                  for p in path.split("/") if p.startswith("{")]
        body, known = BODIES.get((method, path), (None, ""))
        op: dict[str, Any] = {"summary": known or summary, "parameters": params, "responses": dict(_RESPONSES)}
        if (method, path) in LONG_LIVED:
            op["x-long-lived"] = True
        if is_public:
            op["security"] = []  # no token: the page or door checks its own key, or shows nothing personal
        if body is not None:
            op["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": body.model_json_schema(ref_template="#/components/schemas/{model}")}}}
        elif (method, path) in FORM_ROUTES:
            op["requestBody"] = {"required": True, "content": _FORM}
        elif (method, path) in AUDIO_ROUTES:
            op["requestBody"] = {"required": True, "content": {kind: {"schema": {"type": "string", "format":
                                 "binary"}} for kind in AUDIO_ROUTES[(method, path)]}}
        paths.setdefault(path, {})[method] = op
    return {"openapi": "3.1.0", "info": {"title": "Colloquy serve", "version": "1"}, "paths": paths,
            "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
            "security": [{"bearer": []}]}
