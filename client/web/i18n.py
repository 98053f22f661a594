"""Every page a participant or interviewee sees, in their language: gettext message catalogs, language names and
local dates (Babel's CLDR data).

    client/web/locale/colloquy.pot                      the template, extracted by Babel from the Jinja templates,
                                                        the Python (N_() / gettext) and the scripts (_() in *.js):
                                                        (client/web/babel.cfg; docs/study.md "Languages")
    client/web/locale/<lang>/LC_MESSAGES/colloquy.po    one complete catalog per shipped language, read at runtime
                                                        with Babel (read_po: no compile step to forget)

    t = page_translations("de")        # gettext-style: t.gettext("Start the interview") -> "Interview starten"
    page_locale("pt-BR")               # PageLocale(lang="pt-BR", catalog="pt", direction="ltr", fallback=False)
    language_name("fr", "de")          # "Französisch"
    local_date(dt, "fr")               # "1 déc. 2026"

English is the source language (the msgids). A language without a catalog is shown in English, honestly: the page
is `lang="en"` and says so (`fallback`). The scripts' strings (room.js, voice.js) reach the page as a JSON catalog
the server puts in it (`script_strings`), so the room needs no second translation system.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from importlib import resources
from typing import Any

import jinja2
from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_datetime
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

DOMAIN = "colloquy"
CATALOGS = ("es", "fr", "de", "pt", "it", "nl", "ja", "zh", "ar", "hi", "sw")   # plus English, the source
PAGE_LANGUAGES = ("en", *CATALOGS)
RTL = frozenset({"ar", "he", "fa", "ur"})
_TAG = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,3}$")


def N_(message: str) -> str:
    """Marks a string for extraction (translated later, where the page's language is known)."""
    return message


#: the interviewer's closing question when no model chose one (rules/interview/decisions.py falls back to it): the
#: catalogs translate it like every page string; models/interview/closing.py holds the same texts for the engine
CLOSING_QUESTION = N_("Is there anything else you'd like to add that we haven't covered?")
#: the engine's other texts a participant sees (rules/interview/closing.py ENGINE_TEXTS holds the same translations):
#: its request for an outline when they move on too early, and the assistant's answer when it cannot answer
MINIMUM_CONTENT_PROMPT = N_("Please provide a brief outline so we can proceed.")
ASSISTANT_UNAVAILABLE = N_("The assistant is unavailable right now.")


@dataclass(frozen=True)
class PageLocale:
    lang: str           # the page's <html lang>: the participant's language, or "en" when shown in English
    catalog: str        # the catalog its strings come from ("en": the msgids themselves)
    direction: str      # "rtl" | "ltr"
    fallback: bool      # the participant asked for a language no catalog covers: the page says it is English
    asked: str          # the language asked for


def _locale(code: str) -> Locale:
    try:
        return Locale.parse(code.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return Locale.parse("en")


def catalog_language(code: str | None) -> str:
    """The catalog a language's page uses: its own, its base language's ('de-AT' → 'de'), else English."""
    code = (code or "en").strip()
    base = code.split("-")[0].split("_")[0].lower()
    return code if code in CATALOGS else base if base in CATALOGS else "en"


def has_catalog(code: str | None) -> bool:
    """True when the language's pages are fully translated (English included: the source)."""
    base = (code or "en").strip().split("-")[0].split("_")[0].lower()
    return base == "en" or catalog_language(code) != "en"


def page_locale(code: str | None) -> PageLocale:
    asked = (code or "en").strip() or "en"
    catalog = catalog_language(asked)
    if not has_catalog(asked):
        return PageLocale("en", "en", "ltr", True, asked)
    base = asked.split("-")[0].split("_")[0].lower()
    return PageLocale(asked, catalog, "rtl" if base in RTL else "ltr", False, asked)


@lru_cache(maxsize=32)
def read_catalog(lang: str) -> Catalog:
    """A shipped language's catalog, as Babel reads it (the .po file in the package; "en": the template)."""
    path = f"locale/{DOMAIN}.pot" if lang == "en" else f"locale/{lang}/LC_MESSAGES/{DOMAIN}.po"
    text = resources.files("client.web").joinpath(path).read_bytes()
    return read_po(io.BytesIO(text), locale=None if lang == "en" else lang)


@lru_cache(maxsize=32)
def page_translations(code: str | None) -> NullTranslations:
    lang = catalog_language(code)
    if lang == "en":
        return NullTranslations()
    mo = io.BytesIO()
    write_mo(mo, read_catalog(lang))
    mo.seek(0)
    return Translations(mo, domain=DOMAIN)


@lru_cache(maxsize=32)
def script_strings(code: str | None) -> dict[str, str]:
    """msgid -> translation for the strings the scripts show (the messages extracted from *.js)."""
    lang = catalog_language(code)
    catalog = read_catalog(lang)         # "en": the template (client/web/locale/colloquy.pot)
    out = {}
    for m in catalog:
        if m.id and isinstance(m.id, str) and any(path.endswith(".js") for path, _ in m.locations):
            out[m.id] = m.id if lang == "en" else str(m.string or m.id)
    return out


def language_name(code: str, in_language: str | None = None, in_sentence: bool = False) -> str:
    """A language's name in the page's language ('de' on a French page: 'Allemand' in a list, 'allemand' within a
    sentence: CLDR's own case); the code if unknown."""
    try:
        name = Locale.parse(code.replace("-", "_")).get_display_name(_locale(in_language or code))
    except (ValueError, UnknownLocaleError):
        return code
    if not name:
        return code
    return name if in_sentence else name[:1].upper() + name[1:]


def local_date(when: datetime | None, language: str | None, with_time: bool = False) -> str:
    if when is None:
        return ""
    loc = _locale(language or "en")
    return format_datetime(when, "medium", locale=loc) if with_time else format_date(when, "long", locale=loc)


def local_number(n: int | float, language: str | None) -> str:
    """A number as the page's language writes it (CLDR: '1,5' in German, '١٥' in Arabic)."""
    return format_decimal(n, locale=_locale(catalog_language(language)))


def best_language(offered: list[str], accept_language: str) -> str | None:
    """The first language of a browser's Accept-Language that the page offers (exact, then the base language)."""
    wanted = []
    for i, part in enumerate(accept_language.split(",")[:20]):
        code, _, q = part.strip().partition(";q=")
        try:
            weight = float(q) if q else 1.0
        except ValueError:
            weight = 0.0
        if code:
            wanted.append((-weight, i, code.strip()))
    for _, _, code in sorted(wanted):
        for lang in offered:
            if lang.lower() == code.lower() or lang.split("-")[0].lower() == code.split("-")[0].lower():
                return lang
    return None


# ------------------------------------------------------------------------------------------ templates
def _env() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FunctionLoader(
        lambda name: resources.files("client.web").joinpath(f"templates/{name}").read_text(encoding="utf-8")),
        autoescape=True, extensions=["jinja2.ext.i18n"])


ENV = _env()


def render_page(template: str, code: str | None, **values: Any) -> str:
    """A template (client/web/templates) in a participant's language: `lang`, `direction`, `fallback` (shown in
    English: `asked_name` names the language asked for) and `_()` from that language's catalog."""
    loc = page_locale(code)
    ENV.install_gettext_translations(page_translations(loc.catalog), newstyle=True)  # type: ignore[attr-defined]
    return ENV.get_template(template).render(lang=loc.lang, direction=loc.direction, fallback=loc.fallback,
                                             participant_language=loc.asked,
                                             asked_name=language_name(loc.asked, "en"), **values)


def room_html(language: str | None, voice: bool | None = None) -> str:
    """The interview room (client/web/interview/room.py) in the participant's language — the `?lang=` of its link,
    the study adds it; English without one: `<html lang dir>`, its strings and the scripts' catalog. Its voice
    controls only where voice is offered in that language (`voice`; None: the measured rule decides,
    client/web/voice/offered.py), else a line saying the answers are typed."""
    from client.web.voice.offered import voice_offered

    language = (language or "").strip()
    language = language if _TAG.match(language) else "en"
    return render_page("room.html", language, strings=script_strings(language),
                       voice_offered=voice_offered(language) if voice is None else voice,
                       language_name=language_name(language, page_locale(language).lang, in_sentence=True))
