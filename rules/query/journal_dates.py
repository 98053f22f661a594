"""Dates as people write them in journals: what one heading, date line or file name says (pure: stdlib and
Babel's CLDR month and weekday names, see date_names.py).

`read_line(text)` finds the date a heading (or a bold/plain date line) states, in any of the forms journals use:
ISO `2023-01-15` / `2023_01_15` / `2023/01/15`, compact `20230115`, numeric `15-01-2023` / `01/15/2023`
(day-first or month-first: the *journal* settles the order, see `JournalHints`), `4.01.2015`, month names
(`January 4, 2015`, `4th of Jan 2015`, `Thu Jul 26 21:36:50 EDT 2018`), a date without a year (`Tue Aug 14`,
`June 02, Saturday`: the year comes from the folder, the file, front matter, `--year` or the journal's own dated
headings, never today), a day alone (`## 15th` in a month file), day counters (`Day 12:`, `R1D45`), weekdays
(also misspelt: `Wedneday`, `thuersday`), `The weekend` and `19 - 23 of August` ranges. What it cannot read as a
real date but looks like one (`February 30, 2016`) comes back as `impossible`, so the caller can say so.
Month and weekday names are read in English, French, German, Spanish, Portuguese, Italian and Dutch (`4 août`,
`dimanche 1er octobre`, `Montag, 08.10.2018`, `3. März 2024`, `Lunes 14 de agosto`, `5 de março de 2024`,
`lunedì 1° aprile`, `maandag 3 mei`), with their ordinals (`1er`, `3.`, `1º`, `3de`) and particles (`de`, `del`),
counters with their word for day (`Jour 12`, `Tag 3`, `Día 5`) and times (`à 09:31`, `um 9:31`, `9:31 PM`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, time, timedelta
from functools import lru_cache

from rules.query.date_names import LANGUAGES, day_words, fold, month_names, spellings, weekday_names

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WEEKDAY_SHORT = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "weds": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
                  "sat": 5, "sun": 6}
YEARS = range(1900, 2101)
Langs = frozenset[str] | None

#: Ordinal endings: English `1st`, French `1er`/`2e`, Dutch `3de`/`8ste`, Spanish/Portuguese/Italian `1º`/`1.ª`/`1°`,
#: German `3.` (a day followed by a dot).
_ORD = r"(?:st|nd|rd|th|er|re|ère|eme|ème|e|de|ste|ª|º|°|\.º|\.ª|\.)?"
#: Words between a day and its month or year: `4th of Jan`, `14 de agosto de 2024`, `5 del 2023`.
_OF = r"(?:\s+(?:of|de|del|di|do|da))?"
_AT = r"(?:at|à|a|um|a\s+las|às|as|alle|om)"
#: Between the two days of a range: `19 - 23 of August`, `3-4 janvier`, `18 y 19 de Mayo`, `1 e 2 maggio`.
_TO = r"\s*(?:-|–|to|and|&|au|et|bis|und|al|a|y|e|en|t/m)\s*"
_TIME = (r"(?:(?:\s*[T,]\s*|\s+(?:" + _AT + r"\s+)?)(?P<hour>\d{1,2})[:h](?P<minute>\d{2})(?::\d{2}(?:\.\d+)?)?"
         r"(?:\s*(?P<ampm>[ap]\.?\s?m\.?)(?![a-z]))?(?:\s*Z|[+-]\d{2}:?\d{2})?)?")
_LETTERS = r"[^\W\d_]"


def _all_months() -> dict[str, int]:
    return month_names(frozenset(LANGUAGES))


@lru_cache(maxsize=32)
def _patterns(languages: Langs) -> tuple[list[tuple[str, re.Pattern[str]]], list[tuple[str, re.Pattern[str]]]]:
    """(forms with a year, yearless forms), for the month names of `languages` (date_names.py)."""
    mon = r"(?P<mname>" + "|".join(re.escape(n) for n in spellings(month_names(languages))) + r")\.?"
    # beside a day and a year, every language's abbreviation is a month (`5 ene 2000`, `3 out. 2022`); alone, only
    # the journal's own languages' are (`Day 3 out of 100`)
    yearless_mon, mon = mon, r"(?P<mname>" + "|".join(re.escape(n) for n in spellings(_all_months())) + r")\.?"
    full = [  # (form name, pattern): forms with a year, tried in this order at each position
        ("iso", r"(?<![\d.])(?P<year>\d{4})(?P<sep>[-_/.])(?P<mon>\d{1,2})(?P=sep)(?P<day>\d{1,2})(?![\d])" + _TIME),
        ("compact", r"(?<!\d)(?P<year>(?:19|20)\d{2})(?P<mon>[01]\d)(?P<day>[0-3]\d)(?!\d)"),
        ("dotted", r"(?<![\d.])(?P<day>\d{1,2})\.(?P<mon>\d{1,2})\.(?P<year>\d{4})(?![\d])" + _TIME),
        ("numeric", r"(?<!\d)(?<!\d[-/])(?P<a>\d{1,2})(?P<sep>[-/])(?P<b>\d{1,2})(?P=sep)(?P<year>\d{4})(?!\d)" + _TIME),
        ("unix", r"\b" + mon + r"\s+(?P<day>\d{1,2})\s+(?P<hour>\d{1,2}):(?P<minute>\d{2}):\d{2}\s+"
         r"(?:[A-Z]{2,5}\s+)?(?P<year>\d{4})(?!\d)"),
        ("month-day-year", r"(?<!\w)" + mon + r"\s+(?P<day>\d{1,2})" + _ORD + r"(?:\s*,\s*|\s+)(?:(?P<wd>"
         + _LETTERS + r"+),?\s+)?(?P<year>\d{4})(?!\d)" + _TIME),
        ("day-month-year", r"(?<!\d)(?P<day>\d{1,2})" + _ORD + _OF + r"\s*(?<=[\s.ºª°])" + mon + r",?\s+"
         + _OF.replace(r"\s+(?:", r"(?:") + r"\s*(?P<year>\d{4})(?!\d)" + _TIME),
    ]
    full.append(("range-year", r"(?<!\d)(?P<day>\d{1,2})" + _ORD + _TO + r"\d{1,2}" + _ORD + _OF + r"\s+" + mon
                 + r",?\s+" + _OF.replace(r"\s+(?:", r"(?:") + r"\s*(?P<year>\d{4})(?!\d)"))
    yearless = [
        ("range", r"(?<!\d)(?P<day>\d{1,2})" + _ORD + _TO + r"\d{1,2}" + _ORD + _OF
         + r"\s+" + yearless_mon + r"(?!" + _LETTERS + ")"),
        ("month-day", r"(?<!\w)" + yearless_mon + r"\s+(?P<day>\d{1,2})" + _ORD + r"(?![\d:])"),
        ("day-month", r"(?<![\d:])(?P<day>\d{1,2})" + _ORD + _OF + r"\s*(?<=[\s.ºª°])" + yearless_mon
         + r"(?!" + _LETTERS + ")"),
    ]
    return ([(n, re.compile(p, re.I)) for n, p in full], [(n, re.compile(p, re.I)) for n, p in yearless])




@lru_cache(maxsize=1)
def _counter() -> re.Pattern[str]:
    """Day counters: `R1D45`, `Day 12`, and the word for day in every language (`Jour 12`, `Tag 3`, `Día 5`)."""
    words = "|".join(sorted({*day_words(), "día", "dia"}, key=len, reverse=True))
    return re.compile(r"\b(?:R(?P<round>\d+)\s*D(?P<rday>\d+)|(?:" + words + r")\s*#?\s*(?P<day>-?\d+)[a-z]?)\b",
                      re.I)


_WEEKEND = re.compile(r"\bweek-?ends?\b", re.I)
_DAY_ONLY = re.compile(r"^(?:the\s+)?(?P<day>\d{1,2})" + _ORD + r"\.?$", re.I)
_WORD = re.compile(_LETTERS + r"+(?:-" + _LETTERS + r"+)?(?P<dot>[.,])?", re.I)
#: Words that may stand before a date in an entry heading without making it a mere mention of a date (with the
#: articles and prepositions that stand before a date in the other languages: `le 3 mars`, `am 3. März`, `el 5`).
_LEAD_WORDS = {"day", "the", "on", "of", "week", "entry", "log", "date", "journal", "diary", "am", "pm", "r",
               "le", "la", "el", "den", "der", "de", "du", "il", "lo", "op", "del"}  # (+ the words for day)


def _distance(a: str, b: str) -> int:
    """Levenshtein distance (small words only)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


@lru_cache(maxsize=8192)
def weekday_of(word: str, languages: Langs = None) -> frozenset[int]:
    """The weekdays a word may mean: a name in any language (`Montag`, `miércoles`, `segunda-feira`), an
    abbreviation in English or the journal's `languages` (date_names.py), or an English misspelling within 2 edits
    of a full name that keeps its first letter and a `-day` ending (`Wedneday`, `thuersday`; `thuesday` is both
    Tuesday and Thursday). Empty: not a weekday (`today`, `Sundae`)."""
    w = fold(word)
    if w in _WEEKDAY_SHORT:
        return frozenset({_WEEKDAY_SHORT[w]})
    names = weekday_names(languages)
    if w in names:
        return frozenset({names[w]})
    if len(w) < 5 or w in month_names(None):
        return frozenset()
    if len(w) >= 6 and not w.endswith(("day", "dya", "ady", "days")):  # `Sontag`, `Mitwoch`, `miercole`: 1 edit
        near = {n for name, n in _wide_weekdays() if name[0] == w[0] and len(name) >= 6 and _distance(w, name) <= 1}
        return frozenset(near) if len(near) == 1 else frozenset()
    scores = {i: _distance(w, name) for i, name in enumerate(WEEKDAYS) if name[0] == w[0] and len(w) >= 6}
    if not scores:
        return frozenset()
    best = min(scores.values())
    if best > 2 or not w.endswith(("day", "dya", "ady", "days")):
        return frozenset()
    return frozenset(i for i, s in scores.items() if s == best)


@lru_cache(maxsize=1)
def _wide_weekdays() -> tuple[tuple[str, int], ...]:
    """Every language's full weekday names but English's (whose misspellings have their own rule)."""
    english = {fold(n) for n in WEEKDAYS}
    return tuple((name, n) for name, n in weekday_names(None).items() if name not in english and len(name) > 3)


def _weekday_word(m: re.Match[str], languages: Langs) -> frozenset[int]:
    """A word `_WORD` matched as a weekday; a two-letter abbreviation (`Mo.`, `di,`) only with its dot or comma,
    since `so`, `do`, `ma` are words too."""
    word = m.group(0).rstrip(".,")
    if len(word) <= 2 and not m["dot"]:
        return frozenset()
    return weekday_of(word, languages)


@dataclass
class LineDate:
    """What one line says about its date. `day` is set when it is complete; otherwise the parts it gives."""

    text: str
    day: date | None = None
    at: time | None = None
    month: int | None = None          # yearless month-day forms
    mday: int | None = None           # yearless or day-only forms
    numeric: tuple[int, int, int] | None = None  # (a, b, year) of an a-b-year form: day-first or month-first
    weekdays: frozenset[int] = frozenset()
    counter: int | None = None
    weekend: bool = False
    impossible: str | None = None
    form: str = ""
    mention: bool = False             # a date inside other words: not an entry heading
    span: tuple[int, int] = (0, 0)    # where the date is in `text`
    written: str = ""                 # the date as written

    @property
    def has_date(self) -> bool:
        return self.day is not None or self.numeric is not None or self.month is not None or self.mday is not None

    @property
    def entry_like(self) -> bool:
        """A heading that names a day even without a complete date: weekday, counter, weekend."""
        return bool(self.weekdays or self.counter is not None or self.weekend or self.has_date)


def _valid(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day) if year in YEARS else None
    except ValueError:
        return None


def _time_of(g: dict[str, str | None]) -> time | None:
    if g.get("hour") is None:
        return None
    hour = int(g["hour"] or 0)
    if (ampm := (g.get("ampm") or "").lower()[:1]) and 1 <= hour <= 12:
        hour = hour % 12 + (12 if ampm == "p" else 0)
    try:
        return time(hour, int(g["minute"] or 0))
    except ValueError:
        return None


def _lead_ok(prefix: str, languages: Langs = None) -> bool:
    """Only counters, weekdays, punctuation and a few words before the date: an entry heading, not a mention."""
    cleaned = _counter().sub(" ", prefix)
    return all(fold(m.group(0).rstrip(".,")) in _LEAD_WORDS or fold(m.group(0)) in day_words()
               or _weekday_word(m, languages)
               for m in _WORD.finditer(cleaned))


def read_line(text: str, day_first: bool | None = None, languages: Langs = None) -> LineDate:
    """What `text` (a heading's text, a bold line, a file name) says about its date. `day_first` is the order of
    `a-b-year` forms that the journal settled (JournalHints); None keeps such a date as `numeric`, unread — even
    when one order is impossible, since the journal, not one heading, decides. `languages`: the journal's
    languages besides English (their abbreviations are read too; every language's full names always are)."""
    out = LineDate(text=text)
    if (c := _counter().search(text)) is not None:
        out.counter = int(c["rday"] if c["rday"] is not None else c["day"])
    out.weekend = bool(_WEEKEND.search(text))
    full_re, yearless_re = _patterns(languages or None)
    best: tuple[int, str, re.Match[str]] | None = None
    for name, rx in full_re:
        m = rx.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name, m)
    if best is None:
        for name, rx in yearless_re:
            m = rx.search(text)
            if m and (best is None or m.start() < best[0]):
                best = (m.start(), name, m)
    rest = text
    if best is not None:
        _, name, m = best
        out.form, out.span, out.written = name, (m.start(), m.end()), m.group(0).strip()
        out.mention = not _lead_ok(text[:m.start()], languages)
        g = m.groupdict()
        out.at = _time_of(g)
        month = _all_months()[fold(g["mname"])] if g.get("mname") else None
        if name in ("range", "month-day", "day-month"):
            out.month, out.mday = month, int(g["day"])
            if not 1 <= out.mday <= (29 if month == 2 else 30 if month in (4, 6, 9, 11) else 31):
                out.impossible = f"{out.written} is not a real date"
                out.month = out.mday = None
        elif name == "numeric":
            a, b, y = int(g["a"]), int(g["b"]), int(g["year"])
            dm, md = _valid(y, b, a), _valid(y, a, b)
            if dm is None and md is None:
                out.impossible = f"{out.written} is not a real date"
            elif day_first is not None:
                out.day = dm if day_first else md
                if out.day is None:
                    out.impossible = f"{out.written} is not a real date (the journal writes " \
                                     f"{'day-month' if day_first else 'month-day'})"
            else:
                out.numeric = (a, b, y)
        else:
            mon = month if month is not None else int(g["mon"])
            out.day = _valid(int(g["year"]), mon, int(g["day"]))
            if out.day is None:
                out.impossible = f"{out.written} is not a real date"
        rest = text[:m.start()] + " " + text[m.end():]
    elif (d := _DAY_ONLY.match(_strip_weekday(text, languages))) is not None:
        out.mday, out.form, out.written = int(d["day"]), "day", d.group(0)
        if not 1 <= out.mday <= 31:
            out.mday = None
    out.weekdays = _weekdays_in(_counter().sub(" ", rest), languages)
    return out


def _strip_weekday(text: str, languages: Langs = None) -> str:
    m = _WORD.match(text.strip())
    if m and _weekday_word(m, languages):
        return text.strip()[m.end():].strip(" ,")
    return text.strip()


def _weekdays_in(text: str, languages: Langs = None) -> frozenset[int]:
    for m in _WORD.finditer(text):
        if (wd := _weekday_word(m, languages)):
            return wd
    return frozenset()


def numeric_votes(found: LineDate) -> tuple[int, int]:
    """(day-first votes, month-first votes) one `a-b-year` date gives: a part over 12, or its weekday."""
    if found.numeric is None:
        return 0, 0
    a, b, y = found.numeric
    dm, md = _valid(y, b, a), _valid(y, a, b)
    if dm is not None and md is None:
        return 1, 0
    if md is not None and dm is None:
        return 0, 1
    if found.weekdays and dm != md:
        d = int(dm is not None and dm.weekday() in found.weekdays)
        m = int(md is not None and md.weekday() in found.weekdays)
        return (d, m) if d != m else (0, 0)
    return 0, 0


@dataclass
class JournalHints:
    """What a whole journal (every file of an import) settles: the order of numeric dates and the years seen.
    `year` is the user's `--year`."""

    day_first: bool | None = None
    years: list[int] = field(default_factory=list)
    year: int | None = None
    languages: frozenset[str] = frozenset()  # besides English: the journal's, whose abbreviations are read too
    conflict: bool = False  # both orders seen (e.g. 13-01-2020 and 01-13-2020): numeric dates stay unread


def settle_order(day_votes: int, month_votes: int) -> tuple[bool | None, bool]:
    """(day_first, conflict) from the journal's votes: one-sided evidence settles it, and so does a side with four
    times the other's (a typo among many dates); none, or evidence both ways, does not."""
    if day_votes and month_votes:
        if day_votes >= 4 * month_votes:
            return True, True
        if month_votes >= 4 * day_votes:
            return False, True
        return None, True
    if day_votes:
        return True, False
    if month_votes:
        return False, False
    return None, False


def one_digit_edits(written: str, parse: object, low: date, high: date, weekdays: frozenset[int]) -> list[date]:
    """Dates one changed digit away from `written` (as `parse` reads them) strictly inside (low, high) and on a
    stated weekday: the typo repairs a journal's order and weekday make certain."""
    out: set[date] = set()
    for i, ch in enumerate(written):
        if not ch.isdigit():
            continue
        for d in "0123456789":
            if d == ch:
                continue
            cand = parse(written[:i] + d + written[i + 1:])  # type: ignore[operator]
            if isinstance(cand, date) and low < cand < high and (not weekdays or cand.weekday() in weekdays):
                out.add(cand)
    return sorted(out)


def next_on(after: date, weekdays: frozenset[int], within: int = 7) -> date | None:
    """The first day after `after` on one of `weekdays` (within a week)."""
    for n in range(1, within + 1):
        d = after + timedelta(days=n)
        if d.weekday() in weekdays:
            return d
    return None
