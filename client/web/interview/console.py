"""The interviewer console of `colloquy serve` (signed in: the serve token's cookie): the page, everything it
shows, its stream, controls, the essay and the interviewee link. Routes: client/web/interview/room.py's docstring."""

from __future__ import annotations

from urllib.parse import quote

from aiohttp import web
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.service import RPCError

from client.web.app import authorised, public
from client.web.guard import as_model
from client.web.interview.sessions import (
    ROOMS,
    _error,
    _json_body,
    _page,
    _sse,
    _temporal_error,
    _update_error,
    room_path,
    room_view,
)
from client.web.interview.updates import Busy
from models.interview.entries import (
    SessionControl,
    TranscriptView,
)
from models.interview.names import (
    CONTROL_ACTIONS,
    QUERY_NOTES,
    QUERY_PLAN,
    QUERY_SESSION_STATE,
    QUERY_TRANSCRIPT,
    UPDATE_SESSION_CONTROL,
)
from models.interview.notes import NotesState
from models.interview.plan import PlanSnapshot
from models.interview.workflow import InterviewResult, SessionState
from models.web import ControlBody
from rules.text import escape_raw_html


# -------------------------------------------------------------------------------------- console
@public
async def console_page(request: web.Request) -> web.Response:
    if not authorised(request):
        raise web.HTTPSeeOther(f"/login?next=/console/{quote(request.match_info['wid'], safe='')}")
    return _page("console.html", request)


async def console_data(request: web.Request) -> web.Response:
    wid, rooms = request.match_info["wid"], request.app[ROOMS]
    try:
        h = await rooms.handle(wid)
        s = await h.query(QUERY_SESSION_STATE, result_type=SessionState)
        transcript = await h.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        notes = await h.query(QUERY_NOTES, result_type=NotesState)
        plan = await h.query(QUERY_PLAN, result_type=PlanSnapshot | None)  # type: ignore[arg-type]
        essay = await _essay_ref(h) if s.status == "COMPLETED" else None
        notices = await rooms.latest_notices(s)
    except (RPCError, ConnectionError, OSError) as exc:
        return _temporal_error(exc)
    asked = set(s.asked_question_ids)
    coverage = [{"id": sec.id, "title": sec.title,
                 "questions": [{"id": q.id, "text": q.text, "priority": q.priority, "asked": q.id in asked}
                               for q in sec.questions]} for sec in (plan.sections if plan else [])]
    return web.json_response({
        "state": s.model_dump(mode="json"), "room": room_view(s, notices), "coverage": coverage, "notices": notices,
        "transcript": [e.model_dump(mode="json") for e in transcript.entries],
        "transcript_total": transcript.total_entries, "notes": notes.model_dump(mode="json"),
        "room_link": str(request.url.with_path(room_path(rooms.secret, wid)).with_query(None)),
        "essay": None if essay is None else {"url": f"/api/interviews/{wid}/essay", "title": essay[0],
                                             "name": essay[1]},
    })


async def _essay_ref(h: WorkflowHandle) -> tuple[str, str] | None:
    result: InterviewResult = await h.result()
    return (result.title, result.essay.name) if result.essay else None


async def console_stream(request: web.Request) -> web.StreamResponse:
    return await _sse(request, request.match_info["wid"], False, lambda s: s.model_dump(mode="json"))


async def console_control(request: web.Request) -> web.Response:
    wid, rooms = request.match_info["wid"], request.app[ROOMS]
    data = await _json_body(request)
    action = as_model(ControlBody, data, "control").action
    if action not in CONTROL_ACTIONS:
        return _error(400, f"action must be one of {', '.join(CONTROL_ACTIONS)}")
    try:
        s = await rooms.update(wid, UPDATE_SESSION_CONTROL,
                               SessionControl(action=action, reason="interviewer console"), SessionState)
    except (RPCError, WorkflowUpdateFailedError, ConnectionError, OSError, Busy) as exc:
        return await _update_error(rooms, wid, exc)
    return web.json_response(s.model_dump(mode="json"))


async def console_essay(request: web.Request) -> web.Response:
    from client.artifacts import read_artifact_text
    from client.errors import CliError

    wid, rooms = request.match_info["wid"], request.app[ROOMS]
    try:
        h = await rooms.handle(wid)
        desc = await h.describe()
        if desc.status is None or desc.status.name != "COMPLETED":
            return _error(409, f"{wid} has no essay yet ({desc.status.name.lower() if desc.status else 'unknown'})")
        result: InterviewResult = await h.result()
    except (RPCError, ConnectionError, OSError) as exc:
        return _temporal_error(exc)
    if result.essay is None:
        return _error(404, f"{wid} ended without an essay: {result.error or result.exit_reason}")
    try:  # this server's artifact store when it holds the essay (shared object storage), else a worker
        text = await read_artifact_text(await rooms.client(), result.essay, lambda: _queue_of(h))
    except (CliError, RPCError, ConnectionError, OSError) as exc:
        return _error(404, f"the essay artifact {result.essay.name} is not readable by this server: {exc}")
    # Answers are the interviewee's words: whatever HTML they hold is shown as text, never run or rendered.
    return web.Response(text=escape_raw_html(text), content_type="text/plain", charset="utf-8", headers={
        "Content-Disposition": f'inline; filename="{_safe_name(wid)}-essay.md"', "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox", "Cache-Control": "no-store"})


async def _queue_of(handle: WorkflowHandle) -> str:
    return (await handle.describe()).task_queue


def _safe_name(wid: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in wid)[:100]


async def room_link(request: web.Request) -> web.Response:
    wid = request.match_info["wid"]
    path = room_path(request.app[ROOMS].secret, wid)
    return web.json_response({"workflow_id": wid, "url": str(request.url.with_path(path).with_query(None))})
