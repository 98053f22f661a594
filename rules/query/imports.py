"""Import rules: a note file split into dated entries, content identity, and text cleaning (pure: stdlib only).

How a file is split and dated is in journal_split.py (dates as people write them: journal_dates.py); this module
keeps the import's entry points: `split_dated` (one file, with the journal's hints), `journal_hints` (what the
whole journal settles: numeric date order, its years, the user's --year), `entry_key` (an entry's identity: its
date and its normalised text, so a moved, renamed or re-exported journal is recognised), `parse_date`.
A file whose name or front matter states an impossible date is an error (not imported); an impossible or unreadable
date in a heading is reported with its line and does not split. A file with no date is *undated*: the caller
decides (skip, today, or modification time) and says so.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date, time

from rules.query.date_names import LANGUAGES
from rules.query.journal_dates import JournalHints, read_line
from rules.query.journal_split import (
    DatedPart,
    SplitResult,
    clean_text,
    front_matter,
    journal_hints,
    split_journal,
)

__all__ = ["IMPORT_SUFFIXES", "LANGUAGES", "UNDATED_CHOICES", "DatedPart", "JournalHints", "SplitResult", "clean_text",
           "content_hash", "entry_key", "journal_hints", "normalised", "parse_date", "split_dated",
           "undated_message", "undated_part"]

#: The files an import reads (org-mode journals included).
IMPORT_SUFFIXES = (".md", ".txt", ".markdown", ".org")
UNDATED_CHOICES = ("skip", "today", "mtime")
_SPACE = re.compile(r"\s+")


def content_hash(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def normalised(text: str) -> str:
    """An entry's text as its identity sees it: control characters and line-end styles gone, every run of white
    space one space (a fresh export that re-wraps or re-indents nothing else is the same entry)."""
    return _SPACE.sub(" ", clean_text(text)).strip()


def entry_key(day: date, text: str) -> str:
    """An imported entry's identity: its date and a hash of its normalised text (never its file's path)."""
    return f"{day.isoformat()}:{content_hash(normalised(text))[:24]}"


def parse_date(text: str) -> tuple[date, time | None] | str | None:
    """A complete date (and time) in `text` (a heading's words): the (date, time), an error message when it is
    date-shaped but impossible, or None when `text` states no complete date."""
    found = read_line(text, day_first=True)
    if found.impossible:
        return found.impossible
    if found.day is None or found.mention:
        return None
    return found.day, found.at


def split_dated(text: str, file_name: str, hints: JournalHints | None = None) -> SplitResult:
    """Split a note file into dated parts; `file_name` may be its path relative to the journal (a folder named
    for a year dates its yearless headings). Pure: no clock, no file system."""
    return split_journal(text, file_name, hints)


def undated_part(text: str, day: date, how: str) -> DatedPart:
    """An undated file imported whole on the day the user chose (`--undated today|mtime`)."""
    lines = clean_text(text).split("\n")
    body = "\n".join(lines[front_matter(lines)[0]:]).strip()
    return DatedPart(day=day, at=None, text=body, line=1)


def undated_message(file_name: str, choice: str, day: date | None = None, looked: int = 0) -> str:
    """What an import says of a file with no date. `looked`: how many of its lines look like dates but gave none
    (each reported on its own line, with why and the fix: `--year`, `--language`, YYYY-MM-DD)."""
    why = "no date found in its headings, front matter or name"
    if looked:
        why = (f"no date found: {looked} heading(s) look like dates but gave none (see the notes on their lines), "
               "and its front matter and name state none")
    if choice == "skip":
        return (f"{file_name}: {why} — not imported (fix those headings: --year for dates without a year, "
                "--language for another language's abbreviations, or YYYY-MM-DD; or re-run with --undated today|mtime)")
    source = "today's date" if choice == "today" else "its modification time"
    return f"{file_name}: {why} — dated {day} from {source} (--undated {choice})"
