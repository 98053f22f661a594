"""The participant's pages of a study (public: the link's token is the capability), in their language:

    GET  /study/{sid}/join/{token}[?lang=xx]   invited: the topic, the interview's length, the consent text (in
                        the page's language) with a required checkbox `consent`; started: → their interview room;
                        completed: their transcript to read back, correct or withdraw (member checking);
                        revoked, unknown, closed, ended, not yet open: refused (403 / 404 / 410 / 409)
    POST /study/{sid}/join/{token}             form: language, consent, consent_language, consent_sha256 → the
                        study's `open_link` update (refused without consent: the page again, nothing started)
    POST /study/{sid}/check/{token}            JSON {action: checked|correct|withdraw, entry_id, text} (the page's
                        X-Colloquy-CSRF header) → the `member_check` update

Pages come from Jinja2 templates (client/web/templates, autoescaped); strings from the message catalogs
(client/web/i18n.py, client/web/locale/); `<html lang>` and `dir` are the participant's language's (a language
without a catalog: `lang="en"`, and the page says it is shown in English).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from aiohttp import web
from pydantic import ValidationError
from temporalio.client import Client, WorkflowHandle, WorkflowQueryFailedError, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from client.web import errors
from client.web.app import csrf_token, public
from client.web.errors import participant_text, request_language
from client.web.guard import as_model, form_route, json_object
from client.web.i18n import (
    N_,
    PAGE_LANGUAGES,
    best_language,
    catalog_language,
    language_name,
    local_date,
    local_number,
    page_translations,
    render_page,
)
from client.web.interview.sessions import room_path
from client.web.voice.offered import voice_offered
from models.interview.entries import TranscriptEntry
from models.study.workflow import (
    QUERY_LINK,
    QUERY_MEMBER_CHECK,
    UPDATE_MEMBER_CHECK,
    UPDATE_OPEN_LINK,
    ConsentGiven,
    LinkView,
    MemberCheck,
    MemberCheckView,
    OpenedLink,
    OpenLink,
    StudyResult,
    check_language,
)
from rules.errors import error_message
from rules.study import consent as consent_rules

HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff",
           "Content-Security-Policy": "default-src 'self'; style-src 'self'; script-src 'self'; form-action 'self'"}
REFUSED = {"revoked": (403, N_("This link has been revoked."), N_("Ask the researcher for a new one if you still "
                                                                  "want to take part.")),
           "unknown": (404, N_("This study link is not valid."), N_("Check that you copied the whole link.")),
           "closed": (410, N_("This study is closed."), N_("It has all the participants it needs. Thank you!")),
           "abandoned": (410, N_("This interview has ended."), N_("Thank you for your time.")),
           "withdrawn": (410, N_("You have withdrawn from this study."), N_("Your answers are no longer part of "
                                                                            "it.")),
           "not_open": (409, N_("This study has not opened yet."), N_("The researcher is still reviewing its "
                                                                     "questions: please try again later."))}


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


def render(request: web.Request, template: str, lang: str, status: int = 200, **values: Any) -> web.Response:
    title = values.pop("title", N_("A research interview"))
    values.setdefault("banner_id", "banner")
    html = render_page(template, lang, csrf=csrf_token(request), title=page_translations(lang).gettext(title),
                       **values)
    return web.Response(status=status, text=html, content_type="text/html", headers=HEADERS)


def message(request: web.Request, lang: str, title: str, detail: str = "", status: int = 200,
            banner_id: str = "refused", **fmt: Any) -> web.Response:
    t = page_translations(lang)
    return render(request, "study_message.html", lang, status, title=title, message=t.gettext(title) % fmt if fmt
                  else t.gettext(title), detail=t.gettext(detail) % fmt if fmt and detail else t.gettext(detail)
                  if detail else "", banner_id=banner_id)


def refused(request: web.Request, link: LinkView, lang: str) -> web.Response:
    status, title, detail = REFUSED.get(link.status, REFUSED["unknown"])
    return message(request, lang, title, detail, status)


def _said(lang: str, english: str, sentence: str) -> str:
    """What a page says of a failure: the server's English words on an English page, else the sentence from the
    participant's catalog (client/web/errors.py); never English on a translated page."""
    return english if catalog_language(lang) == "en" else participant_text(sentence, catalog_language(lang))


def unavailable(request: web.Request, lang: str, exc: Exception) -> web.Response:
    error = _said(lang, error_message(exc) if isinstance(exc, RPCError) else str(exc), errors.AWAY)
    return message(request, lang, N_("Please try again in a moment"),
                   N_("The study service is not answering: %(error)s"),
                   503, banner_id="banner", error=error)


async def _handle(request: web.Request) -> WorkflowHandle:
    return await request.app[STUDIES].handle(request.match_info["sid"])


async def _query(request: web.Request, name: str, kind: type) -> Any:
    h = await _handle(request)
    try:
        return await h.query(name, token_sha256(request.match_info["token"]), result_type=kind)
    except RPCError as exc:
        if exc.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
            return None
        raise
    except WorkflowQueryFailedError:        # not a study (an interview's id, say): no such link
        return None


def offered(link: LinkView) -> list[str]:
    """The languages a participant may choose: the study's list, else its default language and the catalogs'."""
    langs = link.languages or ([link.language] if link.language else [])
    return langs or list(dict.fromkeys([link.default_language, *PAGE_LANGUAGES]))


def page_language(request: web.Request, link: LinkView | None) -> str:
    langs = offered(link) if link is not None else list(PAGE_LANGUAGES)
    asked = request.query.get("lang", "")
    if asked in langs:
        return asked
    if link is not None and link.language:
        return link.language
    return best_language(langs, request.headers.get("Accept-Language", "")) or (
        link.default_language if link is not None else "en")


@public
async def join_page(request: web.Request) -> web.Response:
    lang = page_language(request, None)
    try:
        link = await _query(request, QUERY_LINK, LinkView) or LinkView(status="unknown")
    except (RPCError, ConnectionError, OSError) as exc:
        return unavailable(request, lang, exc)
    lang = page_language(request, link)
    if link.status == "started" and link.interview_id:
        raise web.HTTPSeeOther(room_path(_secret(request), link.interview_id) + _lang(link.language))
    if link.status == "completed":
        return await check_page(request, lang)
    if link.status != "invited":
        return refused(request, link, lang)
    return join_form(request, link, lang)


def _secret(request: web.Request) -> bytes:
    return request.app[STUDIES].secret


def join_form(request: web.Request, link: LinkView, lang: str, error: str = "", status: int = 200) -> web.Response:
    consent_language, text = consent_rules.text_for_texts(link.consent, lang, link.default_language)
    minutes = max(1, round(link.interview_seconds / 60))
    return render(request, "study_join.html", lang, status, topic=link.topic, pseudonym=link.participant_id or "",
                  minutes=minutes, minutes_text=local_number(minutes, lang), languages=[
                      (code, language_name(code, code)) for code in offered(link)],
                  language_name=language_name(lang, lang, in_sentence=True), closes=local_date(link.close_at, lang),
                  consent_language=consent_language, consent_text=text,
                  consent_elsewhere=_base(consent_language) != _base(lang),
                  consent_language_name=language_name(consent_language, lang, in_sentence=True),
                  consent_sha256=consent_rules.sha256(text), error=error, voice_offered=voice_offered(lang))


def _base(code: str) -> str:
    return code.replace("_", "-").split("-")[0].lower()


@public
@form_route
async def join_start(request: web.Request) -> web.Response:
    form = await request.post()
    try:
        language = check_language(str(form.get("language", "")).strip() or None)
    except ValueError:
        language = None
    lang = language or "en"
    given = None
    if form.get("consent") == "yes":
        try:
            given = ConsentGiven(language=str(form.get("consent_language", "")) or lang,
                                 sha256=str(form.get("consent_sha256", "")))
        except ValidationError:
            given = None
    if given is None:        # refused here: nothing is sent to the study, nothing starts
        try:
            link = await _query(request, QUERY_LINK, LinkView) or LinkView(status="unknown")
        except (RPCError, ConnectionError, OSError) as exc:
            return unavailable(request, lang, exc)
        if link.status != "invited":
            return refused(request, link, lang)
        return join_form(request, link, lang, page_translations(lang).gettext(
            "Please tick the consent box to start the interview."), 400)
    try:
        opened: OpenedLink = await (await _handle(request)).execute_update(
            UPDATE_OPEN_LINK, OpenLink(token_sha256=token_sha256(request.match_info["token"]), language=language,
                                       consent=given), result_type=OpenedLink)
    except WorkflowUpdateFailedError as exc:
        text = error_message(exc)
        kind = "revoked" if "revoked" in text else "not_open" if "reviewed" in text else "closed" if "closed" in \
            text else "unknown" if "no such" in text else None
        if kind:
            return refused(request, LinkView(status=kind), lang)  # type: ignore[arg-type]
        return message(request, lang, N_("This link cannot be used"), _said(lang, text, errors.REFUSED), 409,
                       banner_id="banner")
    except RPCError as exc:
        if exc.status == RPCStatusCode.NOT_FOUND:
            return refused(request, LinkView(status="unknown"), lang)
        return unavailable(request, lang, exc)
    except (ConnectionError, OSError) as exc:
        return unavailable(request, lang, exc)
    raise web.HTTPSeeOther(room_path(_secret(request), opened.interview_id) + _lang(opened.language))


def _lang(language: str | None) -> str:
    """The room hears and speaks the participant's language (docs/voice.md): `?lang=` on the room link."""
    return f"?lang={quote(language, safe='-')}" if language else ""


# ------------------------------------------------------------------------------------------ member checking
def _entries(view: MemberCheckView) -> list[TranscriptEntry]:
    from activities.artifacts import store

    if view.transcript is None:
        return []
    return [TranscriptEntry.model_validate(e) for e in json.loads(store().get(view.transcript))]


def _last_correction(view: MemberCheckView, entries: list[TranscriptEntry]) -> int | None:
    """The number (1, 2, …: in the order of the participant's answers) of the answer whose correction was the
    participant's last step on the page — None when confirming came after it, or nothing was corrected."""
    if not view.corrections:
        return None
    last = view.corrections[-1]
    if view.checked_at is not None and last.at is not None and view.checked_at > last.at:
        return None
    answers = [e.entry_id for e in entries if e.speaker == "interviewee"]
    return answers.index(last.entry_id) + 1 if last.entry_id in answers else None


async def check_page(request: web.Request, lang: str) -> web.Response:
    t = page_translations(lang)
    try:
        view: MemberCheckView | None = await _query(request, QUERY_MEMBER_CHECK, MemberCheckView)
        entries = _entries(view) if view is not None else []
    except (RPCError, ConnectionError, OSError) as exc:
        return unavailable(request, lang, exc)
    if view is None or view.status != "completed":
        return refused(request, LinkView(status="withdrawn" if view and view.status == "withdrawn" else "unknown"),
                       lang)
    corrections: dict[str, list[dict[str, str]]] = {}
    for c in view.corrections:
        corrections.setdefault(c.entry_id, []).append({"text": c.text, "date": local_date(c.at, lang, True)})
    saved = _last_correction(view, entries)
    if not view.study_open:
        status_line = t.gettext("The study has closed: your answers can no longer be changed.")
    elif saved is not None:
        status_line = t.gettext("Your correction to answer %(n)s was saved; the analysis will use your words.") % {
            "n": saved}
    elif view.checked_at is not None:
        status_line = t.gettext("You confirmed your answers on %(date)s. Thank you!") % {
            "date": local_date(view.checked_at, lang, True)}
    else:
        status_line = t.gettext("Thank you for taking part. You can read back your interview below.")
    return render(request, "study_check.html", lang, title=N_("Your interview"), entries=entries,
                  corrections=corrections, can_change=view.study_open, status_line=status_line)


@public
async def member_check(request: web.Request) -> web.Response:
    body = await json_object(request)
    req = as_model(MemberCheck, {**{k: body.get(k) for k in ("action", "entry_id", "text")},
                                 "token_sha256": token_sha256(request.match_info["token"])}, "member check")
    try:
        h = await _handle(request)
        if req.action == "correct":      # only the participant's own answers can be corrected
            view = await h.query(QUERY_MEMBER_CHECK, req.token_sha256, result_type=MemberCheckView)
            own = {e.entry_id for e in _entries(view) if e.speaker == "interviewee"}
            if req.entry_id not in own:
                return _check_error(400, N_("Only your own answers can be corrected."), view.language)
        done = await h.execute_update(UPDATE_MEMBER_CHECK, req, result_type=MemberCheckView)
    except WorkflowUpdateFailedError as exc:
        return _check_error(409, error_message(exc), request_language(request), errors.REFUSED)
    except (RPCError, ConnectionError, OSError) as exc:
        return _check_error(503, error_message(exc) if isinstance(exc, RPCError) else str(exc),
                            request_language(request), errors.AWAY)
    return web.json_response(done.model_dump(mode="json", include={"status", "checked_at", "withdrawn_at"}))


def _check_error(status: int, english: str, language: str | None, sentence: str | None = None) -> web.Response:
    """A member check's failure as the read-back page shows it (study_check.js): in the participant's language, the
    server's English words kept in `detail` (`sentence`: what they read instead; None: `english` is a msgid)."""
    lang = catalog_language(language)
    if lang == "en":
        return web.json_response({"error": english}, status=status)
    said = participant_text(sentence or english, lang)
    return web.json_response({"error": said, "detail": english} if sentence else {"error": said}, status=status)
