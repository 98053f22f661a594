"""The Temporal side of the interview pages of `colloquy serve`: room keys, what a page shows, one watcher per
open session pushing its state, the (lazily connected) client, this server's queued updates to an interview
(client/web/interview/updates.py), and the answers every handler gives when Temporal fails in an expected way.
The handlers are in room.py (the interviewee's room) and console.py (the interviewer's console)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import os
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web
from temporalio.client import Client, WorkflowHandle, WorkflowQueryFailedError, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from client.web.app import with_csrf
from client.web.guard import json_object
from client.web.interview.refusals import ended_text, refusal_text
from client.web.interview.updates import Busy, Gates
from models.interview.entries import (
    SubmitEntryResult,
    TranscriptEntry,
)
from models.interview.names import (
    QUERY_EVENT_LOG,
    QUERY_SESSION_STATE,
    UPDATE_SUBMIT_ENTRY,
)
from models.interview.workflow import EventLogPage, InterviewResult, SessionState
from rules.errors import error_message
from rules.interview.notices import Notices

SECRET_ENV = "COLLOQUY_ROOM_SECRET"
ENDED = ("FINALIZING", "COMPLETED", "TERMINATED")
FINISHED = ("COMPLETED", "TERMINATED")
STATIC = {"console.html", "room.css", "room.js", "console.js", "csrf.js", "split.js", "voice.js", "i18n.js"}
RESYNC_SECONDS = 5.0        # a push at least this often while someone watches (the clocks re-sync)
KEEPALIVE_SECONDS = 15.0
FIRST_READ_EVENTS = 100    # events read back when a session's notices are first asked for on this server
MAX_SESSIONS = 500          # sessions whose notices this server keeps (the least recently shown are dropped)
Connect = Callable[[], Awaitable[Client]]


# ------------------------------------------------------------------------------------------------ keys
def load_secret(data_dir: Path | None = None) -> bytes:
    """COLLOQUY_ROOM_SECRET, else .data/room-secret (created once, 0600)."""
    given = os.environ.get(SECRET_ENV, "").strip()
    if given:
        return given.encode()
    from core.settings import data_dir as default_data_dir

    path = (data_dir or default_data_dir()) / "room-secret"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(32))
    return path.read_text().strip().encode()


def room_key(secret: bytes, workflow_id: str) -> str:
    digest = hmac.new(secret, b"interview-room\x00" + workflow_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def room_path(secret: bytes, workflow_id: str) -> str:
    return f"/room/{workflow_id}/{room_key(secret, workflow_id)}"


# ------------------------------------------------------------------------------------------------ views
def heartbeat_seconds(presence_timeout: float) -> float:
    """How often a page heartbeats: four beats per presence timeout, between 1 and 5 s (0: presence off)."""
    return 0.0 if presence_timeout <= 0 else max(1.0, min(5.0, presence_timeout / 4))


def room_view(s: SessionState, notices: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What the interviewee page shows (no notes, no instructions: those are the interviewer's); `notices`: the
    latest section boundaries and time warnings (rules/interview/notices.py)."""
    sec = s.current_section
    ended = s.status in ENDED
    return {
        "workflow_id": s.workflow_id, "topic": s.topic, "status": s.status, "phase": s.phase, "ended": ended,
        "section": None if sec is None or ended else {"id": sec.id, "title": sec.title, "goal": sec.goal,
                                                       "deadline": _iso(sec.deadline)},
        "question": None if ended else s.next_question, "question_id": s.question_event_id,
        "question_entry_id": None if ended else s.question_entry_id,   # answers are stamped with it (issue 35)
        "as_of": _iso(s.as_of), "ends_at": _iso(s.ends_at),
        "seconds_remaining_in_section": s.seconds_remaining_in_section,
        "seconds_remaining_overall": s.seconds_remaining_overall,
        "paused_reason": s.paused_reason, "exit_reason": s.exit_reason,
        "heartbeat_seconds": heartbeat_seconds(s.presence_timeout_seconds),
        "max_entry_chars": s.max_entry_chars, "notices": notices or [],
    }


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _digest(s: SessionState) -> tuple[Any, ...]:
    """What makes a push worth sending (the clocks tick on the page; they re-sync on RESYNC_SECONDS)."""
    sec = s.current_section
    return (s.status, s.phase, sec.id if sec else None, s.next_question, s.question_event_id, s.exit_reason,
            s.last_event_id, s.ends_at, sec.deadline if sec else None, s.paused_reason)


# --------------------------------------------------------------------------------------------- watcher
@dataclass
class Subscriber:
    queue: asyncio.Queue[SessionState | None]
    interviewee: bool


@dataclass
class Watcher:
    """Polls one session's state for the pages watching it; stops when the last one leaves or it finished."""

    workflow_id: str
    subscribers: list[Subscriber] = field(default_factory=list)
    last: SessionState | None = None
    task: asyncio.Task[None] | None = None


class LazyClient:
    """A Temporal client connected on first use (and again after a failed attempt): `await lazy()`."""

    def __init__(self, connect: Connect) -> None:
        self._connect = connect
        self._client: Client | None = None
        self._lock: asyncio.Lock | None = None

    async def __call__(self) -> Client:
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:
            if self._client is None:
                self._client = await self._connect()
            return self._client


class Rooms:
    """The Temporal side of the pages: the (lazily connected) client, the watchers, recording shown questions."""

    def __init__(self, client: Connect, secret: bytes, poll_s: float = 0.5) -> None:
        self.client, self.secret, self.poll_s = client, secret, poll_s
        self.watchers: dict[str, Watcher] = {}
        self.recorded: set[str] = set()          # "wid/qid" already recorded as interviewer entries
        self.notices: OrderedDict[str, Notices] = OrderedDict()   # per session, the latest MAX_SESSIONS sessions
        self.stopping = asyncio.Event()
        self.gates = Gates()                     # per interview: this server's updates in flight, the rest queued

    async def handle(self, wid: str) -> WorkflowHandle:
        return (await self.client()).get_workflow_handle(wid, result_type=InterviewResult)

    async def update(self, wid: str, name: str, arg: Any, result_type: type[Any]) -> Any:
        """An update to the interview, queued behind this server's others to it (client/web/interview/updates.py):
        a burst waits its turn instead of meeting the server's in-flight limit."""
        handle = await self.handle(wid)
        return await self.gates.run(wid, lambda: handle.execute_update(name, arg, result_type=result_type))

    async def state(self, wid: str) -> SessionState:
        return await (await self.handle(wid)).query(QUERY_SESSION_STATE, result_type=SessionState)

    async def latest_notices(self, s: SessionState) -> list[dict[str, Any]]:
        """The session's latest section boundaries and warnings, read from its event log as far as `s` goes
        (only the events not read yet; an unreadable log leaves what was read before)."""
        wid = s.workflow_id
        notices = self.notices.get(wid)
        if notices is None or s.last_event_id < notices.cursor:
            # first look: the latest FIRST_READ_EVENTS events only (a page of events carries every entry's text)
            notices = self.notices[wid] = Notices()
            notices.cursor = max(0, s.last_event_id - FIRST_READ_EVENTS)
        if s.current_section is not None:
            notices.titles.setdefault(s.current_section.id, s.current_section.title)
        self.notices.move_to_end(wid)
        while len(self.notices) > MAX_SESSIONS:
            self.notices.popitem(last=False)
        try:
            while notices.cursor < s.last_event_id:
                before = notices.cursor
                page = await (await self.handle(wid)).query(QUERY_EVENT_LOG, before, result_type=EventLogPage)
                notices.take(page.events)
                if notices.cursor == before:
                    break
        except (RPCError, WorkflowQueryFailedError, ConnectionError, OSError):
            notices.cursor = max(notices.cursor, s.last_event_id)   # unreadable: skip them rather than retry
        return notices.latest()

    def cached_notices(self, wid: str) -> list[dict[str, Any]]:
        notices = self.notices.get(wid)
        return notices.latest() if notices is not None else []

    async def record_question(self, s: SessionState) -> None:
        """On a run from before the engine recorded its questions itself (`question_entry_id` unset), the question a
        page is about to show becomes the interviewer's entry, once per presentation. Since then: nothing to do."""
        if not s.next_question or not s.question_event_id or s.question_entry_id or s.status in ENDED:
            return
        key = f"{s.workflow_id}/{s.question_event_id}"
        if key in self.recorded:
            return
        entry = TranscriptEntry(entry_id=f"room-q-{s.question_event_id}", speaker="interviewer",
                                text=s.next_question)
        with contextlib.suppress(WorkflowUpdateFailedError):      # ended meanwhile: nothing to record
            await self.update(s.workflow_id, UPDATE_SUBMIT_ENTRY, entry, SubmitEntryResult)
        self.recorded.add(key)

    # ------------------------------------------------------------------------------------ subscriptions
    def subscribe(self, wid: str, interviewee: bool) -> Subscriber:
        sub = Subscriber(asyncio.Queue(), interviewee)
        w = self.watchers.setdefault(wid, Watcher(wid))
        w.subscribers.append(sub)
        if w.last is not None:
            sub.queue.put_nowait(w.last)
        if w.task is None or w.task.done():
            w.task = asyncio.create_task(self._watch(w))
        return sub

    def unsubscribe(self, wid: str, sub: Subscriber) -> None:
        w = self.watchers.get(wid)
        if w is not None and sub in w.subscribers:
            w.subscribers.remove(sub)

    async def _watch(self, w: Watcher) -> None:
        loop = asyncio.get_running_loop()
        sent_at, digest = 0.0, None
        try:
            while w.subscribers and not self.stopping.is_set():
                try:
                    s = await self.state(w.workflow_id)
                except (RPCError, ConnectionError, OSError):
                    await asyncio.sleep(self.poll_s * 4)      # the server or worker is away: keep trying
                    continue
                if any(sub.interviewee for sub in w.subscribers):
                    await self.record_question(s)
                now = loop.time()
                if _digest(s) != digest or now - sent_at >= RESYNC_SECONDS:
                    if _digest(s) != digest:
                        await self.latest_notices(s)          # read before the pages get the state
                    w.last, digest, sent_at = s, _digest(s), now
                    for sub in list(w.subscribers):
                        sub.queue.put_nowait(s)
                if s.status in FINISHED:
                    break
                await asyncio.sleep(self.poll_s if s.status not in ENDED else self.poll_s * 2)
        finally:
            for sub in list(w.subscribers):
                sub.queue.put_nowait(None)   # the stream closes (finished, or the server stops)
            self.watchers.pop(w.workflow_id, None)

    async def close(self) -> None:
        self.stopping.set()
        for w in list(self.watchers.values()):
            for sub in list(w.subscribers):
                sub.queue.put_nowait(None)
            if w.task is not None:
                w.task.cancel()


ROOMS = web.AppKey("colloquy_rooms", Rooms)


# ---------------------------------------------------------------------------------------------- helpers
def _error(status: int, message: str, said: str | None = None) -> web.Response:
    """`said`: what the participant reads, in their language (`error`); the English `message` then goes in
    `detail`, as client/web/errors.py answers."""
    return web.json_response({"error": message} if said is None else {"error": said, "detail": message},
                             status=status)


def _temporal_error(exc: Exception, language: str | None = None) -> web.Response:
    """`language`: the participant's (client/web/errors.py `request_language`; None: English): a refused entry's
    reason is then worded in it (client/web/interview/refusals.py)."""
    if isinstance(exc, Busy):
        response = _error(429, str(exc))
        response.headers["Retry-After"] = str(exc.retry_after_s)
        return response
    if isinstance(exc, RPCError) and exc.status == RPCStatusCode.RESOURCE_EXHAUSTED:
        return _error(429, f"the Temporal server is busy with this interview: {error_message(exc)}")
    if isinstance(exc, RPCError) and exc.status == RPCStatusCode.NOT_FOUND:
        return _error(404, "no such interview")
    if isinstance(exc, WorkflowUpdateFailedError):
        message = error_message(exc)
        return _error(409 if "has ended" in message or "no longer" in message else 422, message,
                      refusal_text(exc, language))
    return _error(503, f"the Temporal server is not answering: {error_message(exc) if isinstance(exc, RPCError) else exc}")


async def _update_error(rooms: Rooms, wid: str, exc: Exception, language: str | None = None) -> web.Response:
    """An update the server refuses as NOT_FOUND because the run has closed is 409 (the interview has ended, as the
    docs say), not 404 (no such interview). `language`: as `_temporal_error`."""
    if isinstance(exc, RPCError) and exc.status == RPCStatusCode.NOT_FOUND:
        with contextlib.suppress(RPCError, ConnectionError, OSError):
            desc = await (await rooms.handle(wid)).describe()
            if desc.status is not None and desc.status.name != "RUNNING":
                return _error(409, f"the interview has ended ({desc.status.name.lower()}): nothing more is recorded",
                              ended_text(language))
    return _temporal_error(exc, language)


async def _json_body(request: web.Request) -> dict[str, Any]:
    """The JSON object sent (client/web/guard.py: JSON only, measured, no undecodable text) or a clear 4xx."""
    return await json_object(request)


def _room_guard(request: web.Request) -> str:
    """The workflow id, when the key in the path opens it (else 404: a wrong key says nothing)."""
    wid, key = request.match_info["wid"], request.match_info["key"]
    if not hmac.compare_digest(key.encode(), room_key(request.app[ROOMS].secret, wid).encode()):
        raise web.HTTPNotFound(text=json.dumps({"error": "no such interview room (check the link)"}),
                               content_type="application/json")
    return wid


def _asset(name: str) -> str:
    return resources.files("client.web").joinpath(name).read_text(encoding="utf-8")


def _page(name: str, request: web.Request | None = None, text: str | None = None) -> web.Response:
    text = text if text is not None else _asset(name)
    text = text if request is None else with_csrf(request, text)
    return web.Response(text=text, content_type="text/html", headers={
        "Cache-Control": "no-store", "Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:"})


async def _sse(request: web.Request, wid: str, interviewee: bool,
               render: Callable[[SessionState], dict[str, Any]]) -> web.StreamResponse:
    rooms = request.app[ROOMS]
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store",
                                           "X-Accel-Buffering": "no"})
    await response.prepare(request)
    sub = rooms.subscribe(wid, interviewee)
    try:
        await response.write(b"retry: 2000\n\n")
        while not rooms.stopping.is_set():
            try:
                s = await asyncio.wait_for(sub.queue.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                await response.write(b": keepalive\n\n")
                continue
            if s is None:
                await response.write(b"event: closed\ndata: {}\n\n")
                break
            await response.write(f"event: state\ndata: {json.dumps(render(s))}\n\n".encode())
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        rooms.unsubscribe(wid, sub)
    return response
