"""What `colloquy serve` answers when a Temporal call behind a page or API fails in an expected way: a clear 4xx
(429 when the server is busy with that workflow, 503 when the server is away), never a 500 with a traceback. Used by the guard middleware (client/web/app.py)
for whatever a handler did not catch itself, e.g. a discussion's id on the interview console API (its queries do
not exist there) or an interview's id on a study route."""

from __future__ import annotations

from aiohttp import web
from pydantic import ValidationError
from temporalio.client import WorkflowFailureError, WorkflowQueryFailedError, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from rules.errors import error_message


def _json(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def answer_for(exc: BaseException) -> web.Response | None:
    """The response for an expected failure, else None (a real bug: the caller logs it)."""
    if isinstance(exc, WorkflowQueryFailedError):
        return _json(404, f"that workflow cannot answer this page's questions (is it the right kind of run?): "
                          f"{str(exc.message)[:300]}")
    if isinstance(exc, WorkflowUpdateFailedError):
        return _json(422, error_message(exc)[:500])
    if isinstance(exc, WorkflowFailureError):
        return _json(409, f"that workflow failed: {error_message(exc)[:300]}")
    if isinstance(exc, RPCError):
        if exc.status == RPCStatusCode.RESOURCE_EXHAUSTED:
            return _json(429, f"the Temporal server is busy with that workflow, try again in a moment: "
                              f"{exc.message[:200]}")
        if exc.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
            return _json(404, f"no such workflow ({exc.message[:200]})")
        return _json(503, f"the Temporal server is not answering: {exc.message[:200]}")
    if isinstance(exc, ValidationError) or (isinstance(exc, RuntimeError) and "decod" in str(exc).lower()):
        return _json(404, "that workflow's answer is not what this page expects (is it the right kind of run?)")
    if isinstance(exc, ConnectionError | OSError | TimeoutError):
        return _json(503, f"the Temporal server is not answering: {str(exc)[:200]}")
    if isinstance(exc, ValueError) and _raised_by_aiohttp(exc):
        # a malformed form body (multipart without its boundary, a part without a name): the sender's mistake
        return _json(400, f"the body is not a well-formed form: {str(exc)[:200]}")
    return None


def _raised_by_aiohttp(exc: BaseException) -> bool:
    """True when the innermost frame of the error is aiohttp's own (its body parsers), not Colloquy's code."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and "/aiohttp/" in tb.tb_frame.f_code.co_filename.replace("\\", "/")
