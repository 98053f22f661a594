"""Month and weekday names in the languages journals are read in, from CLDR (Babel) — never a hand-written list.

`LANGUAGES` are the locales whose names a journal's dates are read with: English, French, German, Spanish,
Portuguese, Italian and Dutch. Every *wide* name (`août`, `März`, `miércoles`, `segunda-feira`) is known in every
journal; *abbreviations* (`févr.`, `Mi.`, `mar`, `out.`) are known only for the journal's own languages
(`detect_languages`: the wide names its headings use), since many of them are words elsewhere (Portuguese `out`
for October, Spanish `mar` for Tuesday, Dutch `do` for Thursday). Names are compared folded: lower case, accents and
a final dot gone (`Mär.` = `mar`). The word for "day" (`jour`, `Tag`, `día`, …) comes from CLDR too, for counters.
"""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from functools import lru_cache

LANGUAGES = ("en", "fr", "de", "es", "pt", "it", "nl")


def fold(word: str) -> str:
    """`Mär.` -> `mar`, `Sábado` -> `sabado`: lower case, no accents, no final dot."""
    decomposed = unicodedata.normalize("NFD", word.lower().rstrip("."))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _cldr() -> dict[str, dict[str, dict[str, int]]]:
    """Per language: wide/abbreviated month and weekday names (folded) -> month 1-12 / weekday 0-6 (Monday 0)."""
    from babel.dates import get_day_names, get_month_names

    out: dict[str, dict[str, dict[str, int]]] = {}
    for lang in LANGUAGES:
        tables: dict[str, dict[str, int]] = {"month": {}, "month_abbr": {}, "weekday": {}, "weekday_abbr": {}}
        for context in ("format", "stand-alone"):
            for n, name in get_month_names("wide", context, lang).items():
                tables["month"][fold(name)] = n
            for n, name in get_month_names("abbreviated", context, lang).items():
                tables["month_abbr"][fold(name)] = n
            for n, name in get_day_names("wide", context, lang).items():
                tables["weekday"][fold(name)] = n
                if "-" in name:  # `segunda-feira` is often written `segunda`
                    tables["weekday"][fold(name.split("-")[0])] = n
            for n, name in get_day_names("abbreviated", context, lang).items():
                tables["weekday_abbr"][fold(name)] = n
        out[lang] = tables
    return out


def _month_collisions(tables: dict[str, dict[str, dict[str, int]]]) -> set[str]:
    seen: dict[str, int] = {}
    clash: set[str] = set()
    for t in tables.values():
        for key in ("month", "month_abbr"):
            for name, n in t[key].items():
                if seen.setdefault(name, n) != n:
                    clash.add(name)
    return clash


@lru_cache(maxsize=32)
def month_names(languages: frozenset[str] | None = None) -> dict[str, int]:
    """Folded month name -> month: every language's wide names, and the abbreviations of `languages` (None:
    English's). A name two languages give different months is left out."""
    tables = _cldr()
    langs = languages or frozenset({"en"})
    out: dict[str, int] = {}
    for lang, t in tables.items():
        out.update(t["month"])
        if lang in langs or lang == "en":
            out.update(t["month_abbr"])
    for name in _month_collisions(tables):
        out.pop(name, None)
    out["sept"] = 9
    return out


@lru_cache(maxsize=32)
def weekday_names(languages: frozenset[str] | None = None) -> dict[str, int]:
    """Folded weekday name -> weekday (Monday 0): every language's wide names, and the abbreviations of
    `languages` (None: English's). Never a month name (`mar` in a Spanish journal is March where a month fits)."""
    tables = _cldr()
    langs = languages or frozenset({"en"})
    months = month_names(languages)
    out: dict[str, int] = {}
    for lang, t in tables.items():
        out.update(t["weekday"])
        if lang in langs or lang == "en":
            out.update({k: v for k, v in t["weekday_abbr"].items() if k not in months})
    return out


@lru_cache(maxsize=1)
def day_words() -> tuple[str, ...]:
    """The word for "day" in every language (`day`, `jour`, `Tag`, `día`, `dia`, `giorno`, `dag`): for counters."""
    from babel.dates import format_timedelta

    words = {fold(format_timedelta(timedelta(days=1), locale=lang).split()[-1]) for lang in LANGUAGES}
    return tuple(sorted(words, key=len, reverse=True))


def spellings(folded: dict[str, int]) -> list[str]:
    """Regex alternatives for names as written: each folded name, and its accented forms from CLDR."""
    tables = _cldr()
    raw: set[str] = set(folded)
    from babel.dates import get_day_names, get_month_names

    for lang in tables:
        for getter in (get_month_names, get_day_names):
            for width in ("wide", "abbreviated"):
                for context in ("format", "stand-alone"):
                    for name in getter(width, context, lang).values():  # type: ignore[operator]
                        if fold(name) in folded:
                            raw.add(name.lower().rstrip("."))
                            if "-" in name:
                                raw.add(name.lower().split("-")[0])
    return sorted(raw, key=len, reverse=True)


def detect_languages(words: list[str]) -> frozenset[str]:
    """The languages (besides English) whose wide month or weekday names occur in `words` (a journal's heading
    words), a name that is also an English one (`April`, `September`) counting for none."""
    tables = _cldr()
    english = {n for key in tables["en"] for n in tables["en"][key]} | set(_ENGLISH_EXTRA)
    found: set[str] = set()
    for w in words:
        f = fold(w)
        if f in english:
            continue
        wide = {lang for lang, t in tables.items() if f in t["month"] or f in t["weekday"]}
        # an abbreviation of four letters or more that only one language has (`janv.`, `févr.`) tells it too
        abbr = {lang for lang, t in tables.items() if len(f) >= 4 and (f in t["month_abbr"] or f in t["weekday_abbr"])}
        found |= wide or (abbr if len(abbr) == 1 else set())
    return frozenset(found - {"en"})


_ENGLISH_EXTRA = ("sept", "tues", "weds", "thur", "thurs")
