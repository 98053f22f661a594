"""Every page a participant sees, in every shipped language (issue 37): the catalogs hold every string Babel
extracts from the templates, the pages' Python and the room's scripts; each page rendered in each language keeps no
English string of the source; Arabic pages are right-to-left; the room's <html lang> is the participant's."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from hypothesis import given, settings
from hypothesis import strategies as st

from client.web.app import build_app
from client.web.i18n import (
    CATALOGS,
    PAGE_LANGUAGES,
    RTL,
    page_locale,
    read_catalog,
    room_html,
    script_strings,
)
from client.web.interview.room import room_extension
from client.web.interview.sessions import room_path
from client.web.study.pages import REFUSED
from client.web.study.routes import study_extension
from models.common import ArtifactRef
from models.study.workflow import QUERY_LINK, QUERY_MEMBER_CHECK, LinkView, MemberCheckView
from rules.study import consent

WEB = Path(__file__).resolve().parents[3] / "client" / "web"
PLACEHOLDER = re.compile(r"%\(\w+\)s")
ATTRS = ("aria-label", "title", "data-confirm", "placeholder", "alt")


def extracted() -> set[str | tuple[str, str]]:
    """What Babel extracts today (client/web/babel.cfg), as the catalogs' msgids."""
    method_map: list[tuple[str, str]] = []
    options_map: dict[str, dict[str, str]] = {}
    section = None
    for line in (WEB / "babel.cfg").read_text().splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            method, pattern = (p.strip() for p in line[1:-1].split(":", 1))
            section = pattern
            method_map.append((pattern, method))
            options_map[pattern] = {}
        elif "=" in line and section and not line.startswith("#"):
            key, value = (p.strip() for p in line.split("=", 1))
            options_map[section][key] = value
    ids: set[str | tuple[str, str]] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
            str(WEB), method_map, options_map, keywords={"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}):
        ids.add(message if isinstance(message, str) else (message[0], message[1]))
    return ids


def test_the_template_is_what_babel_extracts_today():
    pot = {m.id for m in read_po((WEB / "locale" / "colloquy.pot").open("rb")) if m.id}
    assert extracted() == pot, "run the pybabel extract of client/web/i18n.py, then update the catalogs"


@pytest.mark.parametrize("lang", CATALOGS)
def test_every_catalog_translates_every_string(lang):
    """A catalog missing a string (or a plural form of it, or a placeholder) fails here."""
    catalog = read_catalog(lang)
    have = {m.id: m for m in catalog if m.id}
    missing = [m for m in extracted() if m not in have]
    assert not missing, f"{lang}: no translation for {missing[:5]}"
    for mid, m in have.items():
        forms = list(m.string) if isinstance(m.string, tuple) else [m.string]
        assert all(f and f.strip() for f in forms) and len(forms) == (catalog.num_plurals if isinstance(mid, tuple)
                                                                        else 1), (lang, mid)
        wanted = set(PLACEHOLDER.findall(" ".join(mid) if isinstance(mid, tuple) else mid))
        for f in forms:
            got = set(PLACEHOLDER.findall(f))
            assert got <= wanted and (isinstance(mid, tuple) or got == wanted), (lang, mid, f)
    assert not (set(have) - extracted()), f"{lang}: strings no page uses any more"


# ------------------------------------------------------------------------------------ rendering everything
class Visible(HTMLParser):
    """The text a person sees or hears on a page, outside parts marked as another language (user content)."""

    def __init__(self, page_lang: str) -> None:
        super().__init__()
        self.page_lang, self.skip = page_lang, 0
        self.stack: list[bool] = []
        self.parts: list[str] = []
        self.html: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "html":
            self.html = a
        if tag in ("meta", "link", "input", "br", "img"):
            return
        other = tag == "script" or ("lang" in a and tag != "html" and a["lang"] != self.page_lang)
        self.stack.append(other)
        self.skip += other
        if not self.skip:
            self.parts += [a[k] for k in ATTRS if a.get(k)]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("meta", "link", "input", "br", "img") or not self.stack:
            return
        self.skip -= self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not self.skip and data.strip():
            self.parts.append(data.strip())


def english_left(page: str, lang: str) -> list[str]:
    """The English source strings (of those the language's catalog words differently) still on the page."""
    parser = Visible(lang)
    parser.feed(page)
    text = "\n".join(parser.parts)
    left = []
    for m in read_catalog(lang):
        if not m.id:
            continue
        ids = [str(i) for i in m.id] if isinstance(m.id, (tuple, list)) else [str(m.id)]
        strings = [str(s) for s in m.string] if isinstance(m.string, (tuple, list)) else [str(m.string or "")]
        for mid in ids:
            if mid in strings:            # the same word in both languages ("Interview", "Question")
                continue
            for fragment in PLACEHOLDER.split(mid):
                fragment = fragment.strip(" .:()…—")
                if any(fragment in s for s in strings):     # the translation uses the same word ("minutes")
                    continue
                if len(fragment) >= 3 and re.search(rf"(?<!\w){re.escape(fragment)}(?!\w)", text):
                    left.append(fragment)
    return left


class FakeStudy:
    def __init__(self, link: LinkView, member: MemberCheckView | None = None) -> None:
        self.link, self.member = link, member

    async def query(self, name: str, arg: Any, result_type: Any = None) -> Any:
        return {QUERY_LINK: self.link, QUERY_MEMBER_CHECK: self.member}[name]


async def _client(study: FakeStudy | None) -> TestClient:
    class Handles:
        def get_workflow_handle(self, sid: str, result_type: Any = None) -> FakeStudy:
            if study is None:
                raise ConnectionError("refused")
            return study

    async def temporal() -> Any:   # stands in for the Temporal client: only get_workflow_handle is used
        return Handles()

    app = build_app("researcher-token-for-tests", None, [], extensions=[room_extension(temporal, b"s"), study_extension(temporal, b"s")])
    http = TestClient(TestServer(app, host="127.0.0.1"))
    await http.start_server()
    return http


def _link(lang: str, **kw: Any) -> LinkView:
    fields: dict[str, Any] = {"status": "invited", "participant_id": "P001", "topic": "«topic»",
                              "languages": list(PAGE_LANGUAGES), "interview_seconds": 900,
                              "consent": dict(consent.BUILT_IN), "close_at": datetime(2026, 12, 1, 18, tzinfo=UTC)}
    return LinkView(**{**fields, **kw})


async def _pages(lang: str, tmp_path: Path, **link: Any) -> dict[str, str]:
    """Every participant-facing page in `lang`: join, consent refused, each refusal, the service down, read-back
    (open and closed), and the interview room. `link`: the join link's fields to change."""
    from activities.artifacts import store

    ref: ArtifactRef = store().put("s", "transcript.json", json.dumps([
        {"entry_id": "q1", "speaker": "interviewer", "text": "«q»"},
        {"entry_id": "a1", "speaker": "interviewee", "text": "«a»"}]), "application/json")
    pages: dict[str, str] = {}
    http = await _client(FakeStudy(_link(lang, **link)))
    try:
        pages["join"] = await (await http.get(f"/study/s/join/t?lang={lang}")).text()
        pages["no consent"] = await (await http.post("/study/s/join/t", data={"language": lang})).text()
    finally:
        await http.close()
    for kind in REFUSED:
        http = await _client(FakeStudy(_link(lang, status=kind)))
        try:
            pages[kind] = await (await http.get(f"/study/s/join/t?lang={lang}")).text()
        finally:
            await http.close()
    http = await _client(None)
    try:
        pages["unavailable"] = await (await http.get(f"/study/s/join/t?lang={lang}")).text()
    finally:
        await http.close()
    for is_open in (True, False):
        member = MemberCheckView(status="completed", participant_id="P001", language=lang, transcript=ref,
                                 study_open=is_open)
        http = await _client(FakeStudy(_link(lang, status="completed", language=lang), member))
        try:
            pages[f"read-back open={is_open}"] = await (await http.get("/study/s/join/t")).text()
        finally:
            await http.close()
    http = await _client(FakeStudy(_link(lang)))
    try:
        pages["room"] = await (await http.get(room_path(b"s", "s--P001") + f"?lang={lang}")).text()
    finally:
        await http.close()
    return pages


async def test_a_consent_text_in_another_language_is_said_to_be_so(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    only = {"consent": {k: consent.BUILT_IN[k] for k in ("en", "de", "fr")}}   # a study's own texts, none in ja
    ja, de = (await _pages("ja", tmp_path, **only))["join"], (await _pages("de", tmp_path, **only))["join"]
    assert 'id="consent-language"' in ja and "下の同意文は英語です" in ja and '<div id="consent-text" lang="en"' in ja
    assert 'id="consent-language"' not in de and '<div id="consent-text" lang="de"' in de
    assert "en français" in (await _pages("fr", tmp_path))["join"]        # a language's name within a sentence


@pytest.mark.parametrize("lang", CATALOGS)
async def test_every_page_in_every_shipped_language_has_no_english_left(lang, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    pages = await _pages(lang, tmp_path)
    assert len(pages) == 6 + len(REFUSED)
    for name, page in pages.items():
        assert f'<html lang="{lang}" dir="{"rtl" if lang in RTL else "ltr"}"' in page, name
        assert english_left(page, lang) == [], f"{lang} {name}: English left"
        assert 'id="fallback"' not in page, name
    assert f'<div id="consent-text" lang="{lang}"' in pages["join"]          # the built-in text in their language
    strings = json.loads(re.search(r'id="room-strings">(.*?)</script>', pages["room"], re.S).group(1))
    assert strings == script_strings(lang) and all(strings.values())
    assert sum(k != v for k, v in strings.items()) > len(strings) // 2      # the scripts' strings, translated


def test_english_left_finds_an_untranslated_string():
    """The checker itself: an English sentence of the catalog on a German page is found."""
    page = '<html lang="de" dir="ltr"><body><p>Start the interview</p><p lang="en">Consent</p></body></html>'
    assert english_left(page, "de") == ["Start the interview"]


async def test_the_arabic_room_and_pages_are_right_to_left(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    for name, page in (await _pages("ar", tmp_path)).items():
        assert '<html lang="ar" dir="rtl">' in page, name


async def test_the_rooms_language_is_the_participants_and_a_language_without_catalog_says_so():
    http = await _client(FakeStudy(_link("en")))
    try:
        page = await (await http.get(room_path(b"s", "s--P001") + "?lang=pt-BR")).text()
        assert '<html lang="pt-BR" dir="ltr">' in page and "Enviar resposta" in page
        assert 'data-language="pt-BR"' in page
        page = await (await http.get(room_path(b"s", "s--P001") + "?lang=ko")).text()
        assert '<html lang="en" dir="ltr">' in page and 'data-language="ko"' in page
        assert "This page is shown in English: it has not been translated into Korean yet." in page
        page = await (await http.get(room_path(b"s", "s--P001") + "?lang=<b>")).text()
        assert '<html lang="en" dir="ltr">' in page and "<b>" not in page.split("<body", 1)[1]
        r = await http.get("/static/i18n.js")
        assert r.status == 200 and r.content_type == "text/javascript"
        # a study page in a language without a catalog: English, marked as such, but the interview in Korean
        http2 = await _client(FakeStudy(_link("ko", languages=["en", "ko"])))
        try:
            page = await (await http2.get("/study/s/join/t?lang=ko")).text()
            assert '<html lang="en" dir="ltr">' in page and 'id="fallback"' in page
            assert '<input type="hidden" name="language" value="ko">' in page
        finally:
            await http2.close()
    finally:
        await http.close()


def test_the_scripts_show_no_string_outside_the_catalog():
    """Every sentence room.js and voice.js put on the page goes through _() (so Babel extracts it)."""
    for name in ("room.js", "voice.js"):
        code = "\n".join(line for line in (WEB / name).read_text().splitlines()
                         if not line.lstrip().startswith("//"))
        for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', code):
            words = m.group(1)
            if code[:m.start()].rstrip().endswith("className ="):       # a CSS class, not words
                continue
            if re.search(r"[A-Za-z]{2,}[ ,.…][A-Za-z]", words) and not words.startswith(("Content-Type", "audio/",
                                                                                           "use strict")):
                assert code[max(0, m.start() - 2):m.start()] == "_(", f"{name}: {words!r} is not translated"


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.sampled_from([*PAGE_LANGUAGES, "he", "fa", "ko", "ar-EG", "pt-BR", "zh-Hant", "de-AT", "SW"]),
                 st.from_regex(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}", fullmatch=True)))
def test_a_pages_language_is_the_participants_or_honestly_english(code):
    """Invariant: the page's lang is the participant's when a catalog covers it, else "en" with the fallback note;
    right-to-left exactly for a right-to-left language shown in its own catalog; the room says the same."""
    loc = page_locale(code)
    base = code.split("-")[0].lower()
    covered = base in PAGE_LANGUAGES
    assert loc.fallback == (not covered) and loc.lang == (code if covered else "en")
    assert loc.catalog in PAGE_LANGUAGES and (loc.catalog == base or not covered or base == "en")
    assert loc.direction == ("rtl" if covered and base in RTL else "ltr")
    html = room_html(code)
    assert html.startswith(f'<!doctype html>\n<html lang="{loc.lang}" dir="{loc.direction}">')
    assert ('id="fallback"' in html) == loc.fallback
    assert resources.files("client.web").joinpath("i18n.js").is_file()
