"""`colloquy notes serve`'s HTTP API (POST /ask, POST /answer/{id}, GET /context): a door onto the query
pipeline, each request one QueryWorkflow run."""

from __future__ import annotations

import asyncio

from client.query.library import (
    pending_clarification,
    query_handle,
    read_global_context,
    send_clarification,
    start_query,
    workflow_id_for,
)
from models.query.workflow import (
    WORKFLOW_TYPE,
)

API_MAX_BODY = 64 * 1024


async def wait_for_outcome(handle, wait_s: float, poll_s: float = 0.2) -> dict:  # noqa: ANN001
    """Wait up to wait_s for the query's result or a pending clarification; say which (JSON-ready)."""
    result_task = asyncio.ensure_future(handle.result())
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    try:
        while not result_task.done() and loop.time() < deadline:
            pending = await pending_clarification(handle)
            if pending is not None:
                return {"workflow_id": handle.id, "status": "waiting_user", "pending": pending.model_dump(mode="json")}
            await asyncio.wait([result_task], timeout=poll_s)
        if not result_task.done():
            return {"workflow_id": handle.id, "status": "running"}
        result = result_task.result()   # completed, or partial (a degraded answer that says what is missing)
        return {"workflow_id": handle.id, "status": result.colloquy_status, "result": result.model_dump(mode="json")}
    finally:
        if not result_task.done():
            result_task.cancel()


PATH_FIELDS = frozenset({"notes_dir", "directory", "notes_root", "path"})  # never taken from a request


def build_api(client, task_queue: str, app_id: str, notes_dir: str | None, wait_s: float = 30.0):  # noqa: ANN001, ANN201
    """The seed's two endpoints (§16.3) plus what a clarifying question needs (`client`: a Temporal client, or an
    async function returning one — `colloquy serve` connects on the first request):
    POST /input {"text", "session_context"?, "today"?, "time_zone"? | "utc_offset_minutes"?}
                                                        → 200 completed | 202 waiting_user/running
    POST /input/{workflow_id}/clarify {"answers": {...}} or {"decline": true} → same shapes; 409 if refused
    GET  /input/{workflow_id} → the same shapes, without starting anything
    GET  /context → the global context (text/markdown).
    The notes folder is the server's (`--notes-dir`, a folder inside the worker's notes root), never a request's:
    a body naming `notes_dir` (or any other path) is refused with 400."""
    from client.query.paths import notes_dir_for_worker

    notes_dir = notes_dir_for_worker(notes_dir)   # CliError at start-up when it lies outside the notes root
    from aiohttp import web
    from pydantic import ValidationError
    from temporalio.client import WorkflowFailureError, WorkflowQueryFailedError, WorkflowUpdateFailedError
    from temporalio.service import RPCError, RPCStatusCode

    from client.web.guard import as_model, json_object, same_site_only
    from models.query.workflow import MAX_INPUT_CHARS, ClarifyAnswer, QueryRequest
    from models.web import NotesInputBody
    from rules.query.apps import check_app_id
    from rules.query.clock import utc_offset_minutes

    def error(status: int, message: str) -> web.Response:
        return web.json_response({"error": message}, status=status)

    given = client

    async def temporal():  # noqa: ANN202
        return await given() if callable(given) else given

    async def body_json(request: web.Request) -> dict | web.Response:
        return await json_object(request)   # JSON only, measured, no undecodable text (client/web/guard.py)

    def outcome(data: dict) -> web.Response:
        return web.json_response(data, status=200 if "result" in data else 202)

    async def query_workflow(wf_id: str) -> web.Response | None:
        """None if wf_id names a query workflow (its registry: the server's workflows of type QueryWorkflow);
        otherwise the 404 to answer — an interview's or a writing run's id is not a query workflow."""
        try:
            desc = await query_handle(await temporal(), wf_id).describe()
        except RPCError as exc:
            if exc.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
                return error(404, f"no such query workflow: {wf_id}")
            raise
        if desc.workflow_type != WORKFLOW_TYPE:
            return error(404, f"no such query workflow: {wf_id} is not a query workflow ({desc.workflow_type})")
        return None

    async def guarded(handle) -> web.Response:  # noqa: ANN001
        try:
            return outcome(await wait_for_outcome(handle, wait_s))
        except WorkflowFailureError as exc:
            return error(422, str(getattr(exc.cause, "message", exc.cause)))
        except WorkflowQueryFailedError as exc:
            return error(409, f"the query workflow cannot answer now: {exc.message}")
        except RPCError as exc:
            return error(404, f"no such query workflow: {exc.message}")

    async def post_input(request: web.Request) -> web.Response:
        data = await body_json(request)
        if isinstance(data, web.Response):
            return data
        text = data.get("text")
        if not isinstance(text, str) or not text.strip():
            return error(400, "'text' is required: a note, a question, both, or a correction")
        if len(text) > MAX_INPUT_CHARS:
            return error(413, f"'text' is {len(text)} characters, over the {MAX_INPUT_CHARS} limit")
        as_model(NotesInputBody, data, "note")  # every field bounded (models/web.py): a clear 400
        if named := sorted(PATH_FIELDS & set(data)):
            return error(400, f"{', '.join(named)}: a request names no folder; the notes folder is the server's "
                         "(`colloquy serve --notes-dir`, inside the worker's notes root)")
        try:
            offset = data.get("utc_offset_minutes")
            if data.get("time_zone") is not None:
                offset = utc_offset_minutes(str(data["time_zone"]))
            req = QueryRequest(text=text, app_id=check_app_id(data.get("app_id", app_id)), notes_dir=notes_dir,
                               session_context=data.get("session_context"), today=data.get("today"),
                               utc_offset_minutes=offset or 0)
        except ValidationError as exc:
            return error(400, f"invalid input: {exc.errors(include_url=False)[0]['msg']}")
        except ValueError as exc:
            return error(400, f"invalid input: {exc}")
        handle = await start_query(await temporal(), req, workflow_id_for(req.app_id, text), task_queue)
        return await guarded(handle)

    async def post_clarify(request: web.Request) -> web.Response:
        data = await body_json(request)
        if isinstance(data, web.Response):
            return data
        try:
            answer = ClarifyAnswer.model_validate(data)
        except ValidationError as exc:
            return error(400, f"invalid answer: {exc.errors(include_url=False)[0]['msg']}")
        if (refused := await query_workflow(request.match_info["workflow_id"])) is not None:
            return refused
        handle = query_handle(await temporal(), request.match_info["workflow_id"])
        try:
            await send_clarification(handle, answer)
        except WorkflowUpdateFailedError as exc:
            return error(409, str(getattr(exc.cause, "message", exc.cause)))
        except RPCError as exc:
            return error(404, f"no such waiting query: {exc.message}")
        return await guarded(handle)

    async def get_input(request: web.Request) -> web.Response:
        if (refused := await query_workflow(request.match_info["workflow_id"])) is not None:
            return refused
        handle = query_handle(await temporal(), request.match_info["workflow_id"])
        return await guarded(handle)

    async def get_context(request: web.Request) -> web.Response:
        from client.errors import NoWorkerError

        try:  # through the worker: the notes live where it runs, not necessarily beside this server
            text = await read_global_context(await temporal(), task_queue, notes_dir)
        except WorkflowFailureError as exc:
            return error(500, str(getattr(exc.cause, "message", exc.cause)))
        except NoWorkerError as exc:
            return error(503, exc.message)
        return web.Response(text=text, content_type="text/markdown")

    api = web.Application(client_max_size=API_MAX_BODY, middlewares=[same_site_only])
    api.add_routes([web.post("/input", post_input), web.post("/input/{workflow_id}/clarify", post_clarify),
                    web.get("/input/{workflow_id}", get_input), web.get("/context", get_context)])
    return api
