"""A participant reads no English from the server (issue 37, item 3): the errors `colloquy serve` answers with
(client/web/errors.py) and the pages' failure texts come from the catalogs in the participant's language; the
server's English words stay in `detail` for whoever reads the log, and English requests (the CLI, the console) get
exactly what they got before."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request
from aiohttp.web_urldispatcher import UrlMappingMatchInfo
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from temporalio.service import RPCError, RPCStatusCode

from client.web import errors
from client.web.i18n import CATALOGS, PAGE_LANGUAGES, page_translations
from tests.unit.study.test_page_catalogs import Visible, _pages

SENTENCES = [errors.BUSY, errors.AWAY, errors.NOT_FOUND, errors.WRONG_KIND, errors.REFUSED, errors.FAILED,
             errors.BAD_FORM]
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
#: Latin words a Japanese or Arabic page may show: the product's name, the keys on the keyboard, the test's topic
NOT_ENGLISH_TEXT = {"Colloquy", "Enter", "Shift", "topic"}


class _Model(BaseModel):
    n: int


def _validation_error() -> ValidationError:
    try:
        _Model.model_validate({"n": "x"})
    except ValidationError as exc:
        return exc
    raise AssertionError("unreachable")


FAILURES = [RPCError("busy", RPCStatusCode.RESOURCE_EXHAUSTED, b""), RPCError("gone", RPCStatusCode.NOT_FOUND, b""),
            RPCError("down", RPCStatusCode.UNAVAILABLE, b""), ConnectionRefusedError("refused"),
            _validation_error()]


def _body(response: web.Response | None) -> dict:
    assert response is not None
    return json.loads(response.text or "{}")


@pytest.mark.parametrize("lang", ["ja", "ar"])
@pytest.mark.parametrize("exc", FAILURES, ids=lambda e: type(e).__name__)
def test_a_failure_is_said_in_the_participants_language_with_the_english_detail_kept(lang, exc):
    english, said = _body(errors.answer_for(exc)), _body(errors.answer_for(exc, lang))
    assert errors.answer_for(exc).status == errors.answer_for(exc, lang).status   # type: ignore[union-attr]
    assert said["detail"] == english["error"] and set(english) == {"error"}      # English requests: as before
    assert said["error"] in {page_translations(lang).gettext(s) for s in SENTENCES}
    assert not LATIN_WORD.search(said["error"]), said


def test_every_sentence_is_in_every_catalog():
    for lang in CATALOGS:
        for sentence in SENTENCES:
            assert page_translations(lang).gettext(sentence) != sentence, (lang, sentence)


class _Route:
    """Just what request_language reads of a route: its handler (marked public, or not)."""

    def __init__(self, public: bool) -> None:
        async def handler(_r: web.Request) -> web.Response:
            return web.Response()

        if public:
            handler.colloquy_public = True  # type: ignore[attr-defined]
        self.handler = handler


def _request(path: str, headers: dict[str, str] | None = None, public: bool = False) -> web.Request:
    req = make_mocked_request("GET", path, headers=headers or {})
    req._match_info = UrlMappingMatchInfo({}, _Route(public))  # type: ignore[arg-type]
    return req


def test_the_language_a_request_names():
    assert errors.request_language(_request("/api/x?lang=ar")) == "ar"
    assert errors.request_language(_request("/api/x?lang=pt-BR")) == "pt"          # its catalog's
    assert errors.request_language(_request("/api/x?lang=en")) is None
    assert errors.request_language(_request("/api/x?lang=ko")) is None             # no catalog: English
    assert errors.request_language(_request("/study/s/check/t", {"Accept-Language": "ja,en;q=0.5"}, True)) == "ja"
    # the researcher's own routes: the browser's language alone does not switch them
    assert errors.request_language(_request("/api/interviews", {"Accept-Language": "ja"})) is None


@settings(deadline=None)      # the first look-up of a locale reads CLDR data: slow on a busy machine
@given(st.text(alphabet=st.characters(codec="ascii", exclude_categories=["Cc"]), max_size=20),
       st.text(alphabet=st.characters(codec="ascii", exclude_categories=["Cc"]), max_size=60), st.booleans())
def test_request_language_invariant(lang, accept, public):
    """Whatever a request sends: None (English) or a language with a catalog; never one for the researcher's
    routes from the browser's Accept-Language alone."""
    req = _request("/x?" + urlencode({"lang": lang}) if lang else "/x", {"Accept-Language": accept}, public)
    got = errors.request_language(req)
    assert got is None or got in CATALOGS
    if not lang.strip() and not public:
        assert got is None


@pytest.mark.parametrize("lang", ["ja", "ar"])
async def test_a_japanese_or_arabic_participant_sees_no_english_on_any_page(lang, tmp_path, monkeypatch):
    """Every page rendered in ja and ar — the service down and a refused link included — shows no Latin word but
    the product's name and the keyboard's keys (before: "the Temporal server is not answering: …" on the page)."""
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    pages = await _pages(lang, Path(tmp_path))
    for name, page in pages.items():
        visible = Visible(lang)
        visible.feed(page)
        left = set(LATIN_WORD.findall("\n".join(visible.parts))) - NOT_ENGLISH_TEXT
        assert not left, f"{lang} {name}: {sorted(left)}"


def test_page_languages_are_what_the_errors_know():
    assert set(PAGE_LANGUAGES) == {"en", *CATALOGS}
