"""Which entry a correction is for (pure). A correction names a value ("that was 185 not 85"); the Parser picks a
target among recent entries. When the target does not hold the old value, or several entries do, the workflow
asks the user which entry (through the Clarifier) instead of editing a guess."""

from __future__ import annotations

import re
from dataclasses import dataclass

from models.query.parts import Entry

_NUM = r"\d+(?:[.,]\d+)?"
_OLD = re.compile(rf"\b(?:not|instead of|rather than|from)\s+({_NUM})", re.I)


@dataclass
class TargetCheck:
    ambiguous: bool
    candidates: list[Entry]
    reason: str = ""


def _has_number(text: str, value: str) -> bool:
    return re.search(rf"(?<![\d.,]){re.escape(value)}(?![\d]|[.,]\d)", text) is not None


def old_values(correction: str) -> list[str]:
    """The values being corrected: the numbers after "not" / "instead of" / "rather than" / "from"."""
    return [m[1] for m in _OLD.finditer(correction)]


def check_target(correction: str, target_id: str | None, recent: list[Entry], max_options: int = 4) -> TargetCheck:
    """Is the Parser's target clearly the entry the correction is about? When the correction names the old
    value ("… not 85"), the candidates are recent entries holding it as a number of its own ("85" in
    "Bench 85x5", not in "185x5"), newest first: one candidate that is the target → clear; otherwise → ask.
    Without an old value there is nothing to check: the Parser's target stands, and no target → ask."""
    known = any(e.id == target_id for e in recent)
    values = old_values(correction)
    if not values:
        if known:
            return TargetCheck(False, [])
        return TargetCheck(True, list(reversed(recent))[:max_options], "the correction does not say which entry")
    candidates = [e for e in reversed(recent) if any(_has_number(e.raw_content, v) for v in values)]
    ids = [e.id for e in candidates]
    if len(candidates) == 1 and target_id == ids[0]:
        return TargetCheck(False, candidates)
    mention = " or ".join(values)
    if not candidates:
        return TargetCheck(True, [e for e in reversed(recent) if e.id == target_id],
                           f"no recent entry mentions {mention}")
    if len(candidates) > 1:
        return TargetCheck(True, candidates[:max_options], f"{len(candidates)} recent entries mention {mention}")
    chosen = [e for e in reversed(recent) if e.id == target_id]
    return TargetCheck(True, candidates + chosen,
                       f"the entry that mentions {mention} is {ids[0]}, not {target_id or 'the one the Parser chose'}")


def option_label(entry: Entry) -> str:
    text = " ".join(entry.raw_content.split())
    return f"{entry.id}: {text[:60]}{'…' if len(text) > 60 else ''}"


def chosen_entry(answer: str, candidates: list[Entry]) -> str | None:
    """The entry the user picked: an id ("2026-01-09#1"), an option number ("2"), or an option's text."""
    a = answer.strip()
    for e in candidates:
        if a == e.id or a.startswith(e.id + ":") or a.startswith(e.id + " ") or a == option_label(e):
            return e.id
    if a.isdigit() and 1 <= int(a) <= len(candidates):
        return candidates[int(a) - 1].id
    m = re.search(r"\d{4}-\d{2}-\d{2}#\d+", a)
    if m and any(e.id == m[0] for e in candidates):
        return m[0]
    return None
