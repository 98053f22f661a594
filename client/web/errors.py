"""What `colloquy serve` answers when a Temporal call behind a page or API fails in an expected way: a clear 4xx
(429 when the server is busy with that workflow, 503 when the server is away), never a 500 with a traceback. Used by the guard middleware (client/web/app.py)
for whatever a handler did not catch itself, e.g. a discussion's id on the interview console API (its queries do
not exist there) or an interview's id on a study route.

A participant reads these in their language: when the request names one with a catalog (`?lang=`, or on a
participant's public route the browser's Accept-Language) and it is not English, `error` is one of the sentences
below from that language's catalog (client/web/locale/) and `detail` keeps the server's own English words for
whoever reads the log. English requests (the CLI, the console) get the English detail in `error`, as before."""

from __future__ import annotations

from aiohttp import web
from pydantic import ValidationError
from temporalio.client import WorkflowFailureError, WorkflowQueryFailedError, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from client.web.i18n import N_, PAGE_LANGUAGES, best_language, catalog_language, page_translations
from rules.errors import error_message

#: what a participant reads, per kind of failure (the catalogs translate them; the English detail goes in `detail`)
BUSY = N_("The server is busy right now. Please try again in a moment.")
AWAY = N_("The server is not answering right now. Please try again in a few minutes.")
NOT_FOUND = N_("This was not found. Please check the link you were given.")
WRONG_KIND = N_("This link does not lead to this kind of page. Please check the link you were given.")
REFUSED = N_("This was not accepted. Please reload the page to see where things stand.")
FAILED = N_("Something went wrong on the server. Please try again later; if it happens again, tell the researcher.")
BAD_FORM = N_("The form could not be read. Please reload the page and try again.")


def request_language(request: web.Request) -> str | None:
    """The participant's language a request names (`?lang=`, else on a public route the browser's Accept-Language,
    among the catalogs' languages) when it is not English; None: answer in English."""
    asked = request.query.get("lang", "").strip()
    if not asked and getattr(getattr(request.match_info, "handler", None), "colloquy_public", False):
        asked = best_language(list(PAGE_LANGUAGES), request.headers.get("Accept-Language", "")) or ""
    lang = catalog_language(asked) if asked else "en"
    return None if lang == "en" else lang


def participant_text(message: str, language: str | None) -> str:
    """One of the sentences above in a participant's language (English when None)."""
    return page_translations(language).gettext(message) if language else message


def answer_for(exc: BaseException, language: str | None = None) -> web.Response | None:
    """The response for an expected failure, else None (a real bug: the caller logs it). `language`: the
    participant's (request_language): `error` is then said in it, the English detail kept in `detail`."""
    found = _answer(exc)
    if found is None:
        return None
    status, message, said = found
    if language is None:
        return web.json_response({"error": message}, status=status)
    return web.json_response({"error": participant_text(said, language), "detail": message}, status=status)


def _answer(exc: BaseException) -> tuple[int, str, str] | None:
    """(status, the English detail, what a participant reads) for an expected failure."""
    if isinstance(exc, WorkflowQueryFailedError):
        return (404, f"that workflow cannot answer this page's questions (is it the right kind of run?): "
                     f"{str(exc.message)[:300]}", WRONG_KIND)
    if isinstance(exc, WorkflowUpdateFailedError):
        return 422, error_message(exc)[:500], REFUSED
    if isinstance(exc, WorkflowFailureError):
        return 409, f"that workflow failed: {error_message(exc)[:300]}", FAILED
    if isinstance(exc, RPCError):
        if exc.status == RPCStatusCode.RESOURCE_EXHAUSTED:
            return (429, f"the Temporal server is busy with that workflow, try again in a moment: "
                         f"{exc.message[:200]}", BUSY)
        if exc.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
            return 404, f"no such workflow ({exc.message[:200]})", NOT_FOUND
        return 503, f"the Temporal server is not answering: {exc.message[:200]}", AWAY
    if isinstance(exc, ValidationError) or (isinstance(exc, RuntimeError) and "decod" in str(exc).lower()):
        return 404, "that workflow's answer is not what this page expects (is it the right kind of run?)", WRONG_KIND
    if isinstance(exc, ConnectionError | OSError | TimeoutError):
        return 503, f"the Temporal server is not answering: {str(exc)[:200]}", AWAY
    if isinstance(exc, ValueError) and _raised_by_aiohttp(exc):
        # a malformed form body (multipart without its boundary, a part without a name): the sender's mistake
        return 400, f"the body is not a well-formed form: {str(exc)[:200]}", BAD_FORM
    return None


def _raised_by_aiohttp(exc: BaseException) -> bool:
    """True when the innermost frame of the error is aiohttp's own (its body parsers), not Colloquy's code."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and "/aiohttp/" in tb.tb_frame.f_code.co_filename.replace("\\", "/")
