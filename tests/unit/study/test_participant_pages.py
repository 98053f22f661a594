"""The participant's pages (client/web/study/pages.py) against a scripted study handle: consent required (nothing
starts without it), the page in the participant's language (catalog strings, <html lang>, language names, local
dates, the interview length), the member-checking page and its JSON door (CSRF header, own answers only)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from client.web.app import build_app
from client.web.i18n import best_language, language_name, page_translations
from client.web.study.routes import study_extension
from models.common import ArtifactRef
from models.study.workflow import (
    QUERY_LINK,
    QUERY_MEMBER_CHECK,
    UPDATE_MEMBER_CHECK,
    UPDATE_OPEN_LINK,
    LinkView,
    MemberCheck,
    MemberCheckView,
    OpenedLink,
    OpenLink,
)
from rules.study import consent

TOKEN = "researcher-token-for-tests"


class FakeStudy:
    def __init__(self, link: LinkView, member: MemberCheckView | None = None) -> None:
        self.link, self.member = link, member
        self.updates: list[tuple[str, Any]] = []

    async def query(self, name: str, arg: Any, result_type: Any = None) -> Any:
        return {QUERY_LINK: self.link, QUERY_MEMBER_CHECK: self.member}[name]

    async def execute_update(self, name: str, arg: Any, result_type: Any = None) -> Any:
        self.updates.append((name, arg))
        if name == UPDATE_OPEN_LINK:
            return OpenedLink(participant_id="P001", interview_id="s--P001", language=arg.language, new=True)
        assert name == UPDATE_MEMBER_CHECK
        return MemberCheckView(status="completed" if arg.action != "withdraw" else "withdrawn")


class FakeClient:
    """Stands in for the Temporal client: every workflow handle is `study` (any fake with query/update/describe)."""

    def __init__(self, study: Any) -> None:
        self.study = study

    def get_workflow_handle(self, sid: str, result_type: Any = None) -> Any:
        return self.study


async def _client(study: Any) -> TestClient:
    """The study pages of a serve app over `study`, started on a free port (the caller closes it)."""
    async def temporal() -> FakeClient:
        return FakeClient(study)

    http = TestClient(TestServer(build_app(TOKEN, None, [], extensions=[study_extension(temporal, b"s")]),
                                 host="127.0.0.1"))
    await http.start_server()
    return http


def _invited(**kw: Any) -> LinkView:
    return LinkView(status="invited", participant_id="P001", topic="On-call", languages=["en", "de", "fr"],
                    interview_seconds=900, consent=dict(consent.BUILT_IN),
                    close_at=datetime(2026, 12, 1, 18, tzinfo=UTC), **kw)


async def test_the_start_page_is_in_the_participants_language_with_consent():
    study = FakeStudy(_invited())
    http = await _client(study)
    try:
        r = await http.get("/study/s/join/tok", headers={"Accept-Language": "de-CH,de;q=0.9,en;q=0.5"})
        page = await r.text()
        assert r.status == 200 and '<html lang="de"' in page
        assert "Interview starten" in page and "etwa 15 Minuten" in page and "1. Dezember 2026" in page
        assert "Französisch" not in page and ">Français<" in page and ">Deutsch<" in page  # names in their own tongue
        assert 'name="consent"' in page and "required" in page and consent.BUILT_IN["de"] in page
        assert consent.sha256(consent.BUILT_IN["de"]) in page
        r = await http.get("/study/s/join/tok?lang=fr")
        page = await r.text()
        assert '<html lang="fr"' in page and "Commencer l'entretien" in page and "1 décembre 2026" in page
        # no consent: refused with a clear message in the page's language, nothing sent to the study
        r = await http.post("/study/s/join/tok", data={"language": "de"}, allow_redirects=False)
        assert r.status == 400 and "Bitte setzen Sie das Häkchen" in await r.text()
        assert study.updates == []
        r = await http.post("/study/s/join/tok", data={
            "language": "de", "consent": "yes", "consent_language": "de",
            "consent_sha256": consent.sha256(consent.BUILT_IN["de"])}, allow_redirects=False)
        assert r.status == 303 and r.headers["Location"].startswith("/room/s--P001/")
        [(name, opened)] = study.updates
        assert isinstance(opened, OpenLink) and opened.consent is not None and opened.consent.language == "de"
    finally:
        await http.close()


async def test_refusals_are_translated_and_not_open_before_approval():
    http = await _client(FakeStudy(LinkView(status="not_open")))
    try:
        r = await http.get("/study/s/join/tok?lang=es", headers={"Accept-Language": "es"})
        assert r.status == 409 and "Este estudio aún no está abierto." in await r.text()
    finally:
        await http.close()


async def test_member_checking_page_and_door(tmp_path, monkeypatch):
    from activities.artifacts import store

    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    ref: ArtifactRef = store().put("s", "transcript.json", json.dumps([
        {"entry_id": "q1", "speaker": "interviewer", "text": "How did it start?"},
        {"entry_id": "a1", "speaker": "interviewee", "text": "By accident, <b>really</b>."}]), "application/json")
    study = FakeStudy(LinkView(status="completed", participant_id="P001", language="fr"),
                      MemberCheckView(status="completed", participant_id="P001", language="fr", transcript=ref))
    http = await _client(study)
    try:
        r = await http.get("/study/s/join/tok")
        page = await r.text()
        assert r.status == 200 and '<html lang="fr"' in page and "By accident, &lt;b&gt;really&lt;/b&gt;." in page
        assert 'data-entry="a1"' in page and 'data-entry="q1"' not in page and "Retirer mes réponses" in page
        body = {"action": "correct", "entry_id": "a1", "text": "By accident."}
        assert (await http.post("/study/s/check/tok", json=body)).status == 403        # no CSRF header
        r = await http.post("/study/s/check/tok", json={**body, "entry_id": "q1"}, headers={"X-Colloquy-CSRF": "page"})
        assert r.status == 400 and (await r.json())["error"] == "Vous ne pouvez corriger que vos propres réponses."
        r = await http.post("/study/s/check/tok", json=body, headers={"X-Colloquy-CSRF": "page"})
        assert r.status == 200
        r = await http.post("/study/s/check/tok", json={"action": "correct"}, headers={"X-Colloquy-CSRF": "page"})
        assert r.status == 400
        [(name, req)] = study.updates
        assert isinstance(req, MemberCheck) and req.entry_id == "a1" and req.text == "By accident."
    finally:
        await http.close()


@pytest.mark.parametrize("lang", ["de", "fr", "es"])
def test_every_catalog_translates_every_page_string(lang):
    from importlib import resources

    from babel.messages.pofile import read_po

    catalog = read_po(resources.files("client.web").joinpath(f"locale/{lang}/LC_MESSAGES/colloquy.po").open("rb"))
    missing = [m.id for m in catalog if m.id and not m.string]
    assert not missing
    assert page_translations(lang).gettext("Start the interview") != "Start the interview"


def test_language_names_and_accept_language():
    assert language_name("de", "fr") == "Allemand" and language_name("xx-zz", "en") == "xx-zz"
    assert best_language(["en", "fr"], "de;q=1, fr-CA;q=0.8, en;q=0.5") == "fr"
    assert best_language(["en"], "") is None
