"""Study mode in `colloquy serve` (an extension of client/web/app.py, like the interview room):

    GET/POST /study/{sid}/join/{token}, POST /study/{sid}/check/{token}
                                         the participant's pages (client/web/study/pages.py): consent, their
                                         language, the interview room, member checking after the interview;
                                         once the study has ended (no update taken) the posts say what is
                                         true: the link's page "this study is closed" / "revoked" (not 404),
                                         the read-back door 409 "the study has closed" (not 503)
    GET  /studies/{sid}                  the researcher page (signed in): progress, completions, the findings
                                         draft, refreshed every few seconds as interviews finish
    GET  /api/studies/{sid}              what the researcher page shows (progress, participants, findings, plan, voice per language)
    POST /api/studies/{sid}/plan         {action: edit|approve, plan}: the plan review (signed in, CSRF header)
    POST /api/studies/{sid}/themes       rename / merge / split a final theme: the findings re-rendered without
                                         the models (client/web/study/themes.py)
    GET  /api/studies/{sid}/report       the HTML report (also /findings.md, /findings.json) once analysed
    GET  /study-static/{name}            the researcher page's JS/CSS (package data: client/web/)

The study holds only the SHA-256 of each link's token, so the link cannot be rebuilt from the workflow's history.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from aiohttp import web
from temporalio.client import WorkflowHandle, WorkflowQueryFailedError, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from client.web.app import authorised, public, with_csrf
from client.web.guard import as_model, json_object
from client.web.i18n import PAGE_LANGUAGES
from client.web.interview.sessions import LazyClient
from client.web.study.pages import (
    STUDIES,
    Studies,
    join_page,
    join_start,
    member_check,
    page_language,
    refused,
    token_sha256,
)
from client.web.study.themes import current_findings, edit_theme, edited_text
from client.web.voice.offered import voice_summary
from models.study.workflow import (
    QUERY_EXPORT,
    QUERY_FINDINGS_DRAFT,
    QUERY_LINK,
    QUERY_PARTICIPANTS,
    QUERY_PLAN_REVIEW,
    QUERY_PROGRESS,
    UPDATE_REVIEW_PLAN,
    Findings,
    LinkView,
    ParticipantView,
    PlanReview,
    ReviewPlan,
    StudyExport,
    StudyProgress,
)
from rules.errors import error_message

STATIC = {"study.js", "study.css", "study.html", "study_check.js"}
Connect = Callable[[], Any]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
CLOSED = "the study has closed: answers can no longer be corrected or withdrawn"    # as rules/study/ledger.py says


# ------------------------------------------------------------------------------- after the study has ended
async def _ended(request: web.Request) -> str | None:
    """How the study's workflow ended (None: it runs, or no such study): once analysed it takes no update, and
    Temporal answers one with NOT_FOUND "workflow execution already completed"."""
    from client.study.connect import ended_status

    try:
        return await ended_status(await request.app[STUDIES].handle(request.match_info["sid"]))
    except (ConnectionError, OSError):
        return None


def after_the_end(handler: Handler, answer: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Handler:
    """A participant's door (client/web/study/pages.py) whose update failed as 404 or 503: if the study has ended,
    `answer` says what is true instead (its marks, public / form, are kept)."""
    @functools.wraps(handler)
    async def door(request: web.Request) -> web.StreamResponse:
        response = await handler(request)
        if response.status in (404, 503) and await _ended(request) is not None:
            return await answer(request)
        return response

    return door


async def _link_after_the_end(request: web.Request) -> web.StreamResponse:
    """The link's page after the end: its real state (closed, revoked, withdrawn, ended), from the link query a
    worker still answers; a link never opened is "this study is closed"."""
    lang = page_language(request, None)
    try:
        h = await request.app[STUDIES].handle(request.match_info["sid"])
        link: LinkView = await h.query(QUERY_LINK, token_sha256(request.match_info["token"]), result_type=LinkView)
    except (RPCError, WorkflowQueryFailedError, ConnectionError, OSError):
        link = LinkView(status="closed")
    lang = page_language(request, link) if link.status != "unknown" else lang
    shown = {"invited": "closed", "not_open": "closed", "started": "abandoned", "completed": "abandoned"}
    return refused(request, LinkView(status=shown.get(link.status, link.status)), lang)  # type: ignore[arg-type]


async def _check_after_the_end(request: web.Request) -> web.StreamResponse:
    return web.json_response({"error": CLOSED}, status=409)


# ------------------------------------------------------------------------------------------- researcher
@public
async def researcher_page(request: web.Request) -> web.Response:
    if not authorised(request):
        raise web.HTTPSeeOther(f"/login?next=/studies/{request.match_info['sid']}")
    return web.Response(text=with_csrf(request, _asset("study.html")), content_type="text/html", headers={
        "Cache-Control": "no-store", "Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'self'; style-src 'self'; script-src 'self'"})


async def study_data(request: web.Request) -> web.Response:
    sid = request.match_info["sid"]
    try:
        h = await request.app[STUDIES].handle(sid)
        progress = await h.query(QUERY_PROGRESS, result_type=StudyProgress)
        participants = await h.query(QUERY_PARTICIPANTS, result_type=list[ParticipantView])
        findings = await h.query(QUERY_FINDINGS_DRAFT, result_type=Findings)
        plan = await h.query(QUERY_PLAN_REVIEW, result_type=PlanReview)
    except RPCError as exc:
        if exc.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
            return web.json_response({"error": f"no study {sid}"}, status=404)
        return web.json_response({"error": error_message(exc)}, status=503)
    except WorkflowQueryFailedError:
        return web.json_response({"error": f"{sid} is not a study"}, status=404)
    except (ConnectionError, OSError) as exc:
        return web.json_response({"error": str(exc)}, status=503)
    if progress.outputs is not None:
        try:
            findings = current_findings(sid, progress.outputs)
        except Exception:  # noqa: BLE001  (the store is on the worker's disk: the workflow's copy then)
            pass
    return web.json_response({"progress": progress.model_dump(mode="json"),
                              "participants": [p.model_dump(mode="json") for p in participants],
                              "findings": findings.model_dump(mode="json"),
                              "plan": plan.model_dump(mode="json") if plan.review else None,
                              "voice": voice_summary([*PAGE_LANGUAGES, *progress.languages]),
                              "report": f"/api/studies/{sid}/report" if progress.outputs else None})


async def plan_review(request: web.Request) -> web.Response:
    """The researcher edits (question texts, validated by the study) or approves the plan."""
    req = as_model(ReviewPlan, await json_object(request), "plan review")
    try:
        review = await (await request.app[STUDIES].handle(request.match_info["sid"])).execute_update(
            UPDATE_REVIEW_PLAN, req, result_type=PlanReview)
    except WorkflowUpdateFailedError as exc:
        return web.json_response({"error": error_message(exc)}, status=409)
    except (RPCError, ConnectionError, OSError) as exc:
        ended = await _ended(request) if isinstance(exc, RPCError) else None
        if ended is not None:
            return web.json_response({"error": f"study {request.match_info['sid']} has ended ({ended}): its plan "
                                      "can no longer change"}, status=409)
        return web.json_response({"error": error_message(exc) if isinstance(exc, RPCError) else str(exc)},
                                 status=503)
    return web.json_response(review.model_dump(mode="json"))


async def themes(request: web.Request) -> web.Response:
    try:
        h = await request.app[STUDIES].handle(request.match_info["sid"])
        progress = await h.query(QUERY_PROGRESS, result_type=StudyProgress)
        export = await h.query(QUERY_EXPORT, result_type=StudyExport) if progress.outputs is not None else None
    except (RPCError, ConnectionError, OSError) as exc:
        return web.json_response({"error": error_message(exc) if isinstance(exc, RPCError) else str(exc)},
                                 status=503)
    corrections = {p.participant_id: p.corrections for p in export.participants if p.corrections} if export else {}
    return await edit_theme(request, progress.outputs, corrections)


async def study_output(request: web.Request) -> web.Response:
    from client.artifacts import read_artifact_text
    from client.errors import CliError

    sid, name = request.match_info["sid"], request.match_info.get("name", "report")
    try:
        handle = await request.app[STUDIES].handle(sid)
        progress = await handle.query(QUERY_PROGRESS, result_type=StudyProgress)
    except (RPCError, ConnectionError, OSError) as exc:
        return web.json_response({"error": error_message(exc) if isinstance(exc, RPCError) else str(exc)},
                                 status=404 if isinstance(exc, RPCError) and exc.status == RPCStatusCode.NOT_FOUND
                                 else 503)
    if progress.outputs is None:
        return web.json_response({"error": f"study {sid} has no report yet ({progress.phase})"}, status=409)
    ref, kind = {"report": (progress.outputs.report_html, "text/html"),
                 "findings.md": (progress.outputs.findings_md, "text/markdown"),
                 "findings.json": (progress.outputs.findings_json, "application/json")}[name]
    try:  # the researcher's edited themes if any; this server's artifact store when it holds the ref (shared
        # object storage), else a worker
        text = edited_text(sid, name) or await read_artifact_text(await request.app[STUDIES].client(), ref,
                                                                  lambda: _queue_of(handle))
    except (CliError, RPCError, ConnectionError, OSError) as exc:
        return web.json_response({"error": f"{ref.name} is not readable by this server: {exc}"}, status=404)
    headers = {"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"} if kind == "text/html" else {}
    return web.Response(text=text, content_type=kind, charset="utf-8", headers=headers)


async def _queue_of(handle: WorkflowHandle) -> str:
    return (await handle.describe()).task_queue


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
        r.add_post("/study/{sid}/join/{token}", after_the_end(join_start, _link_after_the_end))
        r.add_post("/study/{sid}/check/{token}", after_the_end(member_check, _check_after_the_end))
        r.add_get("/studies/{sid}", researcher_page)
        r.add_get("/api/studies/{sid}", study_data)
        r.add_post("/api/studies/{sid}/plan", plan_review)
        r.add_post("/api/studies/{sid}/themes", themes)
        r.add_get("/api/studies/{sid}/report", study_output)
        r.add_get("/api/studies/{sid}/{name:findings\\.md|findings\\.json}", study_output)
        r.add_get("/study-static/{name}", static_asset)

    return extend


