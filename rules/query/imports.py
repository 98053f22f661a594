"""Import rules: dates from a note file's content, content hashes, and text cleaning (pure: models + stdlib).

A file becomes one or more dated parts. Where a date comes from, in order:
1. dated headings (`## 4.01.2015`, `# 2015-01-04`, `## Monday 4 January 2015`, `## January 4, 2015`, with an
   optional time `07:30`) and lines starting with an ISO timestamp (`2015-01-04T07:30 ran 5k`): each starts a part;
2. front matter `date: 2015-01-04` (the whole file);
3. a `YYYY-MM-DD` in the file name (the whole file).
A date-shaped value that is not a real date (`2026-02-30`, `31.02.2015`) is an error: the file is not imported.
A file with none of these is *undated*: the caller decides (today, modification time, or skip) and says so.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, time

MONTHS = {name: i + 1 for i, name in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"])}
MONTHS |= {name[:3]: n for name, n in list(MONTHS.items())} | {"sept": 9}
_MONTH = r"(?P<month_name>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|wed|thu|fri|sat|sun)\.?,?\s+"
_TIME = r"(?:(?:\s*[T,]\s*|\s+(?:at\s+)?)(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
_DATE_FORMS = [
    re.compile(r"(?P<year>\d{4})-(?P<mon>\d{1,2})-(?P<day>\d{1,2})" + _TIME, re.I),          # 2015-01-04[T07:30]
    re.compile(r"(?P<day>\d{1,2})\.(?P<mon>\d{1,2})\.(?P<year>\d{4})" + _TIME, re.I),        # 4.01.2015
    re.compile(r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(?P<year>\d{4})" + _TIME, re.I),
    re.compile(_MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})" + _TIME, re.I),
]
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ISO_LINE = re.compile(r"^(?P<year>\d{4})-(?P<mon>\d{2})-(?P<day>\d{2})[T ](?P<hour>\d{2}):(?P<minute>\d{2})"
                       r"(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b[\s:—–-]*(?P<rest>.*)$")
_FRONT_DATE = re.compile(r"^date\s*:\s*[\"']?(.+?)[\"']?\s*$", re.I)
_NAME_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

UNDATED_CHOICES = ("skip", "today", "mtime")


@dataclass
class DatedPart:
    """One entry of a file: its day, its time if the file states one, and its text."""

    day: date
    at: time | None
    text: str
    line: int = 1


@dataclass
class SplitResult:
    parts: list[DatedPart] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    source: str = ""  # "headings" | "front matter" | "file name" | "" (undated)

    @property
    def undated(self) -> bool:
        return not self.parts and not self.errors


def clean_text(text: str) -> str:
    """Remove NUL and other control characters (tabs and newlines stay); normalize line ends."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def content_hash(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def parse_date(text: str) -> tuple[date, time | None] | str | None:
    """A date (and time) at the start of `text` (after an optional weekday): the (date, time), an error
    message when it is date-shaped but impossible, or None when `text` does not start with a date."""
    s = re.sub(r"^" + _WEEKDAY, "", text.strip(), flags=re.I)
    for form in _DATE_FORMS:
        m = form.match(s)
        if not m:
            continue
        rest = s[m.end():]
        if rest and rest[0].isalnum():  # e.g. "2015-01-04abc" or "4.01.20151": not a date
            continue
        g = m.groupdict()
        month = MONTHS[g["month_name"].lower()] if g.get("month_name") else int(g["mon"])
        try:
            day = date(int(g["year"]), month, int(g["day"]))
        except ValueError:
            return f"{m.group(0).strip()} is not a real date"
        at = None
        if g.get("hour") is not None:
            try:
                at = time(int(g["hour"]), int(g["minute"]))
            except ValueError:
                return f"{m.group(0).strip()} has an impossible time"
        return day, at
    return None


def _front_matter(lines: list[str]) -> tuple[int, str | None]:
    """(lines the front matter takes, its `date:` value)."""
    if not lines or lines[0].strip() != "---":
        return 0, None
    for i in range(1, min(len(lines), 60)):
        if lines[i].strip() in ("---", "..."):
            value = next((m[1] for ln in lines[1:i] if (m := _FRONT_DATE.match(ln.strip()))), None)
            return i + 1, value
    return 0, None


def split_dated(text: str, file_name: str) -> SplitResult:
    """Split a note file into dated parts (see the module docstring). Pure: no clock, no file system."""
    out = SplitResult()
    lines = clean_text(text).split("\n")
    skip, front_date = _front_matter(lines)
    body_lines = lines[skip:]
    starts: list[tuple[int, date, time | None, str]] = []  # (line index, day, time, first body text)
    for i, line in enumerate(body_lines):
        h = _HEADING.match(line)
        if h:
            found = parse_date(h[2])
            if isinstance(found, str):
                out.errors.append(f"line {skip + i + 1}: {found}")
            elif found is not None:
                starts.append((i, found[0], found[1], ""))
            continue
        m = _ISO_LINE.match(line.strip())
        if m:
            found = parse_date(line.strip())
            if isinstance(found, str):
                out.errors.append(f"line {skip + i + 1}: {found}")
            elif found is not None:
                starts.append((i, found[0], found[1], m["rest"].strip()))
    if out.errors:
        return out
    if starts:
        out.source = "headings"
        preamble = [ln for ln in body_lines[:starts[0][0]] if ln.strip() and not _HEADING.match(ln)]
        for n, (i, day, at, first) in enumerate(starts):
            end = starts[n + 1][0] if n + 1 < len(starts) else len(body_lines)
            chunk = ([first] if first else []) + body_lines[i + 1:end]
            if n == 0 and preamble:
                chunk = preamble + [""] + chunk
                out.notes.append(f"text before the first dated heading was kept with {day.isoformat()}")
            body = "\n".join(chunk).strip()
            if body:
                out.parts.append(DatedPart(day=day, at=at, text=body, line=skip + i + 1))
        if not out.parts:
            out.notes.append("dated headings without any text under them")
        return out
    body = "\n".join(body_lines).strip()
    if front_date is not None:
        found = parse_date(front_date)
        if isinstance(found, str):
            out.errors.append(f"front matter: {found}")
        elif found is None:
            out.errors.append(f"front matter: date {front_date!r} is not a date (use YYYY-MM-DD)")
        elif body:
            out.source = "front matter"
            out.parts.append(DatedPart(day=found[0], at=found[1], text=body, line=skip + 1))
        return out
    m = _NAME_DATE.search(file_name)
    if m:
        try:
            day = date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            out.errors.append(f"the file name's date {m[0]} is not a real date")
            return out
        if body:
            out.source = "file name"
            out.parts.append(DatedPart(day=day, at=None, text=body, line=1))
    return out


def undated_part(text: str, day: date, how: str) -> DatedPart:
    """An undated file imported whole on the day the user chose (`--undated today|mtime`)."""
    body = "\n".join(clean_text(text).split("\n")[_front_matter(clean_text(text).split("\n"))[0]:]).strip()
    return DatedPart(day=day, at=None, text=body, line=1)


def undated_message(file_name: str, choice: str, day: date | None = None) -> str:
    if choice == "skip":
        return (f"{file_name}: no date in its headings, front matter or name — not imported (add a date, or "
                "re-run with --undated today|mtime)")
    source = "today's date" if choice == "today" else "its modification time"
    return f"{file_name}: no date in its headings, front matter or name — dated {day} from {source} (--undated {choice})"
