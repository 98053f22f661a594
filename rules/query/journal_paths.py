"""Where a journal file's path and structure put dates (pure: stdlib and date_names.py): what its path says
(`2023-01-15.md`, `2019/08-August-2019.md`, jrnl's `2020/08/29.txt`, `Storia/2022/marzo/lunedì_21/…`), and which
lines are hidden from heading detection (fenced code, HTML comments). Used by journal_split.py."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import PurePosixPath

from rules.query.date_names import fold, month_names
from rules.query.journal_dates import JournalHints, LineDate, read_line, weekday_of

_YEAR_IN = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_YEAR_MONTH = re.compile(r"(?<!\d)((?:19|20)\d{2})[-_.](\d{1,2})(?![-_.]?\d)")
#: A day folder or file name under a year and a month folder: `29` (jrnl's `2020/08/29.txt`), `lunedì_21`, `Mon-03`.
_FOLDER_DAY = re.compile(r"(?:(?P<wd>[^\W\d_]+)[ _-]?)?(?P<day>\d{1,2})")
_FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
_MONTH_WORD = re.compile(r"[^\W\d_]+", re.I)


@dataclass
class PathContext:
    day: date | None = None
    year: int | None = None
    month: int | None = None
    written: str = ""
    impossible: str | None = None
    found: LineDate | None = None


def _folder_date(parts: list[str], languages: frozenset[str]) -> tuple[date | None, str] | None:
    """A date spread over folders: a year folder, then a month (`08`, `marzo`), then the day (`29.txt`,
    `lunedì_21/…`) — jrnl's folder journals and notes apps that file by year/month/day. (None, written): a date
    shape that is no real date."""
    names = month_names(languages or None)
    for i in range(len(parts) - 2):
        year, mon, day = parts[i:i + 3]
        if not re.fullmatch(r"(?:19|20)\d{2}", year):
            continue
        month = int(mon) if mon.isdigit() and 1 <= int(mon) <= 12 else names.get(fold(mon))
        d = _FOLDER_DAY.fullmatch(day)
        if month is None or d is None or (d["wd"] and not weekday_of(d["wd"], languages)):
            continue
        written = "/".join(parts[i:i + 3])
        try:
            return date(int(year), month, int(d["day"])), written
        except ValueError:
            return None, written
    return None


def path_context(rel_path: str, hints: JournalHints) -> PathContext:
    """What a file's path says: a whole date in its name, else a year and month (`2019/08-August-2019.md`)."""
    p = PurePosixPath(rel_path.replace("\\", "/"))
    stem = p.stem
    out = PathContext()
    if (folder := _folder_date([*p.parent.parts, p.stem], hints.languages)) is not None:
        out.written = folder[1]
        if isinstance(folder[0], date):
            out.day = folder[0]
        else:
            out.impossible = f"{folder[1]} is not a real date"
        return out
    found = read_line(stem, hints.day_first, hints.languages)
    if found.has_date or found.impossible:
        out.found = found
        out.day, out.written, out.impossible = found.day, found.written, found.impossible
    if out.day is None:
        if (ym := _YEAR_MONTH.search(stem)) and 1 <= int(ym[2]) <= 12:
            out.year, out.month = int(ym[1]), int(ym[2])
        else:
            years = [int(y) for part in [*p.parent.parts, stem] for y in _YEAR_IN.findall(part)]
            out.year = years[-1] if years else None
            names = month_names(hints.languages or None)
            months = [names[fold(w)] for w in _MONTH_WORD.findall(stem) if fold(w) in names and len(w) > 2]
            out.month = months[0] if months else None
    return out


def hidden_lines(lines: list[str]) -> set[int]:
    """The lines inside fenced code blocks (```, ~~~) and HTML comments: a `# comment` in a shell snippet or a
    template left in `<!-- -->` is no heading and no date line."""
    hidden: set[int] = set()
    fence: str | None = None
    comment = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if fence is not None:
            hidden.add(i)
            if stripped.startswith(fence):
                fence = None
            continue
        if comment:
            hidden.add(i)
            comment = "-->" not in stripped
            continue
        if (f := _FENCE.match(stripped)) is not None and not (f[1][0] == "`" and "`" in f[2]):
            fence = f[1]  # (an info string with a backtick makes it inline code, not a fence)
            hidden.add(i)
        elif "<!--" in stripped and "-->" not in stripped[stripped.index("<!--"):]:
            comment = True
            hidden.add(i)
    return hidden
