"""The live interview in a browser, served by `colloquy serve` (client/web/app.py extensions):

    GET  /room/{wid}/{key}[?lang=xx]       the interviewee page (the key is the capability: no other login), in the
                                           participant's language (client/web/i18n.py: `lang`, `dir`, its strings)
    GET  /room/{wid}/{key}/state           what the page shows, as JSON (with `max_entry_chars` and `notices`: the
                                           latest section boundaries and time warnings, from the event log)
    GET  /room/{wid}/{key}/stream          the same, pushed (Server-Sent Events) whenever it changes
    POST /room/{wid}/{key}/entry           {"entry_id", "text", "reply_to_section_id"?, "reply_to_question_id"?,
                                            "answer_id"?, "part"?, "parts"?}: an answer (idempotent by
                                           entry_id; the section of the question on screen decides late grace;
                                           409 once the interview has ended, finished or not; a burst queues
                                           here, client/web/interview/updates.py: 429 only when it cannot wait;
                                           a refusal's `error` in the participant's language, `?lang=` or the
                                           browser's, its English in `detail`: client/web/interview/refusals.py)
    POST /room/{wid}/{key}/heartbeat       {"client_id", "seq"}: presence (the engine's `heartbeat` update)
    POST /room/{wid}/{key}/audio, GET .../question-audio: the voice room (client/web/voice/room.py); an entry's
                                           `audio_clips` name the recordings it was transcribed from
    GET  /console/{wid}                    the interviewer console page (signed in: the serve token's cookie)
    GET  /api/interviews/{wid}/console     everything the console shows (state, transcript, notes, plan, essay)
    GET  /api/interviews/{wid}/stream      the session state, pushed (SSE)
    POST /api/interviews/{wid}/control     {"action": "pause"|"resume"|"end"|...}
    GET  /api/interviews/{wid}/essay       the essay (markdown): this server's artifact store when it holds it (shared
                                           object storage), else read through a worker (client/artifacts.py)
    GET  /api/interviews/{wid}/room-link   the interviewee link
    GET  /static/{name}                    the pages' CSS/JS (package data: client/web/)

Interviewee keys: HMAC-SHA256 of the workflow id with this server's secret (COLLOQUY_ROOM_SECRET, else the file
.data/room-secret, made once with 0600), so links survive restarts, nothing is stored per session, and a key
opens one session only; replicas given the same COLLOQUY_ROOM_SECRET accept each other's links. Rotate the secret
to revoke every link.

Pushing: one watcher per open session polls the `session_state` query (queries add nothing to the workflow's
history) every `poll_s` and pushes to every page watching that session when what a page shows changed, plus a
re-sync every few seconds for the clocks. temporalio.contrib.workflow_streams was considered and not used:
see docs/interview-clients.md ("Why a watcher, not workflow_streams").

The engine records each question it puts in force as the interviewer's entry itself (`question_entry_id`); on a
run started before it did, the room records the question a page shows (entry id `room-q-<event id that put it in
force>`) before the page gets it, and a reopened page sees the same question and records nothing new.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from aiohttp import web
from temporalio.client import WorkflowUpdateFailedError
from temporalio.service import RPCError

from client.web.app import public
from client.web.errors import request_language
from client.web.guard import as_model
from client.web.i18n import room_html
from client.web.interview.console import (
    console_control,
    console_data,
    console_essay,
    console_page,
    console_stream,
    room_link,
)
from client.web.interview.sessions import (
    ROOMS,
    STATIC,
    Connect,
    Rooms,
    _asset,
    _error,
    _json_body,
    _page,
    _room_guard,
    _sse,
    _temporal_error,
    _update_error,
    room_view,
)
from client.web.interview.updates import Busy
from client.web.voice.clips import audio_clips
from models.interview.entries import (
    Heartbeat,
    SubmitEntryResult,
    TranscriptEntry,
)
from models.interview.names import (
    UPDATE_HEARTBEAT,
    UPDATE_SUBMIT_ENTRY,
)
from models.interview.workflow import SessionState
from models.web import HeartbeatBody, RoomEntryBody


# ------------------------------------------------------------------------------------- interviewee room
@public
async def room_page(request: web.Request) -> web.Response:
    _room_guard(request)
    return _page("room.html", request, room_html(request.query.get("lang")))


@public
async def room_state(request: web.Request) -> web.Response:
    wid, rooms = _room_guard(request), request.app[ROOMS]
    try:
        s = await rooms.state(wid)
        await rooms.record_question(s)
    except (RPCError, ConnectionError, OSError) as exc:
        return _temporal_error(exc)
    return web.json_response(room_view(s, await rooms.latest_notices(s)))


@public
async def room_stream(request: web.Request) -> web.StreamResponse:
    wid, rooms = _room_guard(request), request.app[ROOMS]
    return await _sse(request, wid, True, lambda s: room_view(s, rooms.cached_notices(wid)))


@public
async def room_entry(request: web.Request) -> web.Response:
    wid, rooms = _room_guard(request), request.app[ROOMS]
    data = await _json_body(request)
    entry_id, text = str(data.get("entry_id", "")).strip(), data.get("text")
    if not entry_id or len(entry_id) > 100 or not isinstance(text, str):
        return _error(400, "send {'entry_id': a unique id, 'text': the answer}")
    body = as_model(RoomEntryBody, data, "entry")
    section = data.get("reply_to_section_id")
    try:
        audio = await asyncio.to_thread(audio_clips, data.get("audio_clips"), wid)   # a spoken answer's clips
    except ValueError as exc:
        return _error(400, str(exc))
    parts = {"answer_id": f"room-a-{body.answer_id}", "part": body.part, "parts": body.parts} \
        if body.answer_id and body.part and body.parts else {}    # one answer in parts (pages since issue 35)
    entry = as_model(TranscriptEntry, {"entry_id": f"room-a-{entry_id}", "speaker": "interviewee", "text": text,
                                       "reply_to_section_id": section if isinstance(section, str) and section
                                       else None, "reply_to_question_id": body.reply_to_question_id or None,
                                       "audio": audio, **parts}, "entry")
    try:
        result = await rooms.update(wid, UPDATE_SUBMIT_ENTRY, entry, SubmitEntryResult)
    except (RPCError, WorkflowUpdateFailedError, ConnectionError, OSError, Busy) as exc:
        return await _update_error(rooms, wid, exc, request_language(request))   # the reason in their language
    return web.json_response({"ok": True, "duplicate": result.duplicate, "seq": result.entry.seq,
                              "late": result.entry.late, "status": result.status})


@public
async def room_heartbeat(request: web.Request) -> web.Response:
    wid, rooms = _room_guard(request), request.app[ROOMS]
    data = await _json_body(request)
    seq = data.get("seq", 0)
    if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq < 2 ** 53:
        return _error(400, "send {'client_id': ..., 'seq': n} (n a whole number from 0)")
    as_model(HeartbeatBody, {**data, "client_id": str(data.get("client_id", ""))[:200] or "page"}, "heartbeat")
    hb = as_model(Heartbeat, {"client_id": str(data.get("client_id", ""))[:200] or "page", "role": "interviewee",
                              "seq": seq}, "heartbeat")
    try:
        s = await rooms.update(wid, UPDATE_HEARTBEAT, hb, SessionState)
        await rooms.record_question(s)
    except (RPCError, WorkflowUpdateFailedError, ConnectionError, OSError, Busy) as exc:
        return await _update_error(rooms, wid, exc)
    return web.json_response(room_view(s, await rooms.latest_notices(s)))


@public
async def static_asset(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in STATIC:
        raise web.HTTPNotFound()
    kind = {"css": "text/css", "js": "text/javascript", "html": "text/html"}[name.rsplit(".", 1)[1]]
    return web.Response(text=_asset(name), content_type=kind, headers={"Cache-Control": "no-cache"})


def room_extension(client: Connect, secret: bytes, poll_s: float = 0.5) -> Callable[[web.Application], None]:
    """The webapp extension (build_app(extensions=[...])) adding the room, the console and their APIs.
    `client`: an async function returning the Temporal client (a `LazyClient`, or a test's client)."""

    def extend(app: web.Application) -> None:
        rooms = Rooms(client, secret, poll_s)
        app[ROOMS] = rooms

        async def on_shutdown(_app: web.Application) -> None:
            await rooms.close()

        app.on_shutdown.append(on_shutdown)
        r = app.router
        r.add_get("/static/{name}", static_asset)
        r.add_get("/room/{wid}/{key}", room_page)
        r.add_get("/room/{wid}/{key}/state", room_state)
        r.add_get("/room/{wid}/{key}/stream", room_stream)
        r.add_post("/room/{wid}/{key}/entry", room_entry)
        r.add_post("/room/{wid}/{key}/heartbeat", room_heartbeat)
        r.add_get("/console/{wid}", console_page)
        r.add_get("/api/interviews/{wid}/console", console_data)
        r.add_get("/api/interviews/{wid}/stream", console_stream)
        r.add_post("/api/interviews/{wid}/control", console_control)
        r.add_get("/api/interviews/{wid}/essay", console_essay)
        r.add_get("/api/interviews/{wid}/room-link", room_link)

    return extend
