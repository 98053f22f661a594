"""Study mode in `colloquy serve` (an extension of client/webapp.py, like the interview room):

    GET  /study/{sid}/join/{token}       a participant's link (public: the token is the capability). Shows the
                                         study's topic and a language choice; revoked, unknown, closed or ended
                                         links are refused (403 / 404 / 410). Nothing starts on GET.
    POST /study/{sid}/join/{token}       form `language`: the study's `open_link` update starts (or finds) the
                                         participant's interview → 303 to its interview room (/room/ID/KEY)
    GET  /studies/{sid}                  the researcher page (signed in): progress, completions, the findings
                                         draft, refreshed every few seconds as interviews finish
    GET  /api/studies/{sid}              what the researcher page shows (progress, participants, findings)
    GET  /api/studies/{sid}/report       the HTML report (also /findings.md, /findings.json) once analysed
    GET  /study-static/{name}            the researcher page's JS/CSS (package data: client/web/)

The study holds only the SHA-256 of each link's token, so the link cannot be rebuilt from the workflow's history.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Callable
from importlib import resources
from typing import Any
from urllib.parse import quote

from aiohttp import web
from temporalio.client import Client, WorkflowHandle, WorkflowQueryFailedError, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from client.room import LazyClient, room_path
from client.web_guard import form_route
from client.webapp import authorised, public
from models.study import (
    QUERY_FINDINGS_DRAFT,
    QUERY_LINK,
    QUERY_PARTICIPANTS,
    QUERY_PROGRESS,
    UPDATE_OPEN_LINK,
    Findings,
    LinkView,
    OpenedLink,
    OpenLink,
    ParticipantView,
    StudyProgress,
    StudyResult,
    check_language,
)
from rules.errors import error_message

STATIC = {"study.js", "study.css", "study.html"}
Connect = Callable[[], Any]


class Studies:
    def __init__(self, client: Connect, secret: bytes) -> None:
        self.client, self.secret = client, secret

    async def handle(self, sid: str) -> WorkflowHandle:
        c: Client = await self.client()
        return c.get_workflow_handle(sid, result_type=StudyResult)


STUDIES = web.AppKey("colloquy_studies", Studies)


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


_SHELL = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>
<link rel="stylesheet" href="/static/room.css"></head><body><header><h1>{title}</h1></header><main>{body}</main>
</body></html>"""


def _html(title: str, body: str, status: int = 200) -> web.Response:
    return web.Response(status=status, content_type="text/html", text=_SHELL.format(title=html.escape(title), body=body),
                        headers={"Cache-Control": "no-store", "Referrer-Policy": "same-origin",
                                 "X-Content-Type-Options": "nosniff",
                                 "Content-Security-Policy": "default-src 'self'; style-src 'self'; script-src 'self'; "
                                                            "form-action 'self'"})


REFUSED = {"revoked": (403, "This link has been revoked.", "Ask the researcher for a new one if you still want to "
                       "take part."),
           "unknown": (404, "This study link is not valid.", "Check that you copied the whole link."),
           "closed": (410, "This study is closed.", "It has all the participants it needs. Thank you!"),
           "completed": (410, "You have already taken part.", "Thank you: your interview is complete."),
           "abandoned": (410, "This interview has ended.", "Thank you for your time.")}


async def _link(request: web.Request) -> tuple[str, str, LinkView]:
    sid, token = request.match_info["sid"], request.match_info["token"]
    h = await request.app[STUDIES].handle(sid)
    try:
        link = await h.query(QUERY_LINK, token_sha256(token), result_type=LinkView)
    except RPCError as exc:
        if exc.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
            return sid, token, LinkView(status="unknown")
        raise
    except WorkflowQueryFailedError:        # not a study (an interview's id, say): no such link
        return sid, token, LinkView(status="unknown")
    return sid, token, link


def _refused(link: LinkView) -> web.Response:
    status, title, detail = REFUSED[link.status]
    return _html(title, f'<p class="banner" id="refused">{html.escape(title)}</p><p>{html.escape(detail)}</p>', status)


def _unavailable(exc: Exception) -> web.Response:
    return _html("Please try again in a moment", f"<p>The study service is not answering: "
                 f"{html.escape(error_message(exc) if isinstance(exc, RPCError) else str(exc))}</p>", 503)


@public
async def join_page(request: web.Request) -> web.Response:
    try:
        sid, token, link = await _link(request)
    except (RPCError, ConnectionError, OSError) as exc:
        return _unavailable(exc)
    if link.status == "started" and link.interview_id:
        raise web.HTTPSeeOther(room_path(request.app[STUDIES].secret, link.interview_id) + _lang(link.language))
    if link.status != "invited":
        return _refused(link)
    languages = link.languages or ([link.language] if link.language else [])
    chosen = link.language or (languages[0] if languages else "en")
    if languages:
        options = "".join(f'<option value="{html.escape(lang)}"{" selected" if lang == chosen else ""}>'
                          f"{html.escape(lang)}</option>" for lang in languages)
        choice = f'<select id="language" name="language">{options}</select>'
    else:
        choice = (f'<input id="language" name="language" value="{html.escape(chosen)}" size="8" '
                  'autocomplete="off" aria-describedby="lang-hint">'
                  '<span class="hint" id="lang-hint"> a language code: en, de, fr, pt-BR …</span>')
    body = (f'<p class="meta">You are invited to a research interview about</p><p id="topic"><b>'
            f'{html.escape(link.topic)}</b></p><p>The interviewer asks questions on screen; you answer in writing, in '
            f'the language you choose. Your answers are kept as you write them and analysed under a pseudonym '
            f'({html.escape(link.participant_id or "")}).</p>'
            f'<form method="post"><label for="language">Your language</label>{choice}'
            f'<div class="row"><button id="start" type="submit">Start the interview</button></div></form>')
    return _html("A research interview", body)


@public
@form_route
async def join_start(request: web.Request) -> web.Response:
    sid, token = request.match_info["sid"], request.match_info["token"]
    form = await request.post()
    try:
        language = check_language(str(form.get("language", "")).strip() or None)
    except ValueError as exc:
        return _html("Choose a language", f"<p class=\"banner\">{html.escape(str(exc))}</p>", 400)
    studies = request.app[STUDIES]
    try:
        opened: OpenedLink = await (await studies.handle(sid)).execute_update(
            UPDATE_OPEN_LINK, OpenLink(token_sha256=token_sha256(token), language=language), result_type=OpenedLink)
    except WorkflowUpdateFailedError as exc:
        message = error_message(exc)
        kind = "revoked" if "revoked" in message else "closed" if "closed" in message else \
            "unknown" if "no such" in message else None
        if kind:
            return _refused(LinkView(status=kind))  # type: ignore[arg-type]
        return _html("This link cannot be used", f'<p class="banner">{html.escape(message)}</p>', 409)
    except RPCError as exc:
        if exc.status == RPCStatusCode.NOT_FOUND:
            return _refused(LinkView(status="unknown"))
        return _unavailable(exc)
    except (ConnectionError, OSError) as exc:
        return _unavailable(exc)
    raise web.HTTPSeeOther(room_path(studies.secret, opened.interview_id) + _lang(opened.language))


def _lang(language: str | None) -> str:
    """The room hears and speaks the participant's language (docs/voice.md): `?lang=` on the room link."""
    return f"?lang={quote(language, safe='-')}" if language else ""


# ------------------------------------------------------------------------------------------- researcher
@public
async def researcher_page(request: web.Request) -> web.Response:
    if not authorised(request):
        raise web.HTTPSeeOther(f"/login?next=/studies/{request.match_info['sid']}")
    return web.Response(text=_asset("study.html"), content_type="text/html", headers={
        "Cache-Control": "no-store", "Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'self'; style-src 'self'; script-src 'self'"})


async def study_data(request: web.Request) -> web.Response:
    sid = request.match_info["sid"]
    try:
        h = await request.app[STUDIES].handle(sid)
        progress = await h.query(QUERY_PROGRESS, result_type=StudyProgress)
        participants = await h.query(QUERY_PARTICIPANTS, result_type=list[ParticipantView])
        findings = await h.query(QUERY_FINDINGS_DRAFT, result_type=Findings)
    except RPCError as exc:
        if exc.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
            return web.json_response({"error": f"no study {sid}"}, status=404)
        return web.json_response({"error": error_message(exc)}, status=503)
    except WorkflowQueryFailedError:
        return web.json_response({"error": f"{sid} is not a study"}, status=404)
    except (ConnectionError, OSError) as exc:
        return web.json_response({"error": str(exc)}, status=503)
    return web.json_response({"progress": progress.model_dump(mode="json"),
                              "participants": [p.model_dump(mode="json") for p in participants],
                              "findings": findings.model_dump(mode="json"),
                              "report": f"/api/studies/{sid}/report" if progress.outputs else None})


async def study_output(request: web.Request) -> web.Response:
    from activities.artifacts import store

    sid, name = request.match_info["sid"], request.match_info.get("name", "report")
    try:
        progress = await (await request.app[STUDIES].handle(sid)).query(QUERY_PROGRESS, result_type=StudyProgress)
    except (RPCError, ConnectionError, OSError) as exc:
        return web.json_response({"error": error_message(exc) if isinstance(exc, RPCError) else str(exc)},
                                 status=404 if isinstance(exc, RPCError) and exc.status == RPCStatusCode.NOT_FOUND
                                 else 503)
    if progress.outputs is None:
        return web.json_response({"error": f"study {sid} has no report yet ({progress.phase})"}, status=409)
    ref, kind = {"report": (progress.outputs.report_html, "text/html"),
                 "findings.md": (progress.outputs.findings_md, "text/markdown"),
                 "findings.json": (progress.outputs.findings_json, "application/json")}[name]
    try:
        text = store().get(ref)
    except Exception as exc:  # noqa: BLE001  (the store is on the worker's disk: say so)
        return web.json_response({"error": f"{ref.name} is not readable by this server: {exc}"}, status=404)
    headers = {"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"} if kind == "text/html" else {}
    return web.Response(text=text, content_type=kind, charset="utf-8", headers=headers)


def _asset(name: str) -> str:
    return resources.files("client.web").joinpath(name).read_text(encoding="utf-8")


@public
async def static_asset(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in STATIC:
        raise web.HTTPNotFound()
    kind = {"css": "text/css", "js": "text/javascript", "html": "text/html"}[name.rsplit(".", 1)[1]]
    return web.Response(text=_asset(name), content_type=kind, headers={"Cache-Control": "no-cache"})


def study_extension(client: Connect | LazyClient, secret: bytes) -> Callable[[web.Application], None]:
    """The webapp extension adding participants' links and the researcher page (build_app(extensions=[...]))."""

    def extend(app: web.Application) -> None:
        app[STUDIES] = Studies(client, secret)
        r = app.router
        r.add_get("/study/{sid}/join/{token}", join_page)
        r.add_post("/study/{sid}/join/{token}", join_start)
        r.add_get("/studies/{sid}", researcher_page)
        r.add_get("/api/studies/{sid}", study_data)
        r.add_get("/api/studies/{sid}/report", study_output)
        r.add_get("/api/studies/{sid}/{name:findings\\.md|findings\\.json}", study_output)
        r.add_get("/study-static/{name}", static_asset)

    return extend


