"""The participant's language on the study pages: message catalogs (gettext .po files, client/web/study_locale/,
read at runtime with Babel — no compile step), language names and local dates (Babel's CLDR data).

    t = page_translations("de")        # gettext-style: t.gettext("Start the interview") -> "Interview starten"
    language_name("fr", "de")          # "Französisch"
    local_date(dt, "fr")               # "1 déc. 2026"

English is the source language (the msgids); a language without a catalog gets English strings.
"""

from __future__ import annotations

import io
from datetime import datetime
from functools import lru_cache
from importlib import resources

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_datetime
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

CATALOGS = ("de", "fr", "es")          # plus English, the source language
PAGE_LANGUAGES = ("en", *CATALOGS)


def _locale(code: str) -> Locale:
    try:
        return Locale.parse(code.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return Locale.parse("en")


def catalog_language(code: str | None) -> str:
    """The catalog a language's page uses: its own, its base language's ('de-AT' → 'de'), else English."""
    code = (code or "en").strip()
    base = code.split("-")[0].lower()
    return code if code in CATALOGS else base if base in CATALOGS else "en"


@lru_cache(maxsize=16)
def page_translations(code: str | None) -> NullTranslations:
    lang = catalog_language(code)
    if lang == "en":
        return NullTranslations()
    text = resources.files("client.web").joinpath(f"study_locale/{lang}.po").read_bytes()
    catalog = read_po(io.BytesIO(text), locale=lang)
    mo = io.BytesIO()
    write_mo(mo, catalog)
    mo.seek(0)
    return Translations(mo)


def language_name(code: str, in_language: str | None = None) -> str:
    """A language's name in the page's language ('de' on a French page: 'allemand'); the code if unknown."""
    try:
        name = Locale.parse(code.replace("-", "_")).get_display_name(_locale(in_language or code))
    except (ValueError, UnknownLocaleError):
        return code
    return name[:1].upper() + name[1:] if name else code


def local_date(when: datetime | None, language: str | None, with_time: bool = False) -> str:
    if when is None:
        return ""
    loc = _locale(language or "en")
    return format_datetime(when, "medium", locale=loc) if with_time else format_date(when, "long", locale=loc)


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
