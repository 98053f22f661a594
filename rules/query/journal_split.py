"""A journal file split into dated entries, as people keep them (pure: stdlib only; see journal_dates.py).

Where an entry's date comes from, in order:
1. entry headings (markdown `#`, org-mode `*` in .org files, a bold line `**Friday, January 3, 2020**`, a line that
   is only a date, a line starting with an ISO timestamp): each one that states a date starts an entry. A heading
   without a date followed by a date line (`### Day 78` then `**Friday, January 3, 2020**`) is dated by it.
   Headings that name a day without a complete date are dated from the journal around them, and say so:
   a yearless date takes the year of the folder, the file, its front matter, `--year` or the journal's own dated
   headings (weekdays decide between them); a weekday alone or `The weekend` is the next such day after the entry
   before it (newest-first files are read backwards); a day counter alone (`Day 100`) counts on from its
   neighbour; a date whose weekday or place in the file is off by one typed digit is repaired.
2. front matter (`date:`, or a `title:` that is a date): the whole file;
3. the file name (`2023-01-15`, `2023_01_15`, `2023-01-15-slug`, `log-15-01-2023`, `20230115`): the whole file.
Never silent: every heading or date line that looks like a date but does not start an entry is reported with its
line (`flags`), and so is every date worked out from context.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, time, timedelta
from pathlib import PurePosixPath

from rules.query.date_names import LANGUAGES, detect_languages, fold, month_names
from rules.query.journal_dates import (
    YEARS,
    JournalHints,
    LineDate,
    next_on,
    numeric_votes,
    one_digit_edits,
    read_line,
    settle_order,
    weekday_of,
)
from rules.query.journal_paths import PathContext, hidden_lines, path_context

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ORG_HEADING = re.compile(r"^(\*+)\s+(.*?)\s*$")
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)(?P<t>[^*_].*?)(?:\1)\s*:?\s*$")
#: jrnl's entry line: `[2013-06-09 15:39] Title` (any time format jrnl is set to, inside the brackets).
_JRNL_LINE = re.compile(r"^\[(?P<stamp>[^\[\]]{6,40})\](?!:)\s*(?P<rest>.*)$")
#: Day One's text export: each entry opens with a `\tDate:\tJanuary 5, 2018 at 9:31:56 AM PST` line (the date in
#: the exporting Mac's language), then `Location:`, `Weather:`, `Tags:` lines and the text.
_DAYONE_LINE = re.compile(r"^[\t ]*Date:[\t ]+(?P<stamp>.+?)\s*$")
_ISO_LINE = re.compile(r"^(?P<year>\d{4})-(?P<mon>\d{2})-(?P<day>\d{2})[T ](?P<hour>\d{2}):(?P<minute>\d{2})"
                       r"(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b[\s:—–-]*(?P<rest>.*)$")
_FRONT_KEY = re.compile(r"^(date|title)\s*:\s*[\"']?(.+?)[\"']?\s*$", re.I)
_MONTH_WORD = re.compile(r"[^\W\d_]+", re.I)
_SPLITTING_KINDS = ("heading", "bold", "line", "iso", "stamp")


@dataclass
class DatedPart:
    """One entry of a file: its day, its time if the file states one, its text and where it starts."""

    day: date
    at: time | None
    text: str
    line: int = 1
    end_line: int = 0
    inferred: bool = False


@dataclass
class SplitResult:
    parts: list[DatedPart] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    flags: list[tuple[int, str]] = field(default_factory=list)  # (line, what looks like a date but was not used)
    empty: list[tuple[int, date]] = field(default_factory=list)  # dated headings with no text under them
    source: str = ""  # "headings" | "front matter" | "file name" | "" (undated)

    @property
    def undated(self) -> bool:
        return not self.parts and not self.errors and not self.empty

    @property
    def warnings(self) -> list[str]:
        return [f"line {n}: {text}" for n, text in self.flags] + self.notes


@dataclass
class _Cand:
    index: int            # body line index
    kind: str             # heading | bold | line | iso | stamp (jrnl's `[…]` line, Day One's `Date:` line)
    level: int
    found: LineDate
    day: date | None = None
    at: time | None = None
    first: str = ""       # the rest of an ISO timestamp line
    how: str = ""         # "" (as written) | why it was dated from context
    consumed: bool = False


def clean_text(text: str) -> str:
    """Remove NUL and other control characters (tabs and newlines stay); normalize line ends."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def front_matter(lines: list[str]) -> tuple[int, dict[str, str]]:
    """(lines the front matter takes, its `date:`/`title:` values)."""
    if not lines or lines[0].strip() != "---":
        return 0, {}
    for i in range(1, min(len(lines), 60)):
        if lines[i].strip() in ("---", "..."):
            values = {m[1].lower(): m[2] for ln in lines[1:i] if (m := _FRONT_KEY.match(ln.strip()))}
            return i + 1, values
    return 0, {}


def journal_hints(files: dict[str, str], year: int | None = None,
                  languages: frozenset[str] | None = None) -> JournalHints:
    """What the whole journal settles (see JournalHints): its languages (the month and weekday names its headings
    use), numeric date order by votes over every file's headings and names, and the years its complete dates name.
    `languages` (--language) adds to the languages found."""
    day_votes = month_votes = 0
    years: set[int] = set()
    names: list[str] = []
    for rel, text in files.items():
        names.append(PurePosixPath(rel).stem)
        lines = clean_text(text).split("\n")
        hidden = hidden_lines(lines)
        for n, line in enumerate(lines):
            if n in hidden:
                continue
            h = _MD_HEADING.match(line) or (_ORG_HEADING.match(line) if rel.endswith(".org") else None)
            b = _BOLD_LINE.match(line)
            stamp = _JRNL_LINE.match(line) or _DAYONE_LINE.match(line)
            if h:
                names.append(h[2])
            elif b:
                names.append(b["t"])
            elif stamp:
                names.append(stamp["stamp"])
            elif line[:1].isdigit() and len(line) < 60:
                names.append(line)
    found_langs = detect_languages([w for name in names for w in _MONTH_WORD.findall(name)])
    langs = frozenset(found_langs | set(languages or ())) - {"en"}
    for name in names:
        found = read_line(name, None, langs)
        d, m = numeric_votes(found)
        day_votes, month_votes = day_votes + d, month_votes + m
        if found.day is not None and not found.mention:
            years.add(found.day.year)
        elif found.numeric is not None and not found.mention:
            years.add(found.numeric[2])
    day_first, conflict = settle_order(day_votes, month_votes)
    return JournalHints(day_first=day_first, years=sorted(years), year=year, conflict=conflict, languages=langs)


def _candidates(body: list[str], org: bool, hints: JournalHints) -> list[_Cand]:
    out: list[_Cand] = []
    hidden = hidden_lines(body)
    for i, line in enumerate(body):
        if i in hidden:
            continue
        h = _MD_HEADING.match(line) or (_ORG_HEADING.match(line) if org else None)
        if h:
            out.append(_Cand(i, "heading", len(h[1]), read_line(h[2], hints.day_first, hints.languages)))
            continue
        if (m := _JRNL_LINE.match(line.strip()) or _DAYONE_LINE.match(line)) is not None:
            found = read_line(m["stamp"], hints.day_first, hints.languages)
            if (found.day is not None or found.impossible) and not found.mention and _only_stamp(found):
                rest = m.groupdict().get("rest") or ""
                out.append(_Cand(i, "stamp", 0, found, first=rest.strip()))
                continue
        if (m := _ISO_LINE.match(line.strip())) is not None:
            found = read_line(line.strip()[:m.start("rest")], hints.day_first, hints.languages)
            if found.day is not None:
                out.append(_Cand(i, "iso", 0, found, first=m["rest"].strip()))
            continue
        b = _BOLD_LINE.match(line)
        text = b["t"] if b else line.strip()
        if not text or len(text) > 80 or not any(c.isdigit() for c in text):
            continue
        if b is None and not line[:1].isalnum():
            continue  # "- 2021-05-01" in a list, an indented or quoted date: body text, not a date line
        found = read_line(text, hints.day_first, hints.languages)
        if (found.day or found.numeric or found.month or found.impossible) and _only_date(found, hints.languages):
            out.append(_Cand(i, "bold" if b else "line", 0, found))
    return out


def _only_date(found: LineDate, languages: frozenset[str] | None = None) -> bool:
    """Nothing but a date (a weekday, a counter and punctuation allowed) on the line."""
    if found.mention or found.form in ("", "day"):
        return False
    rest = found.text[:found.span[0]] + " " + found.text[found.span[1]:]
    words = [w for w in _MONTH_WORD.findall(rest) if w.lower() not in ("r", "d", "day", "the", "of")]
    if set(rest) & set("[]\"'`<>|=/\\"):
        return False  # a link reference, a table cell, a quoted value: not a date line
    return all(weekday_of(w, languages) for w in words) and len(words) <= 2


def _only_stamp(found: LineDate) -> bool:
    """A jrnl or Day One stamp: a date, a weekday, a time, its AM/PM and time zone (`PST`, `UTC+1`), nothing else."""
    rest = found.text[:found.span[0]] + " " + found.text[found.span[1]:]
    return all(len(w) <= 5 or weekday_of(w) for w in _MONTH_WORD.findall(rest))


def _year_for(cands: list[_Cand], ctx: PathContext, fm_year: int | None, hints: JournalHints) -> tuple[int | None, str]:
    """The year of this file's yearless dates, and where it came from."""
    if hints.year:
        return hints.year, "--year"
    if ctx.year:
        return ctx.year, "the file's path"
    if fm_year:
        return fm_year, "the front matter"
    own = sorted({c.day.year for c in cands if c.day is not None and c.how == ""})
    pool = own or list(hints.years)
    if not pool:
        return None, ""
    yearless = [c for c in cands if c.day is None and c.found.month is not None and not c.found.mention]
    best: tuple[int, int, int] | None = None
    for y in pool:
        days = _assign_years([(c.found.month or 1, c.found.mday or 1) for c in yearless], y)
        agree = sum(1 for c, d in zip(yearless, days, strict=True)
                    if d is not None and c.found.weekdays and d.weekday() in c.found.weekdays)
        disagree = sum(1 for c, d in zip(yearless, days, strict=True)
                       if d is not None and c.found.weekdays and d.weekday() not in c.found.weekdays)
        score = (agree - disagree, int(y in own), y)
        if best is None or score > best:
            best = score
    assert best is not None
    if len(pool) > 1 and best[0] <= 0 and not own:
        return None, ""
    return best[2], "the journal's dated headings" + (" and weekdays" if best[0] > 0 else "")


def _assign_years(month_days: list[tuple[int, int]], year: int) -> list[date | None]:
    """Yearless (month, day)s in file order from `year` on: a jump of 6+ months back (or forward) is a new year."""
    out: list[date | None] = []
    prev = None
    for month, mday in month_days:
        if prev is not None and prev - month >= 6:
            year += 1
        elif prev is not None and month - prev >= 6:
            year -= 1
        prev = month
        try:
            out.append(date(year, month, mday) if year in YEARS else None)
        except ValueError:
            out.append(None)
    return out


def _direction(cands: list[_Cand]) -> int:
    """+1 oldest first, -1 newest first (the majority of steps between dated entries)."""
    days = [c.day for c in cands if c.day is not None]
    steps = sum((b > a) - (b < a) for a, b in zip(days, days[1:], strict=False))
    return -1 if steps < 0 else 1


def _resolve(cands: list[_Cand], ctx: PathContext, fm_year: int | None, hints: JournalHints,
             out: SplitResult, skip: int) -> None:
    """Give every candidate line the date it states or its context settles; flag what stays unread."""
    for c in cands:
        f = c.found
        c.day, c.at = f.day, f.at
        if f.mention:
            c.day = None
        elif c.day is not None and ctx.day is not None and c.day != ctx.day and f.weekdays \
                and c.day.weekday() not in f.weekdays and ctx.day.weekday() in f.weekdays:
            # a daily note whose heading was copied from another day: its weekday fits the path's date, not its own
            c.day, c.how = ctx.day, f"the date its path states ({ctx.written}), which the heading's weekday fits"
        elif c.day is not None and ctx.day is not None and c.kind == "line" and abs((c.day - ctx.day).days) > 366:
            # `16th of june 1904` on its own line in a lesson filed under 2022/aprile/giovedì_28: a date in the text
            c.day, f.impossible = None, f"{f.written} is more than a year from the day its path names ({ctx.day}): " \
                                        "a date in the text"
    full_levels = [c.level for c in cands if c.kind == "heading" and c.day is not None]
    for c in cands:  # "***** 1 week: 10 May" under "** tuesday, 21-05-2019": a sub-heading, not an entry
        if full_levels and c.kind == "heading" and c.day is None and c.level > max(full_levels) \
                and (c.found.month is not None or c.found.form == "day"):
            c.found.mention = True
    year, whence = _year_for(cands, ctx, fm_year, hints)
    yearless = [c for c in cands if c.day is None and not c.found.mention and c.found.month is not None]
    if yearless and year is not None:
        for c, d in zip(yearless, _assign_years([(c.found.month or 1, c.found.mday or 1) for c in yearless], year),
                        strict=True):
            c.day = d
        if whence not in ("the file's path", "--year"):
            out.notes.append(f"dates without a year take {year} from {whence}")
    if ctx.month and ctx.year:
        for c in cands:
            if c.day is None and c.kind == "heading" and c.found.form == "day" and c.found.mday:
                try:
                    c.day = date(ctx.year, ctx.month, c.found.mday)
                except ValueError:
                    c.found.impossible = f"day {c.found.mday} is not in month {ctx.month}/{ctx.year}"
    # A heading without a date, dated by the date line right under it (### Day 78 / **Friday, January 3, 2020**).
    for n, c in enumerate(cands):
        if c.kind == "heading" and c.day is None and not c.found.impossible and n + 1 < len(cands):
            nxt = cands[n + 1]
            if nxt.kind in ("bold", "line") and nxt.day is not None and nxt.index - c.index <= 3:
                c.day, c.at, nxt.consumed = nxt.day, nxt.at, True
    levels = {c.level for c in cands if c.kind == "heading" and c.day is not None}
    _repair(cands, out, skip, hints, ctx.day)
    _infer(cands, levels)


def _chronological(cands: list[_Cand]) -> list[_Cand]:
    dated = [c for c in cands if not c.consumed and (c.day is not None or c.kind == "heading")]
    return dated if _direction(cands) > 0 else dated[::-1]


def _repair(cands: list[_Cand], out: SplitResult, skip: int, hints: JournalHints, path_day: date | None) -> None:
    """A date off by one typed digit — its weekday says another day, or it falls outside its neighbours — is the
    one day that fits both, when exactly one does; otherwise it is kept as written and flagged. A date its file's
    path states too (`…/mercoledì_24/` for `## Martedì 24 novembre`) is kept: then the weekday is the slip; so is
    a stamp a tool wrote (jrnl, Day One): no typo to repair."""
    order = [c for c in _chronological(cands) if c.day is not None]
    for k, c in enumerate(order):
        assert c.day is not None
        prev = order[k - 1].day if k > 0 else None
        nxt = order[k + 1].day if k + 1 < len(order) else None
        wrong_day = bool(c.found.weekdays) and c.day.weekday() not in c.found.weekdays
        outside = prev is not None and nxt is not None and prev <= nxt and not prev <= c.day <= nxt
        if not (wrong_day or outside) or not c.found.written:
            continue
        low = prev if prev is not None else (nxt - timedelta(days=9) if nxt else c.day - timedelta(days=9))
        high = nxt if nxt is not None else low + timedelta(days=9)
        day_first = True if c.found.form == "dotted" else hints.day_first

        def parse(s: str, df: bool | None = day_first) -> date | None:
            return read_line(s, df, hints.languages).day

        fixes = [] if c.day == path_day or c.kind == "stamp" else \
            one_digit_edits(c.found.written, parse, low, high + timedelta(days=1), c.found.weekdays)
        written = c.found.written
        if len(fixes) == 1:
            c.day, c.how = fixes[0], "repaired"
            why = f"its weekday is not {written}'s" if wrong_day else "it falls outside the entries around it"
            out.flags.append((skip + c.index + 1, f"'{c.found.text.strip()}' dated {fixes[0]}: {why}, and "
                              f"{fixes[0]} is one digit away and fits (check the heading)"))
        elif wrong_day:
            out.flags.append((skip + c.index + 1, f"'{c.found.text.strip()}': {c.day} was a "
                              f"{c.day.strftime('%A')}, not the weekday written; dated as written"))
        else:
            out.flags.append((skip + c.index + 1, f"'{c.found.text.strip()}': {c.day} is out of order with the "
                              "entries around it; dated as written"))


def _infer(cands: list[_Cand], levels: set[int]) -> None:
    """Entry headings that name a day without a date (a weekday, `The weekend`, a day counter), at the level of
    the dated ones: the next such day after the entry before them, or counted on from a neighbour's counter."""
    order = _chronological(cands)
    last: _Cand | None = None
    for n, c in enumerate(order):
        if c.day is not None:
            last = c
            continue
        f = c.found
        if c.kind != "heading" or c.level not in levels or f.impossible or f.mention or f.has_date:
            continue
        if len(re.findall(r"[a-z]{3,}", f.text, re.I)) > 3 + int(f.weekend) + int(f.counter is not None):
            continue  # a sub-heading that merely contains a weekday ("Friday meeting with the team")
        if f.weekend and last is not None and last.day is not None and last.day.weekday() < 5:
            c.day, c.how = next_on(last.day, frozenset({5})), "the weekend after the entry before it"
        elif f.weekdays and last is not None and last.day is not None:
            c.day, c.how = next_on(last.day, f.weekdays), "the next such weekday after the entry before it"
        elif f.counter is not None:
            for other in (order[n - 1] if n > 0 else None, order[n + 1] if n + 1 < len(order) else None):
                if other is not None and other.day is not None and other.found.counter is not None \
                        and abs(other.found.counter - f.counter) == 1:
                    c.day = other.day + timedelta(days=f.counter - other.found.counter)
                    c.how = f"counted on from day {other.found.counter}"
                    break
        if c.day is not None:
            last = c


def split_journal(text: str, rel_path: str, hints: JournalHints | None = None) -> SplitResult:
    """Split one journal file into dated entries (see the module docstring). Pure: no clock, no file system."""
    hints = hints or JournalHints()
    out = SplitResult()
    lines = clean_text(text).split("\n")
    skip, fm = front_matter(lines)
    body = lines[skip:]
    ctx = path_context(rel_path, hints)
    fm_found = None
    for key in ("date", "title"):
        if key in fm:
            found = read_line(fm[key], hints.day_first, hints.languages)
            if found.day is not None and (key == "date" or _only_date(found)):
                fm_found = found
                break
            if key == "date":
                out.errors.append(f"front matter: {found.impossible or f'date {fm[key]!r} is not a date'} "
                                  "(use YYYY-MM-DD)")
                return out
    cands = _candidates(body, rel_path.lower().endswith(".org"), hints)
    if hints.conflict and hints.day_first is not None and any(c.found.form == "numeric" for c in cands):
        out.notes.append(f"numeric dates read {'day-first' if hints.day_first else 'month-first'}: most of the "
                         "journal's dates say so, a few say otherwise (check them)")
    _resolve(cands, ctx, fm_found.day.year if fm_found and fm_found.day else None, hints, out, skip)
    starts = [c for c in cands if c.day is not None and not c.consumed and c.kind in _SPLITTING_KINDS]
    for c in cands:
        line = skip + c.index + 1
        f = c.found
        if c in starts:
            if c.how and c.how != "repaired":
                out.flags.append((line, f"'{f.text.strip()}' dated {c.day}: {c.how}"))
            continue
        if c.consumed:
            continue
        if f.impossible:
            out.flags.append((line, f"'{f.text.strip()}': {f.impossible} — not used as an entry date"))
        elif f.numeric is not None:
            out.flags.append((line, f"'{f.text.strip()}': day-first or month-first? The journal does not settle it "
                              "(no day over 12 and no weekday anywhere) — not used as an entry date"))
        elif f.mention and f.has_date:
            out.flags.append((line, f"'{f.text.strip()}' mentions a date inside other words — kept in the entry "
                              "above, not a new entry"))
        elif f.month is not None and c.kind == "heading":
            out.flags.append((line, f"'{f.text.strip()}' has no year and none is known (add --year) — not used "
                              "as an entry date"))
        elif c.kind == "heading" and f.entry_like and (f.weekdays or f.weekend or f.counter is not None) \
                and starts and c.level in {s.level for s in starts if s.kind == "heading"}:
            out.flags.append((line, f"'{f.text.strip()}' looks like an entry but no date could be worked out — "
                              "kept in the entry above"))
    if starts:
        out.source = "headings"
        if ctx.day is not None and ctx.day not in {c.day for c in starts}:
            out.notes.append(f"its path names {ctx.day} ({ctx.written}), its headings "
                             + ", ".join(sorted({str(c.day) for c in starts})[:3]) + ": the headings' dates are used")
        first = starts[0].index
        preamble = [ln for ln in body[:first] if ln.strip() and not _MD_HEADING.match(ln)]
        for n, c in enumerate(starts):
            assert c.day is not None
            end = starts[n + 1].index if n + 1 < len(starts) else len(body)
            chunk = ([c.first] if c.first else []) + body[c.index + 1:end]
            if n == 0 and preamble:
                chunk = preamble + [""] + chunk
                out.notes.append(f"text before the first dated heading was kept with {c.day.isoformat()}")
            text_ = "\n".join(chunk).strip()
            if text_:
                out.parts.append(DatedPart(day=c.day, at=c.at, text=text_, line=skip + c.index + 1,
                                           end_line=skip + end, inferred=bool(c.how)))
            else:
                out.empty.append((skip + c.index + 1, c.day))
        if out.empty:
            out.notes.append(f"{len(out.empty)} dated heading(s) without any text under them: "
                             + ", ".join(f"line {n} ({d})" for n, d in out.empty[:5]))
        return out
    whole = "\n".join(body).strip()
    if fm_found is not None and fm_found.day is not None:
        if ctx.day is not None and ctx.day != fm_found.day:
            out.notes.append(f"the front matter's date {fm_found.day} differs from the file name's {ctx.day}; "
                             "the front matter's is used")
        if not whole:
            out.empty.append((1, fm_found.day))
        else:
            out.source = "front matter"
            out.parts.append(DatedPart(day=fm_found.day, at=fm_found.at, text=whole, line=1, end_line=len(lines)))
        return out
    if ctx.impossible:
        out.errors.append(f"the file name's date {ctx.written} is not a real date")
        return out
    if ctx.found is not None and ctx.found.numeric is not None:
        out.notes.append(f"the file name's date {ctx.found.written}: day-first or month-first? The journal does "
                         "not settle it")
    if ctx.day is not None and not whole:
        out.empty.append((1, ctx.day))
    if ctx.day is not None and whole:
        out.source = "file name"
        out.parts.append(DatedPart(day=ctx.day, at=None, text=whole, line=1, end_line=len(lines)))
    if out.undated:
        _explain_undated(cands, out, skip)
    return out


_DATEISH = re.compile(r"(?<![\d.])(?:[0-3]?\d|(?:19|20)\d{2})(?![\d])")


def _explain_undated(cands: list[_Cand], out: SplitResult, skip: int) -> None:
    """A file none of whose headings gave a date: say, for each heading that looks like a date and is not
    reported yet, why it gave none and how to fix it (the import then says so, never only "no date found")."""
    said = {n for n, _ in out.flags}
    every = month_names(frozenset(LANGUAGES))
    for c in cands:
        line, f = skip + c.index + 1, c.found
        text = f.text.strip()
        if line in said or c.kind != "heading" or not text:
            continue
        if f.weekdays or f.weekend or f.counter is not None:
            why = ("names a weekday or a day counter but no date, and no dated entry is around it to count from "
                   "(date one heading, e.g. `## 2024-03-04`, or add the date to it)")
        elif _DATEISH.search(text) or any(fold(w) in every for w in _MONTH_WORD.findall(text)):
            why = ("no date recognised (language? months and weekdays are read in " + ", ".join(LANGUAGES)
                   + "; --language LANG reads that language's abbreviations too; or write the date as YYYY-MM-DD)")
        else:
            continue
        out.flags.append((line, f"'{text}': {why}"))
