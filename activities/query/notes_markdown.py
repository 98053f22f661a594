"""How notes are written as markdown day files: the `## HH:MM` section headings, escaping, and reading the
sections back (used by `notes_repository.StorageRepository`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, time

from models.query.parts import Entry

_SECTION = re.compile(r"^## (\d{2}:\d{2}|--:--)(?: \[correction\](?: → (\S+))?)?\s*$")
UNTIMED = "--:--"  # the heading of an entry whose note states no time (imports), never a made-up 00:00
_DAY_FILE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")


def _term(term: str) -> re.Pattern[str]:
    """grep-like, at word starts: 'swim' finds 'swimming'; a short term (<= 2 letters, e.g. 'pr') only whole
    words, so it does not match inside 'press'."""
    body = re.escape(term)
    return re.compile(rf"\b{body}\b" if len(term) <= 2 else rf"\b{body}")


def _months(start: date, end: date) -> Iterator[tuple[int, int]]:
    y, m = start.year, start.month
    while (y, m) <= (end.year, end.month):
        yield y, m
        m += 1
        if m == 13:
            y, m = y + 1, 1


def _heading_time(entry: Entry) -> str:
    return f"{entry.timestamp:%H:%M}" if entry.timed else UNTIMED


def _replace_section(text: str, n: int, hhmm: str, body: str) -> tuple[str, str] | None:
    """Replace the n-th (1-based) entry section (not a correction) of a day file: (new text, old body)."""
    lines = text.split("\n")
    count, start = 0, None
    for i, line in enumerate(lines):
        m = _SECTION.match(line)
        if m and "[correction]" not in line:
            count += 1
            if count == n:
                start = i
                break
    if start is None:
        return None
    end = next((j for j in range(start + 1, len(lines)) if _SECTION.match(lines[j])), len(lines))
    old = _unescape(lines[start + 1:end])
    tail = lines[end:]
    new_lines = lines[:start] + [f"## {hhmm}", *body.split("\n"), ""] + tail
    return "\n".join(new_lines).rstrip("\n") + "\n", old


def _timestamp(day: date, hhmm: str) -> datetime:
    try:
        h, mi = (int(x) for x in hhmm.rstrip("!").split(":"))
        return datetime.combine(day, time(h, mi), tzinfo=UTC)
    except ValueError:
        return datetime.combine(day, time(0, 0), tzinfo=UTC)


def _day_of(entry_id: str) -> date | None:
    try:
        return date.fromisoformat(entry_id.split("#", 1)[0])
    except ValueError:
        return None


def _escape(text: str) -> str:
    """A line inside an entry that looks like a section heading is escaped, so sections stay unambiguous."""
    return "\n".join("\\" + line if _SECTION.match(line) else line for line in text.splitlines())


def _split_sections(text: str) -> list[tuple[str, str | None, str]]:
    """(HH:MM, correction target or None, body) per `## HH:MM` section. A correction section without a
    target is returned with HH:MM + '!' and attaches to the entry before it."""
    out: list[tuple[str, str | None, str]] = []
    current: tuple[str, str | None] | None = None
    body: list[str] = []
    loose: list[str] = []
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            if current is not None:
                out.append((current[0], current[1], _unescape(body)))
            is_corr = "[correction]" in line
            current = (m[1] + ("!" if is_corr and not m[2] else ""), m[2])
            body = []
        elif current is None:
            if line.strip() and not line.startswith("# "):
                loose.append(line)
        else:
            body.append(line)
    if current is not None:
        out.append((current[0], current[1], _unescape(body)))
    if loose:  # a hand-written day file without sections: one entry at 00:00
        out.insert(0, ("00:00", None, "\n".join(loose).strip()))
    return out


def _unescape(lines: list[str]) -> str:
    return "\n".join(line[1:] if line.startswith("\\## ") else line for line in lines).strip()
