"""Evidence checked: an answer cites only entries that were read for it, and an empty period is said to be empty.

Like an unverified quote (rules/grounding.py), a cited entry id that does not exist or was not among the entries
read for the answer is never reported as evidence: it is dropped and the answer says so. A question whose asked
period holds no notes at all is answered with exactly that — never from the nearest notes outside it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

CONFIDENCE_DOWN = {"high": "medium", "medium": "low", "low": "low"}
MAX_LISTED = 5


def check_cited(cited: Iterable[str], read: Iterable[str]) -> tuple[list[str], list[str]]:
    """(kept, dropped): the cited ids that were read (first-seen order, no repeats), and the others."""
    known = set(read)
    kept: list[str] = []
    dropped: list[str] = []
    for entry_id in cited:
        target = kept if entry_id in known else dropped
        if entry_id not in target:
            target.append(entry_id)
    return kept, dropped


def dropped_note(dropped: list[str]) -> str:
    """The line an answer gets when cited ids were dropped."""
    shown = ", ".join(dropped[:MAX_LISTED]) + (f" and {len(dropped) - MAX_LISTED} more" if len(dropped) > MAX_LISTED
                                               else "")
    what = "entry" if len(dropped) == 1 else "entries"
    return f"[unverified evidence — cited {what} {shown} not among the notes read for this answer; dropped]"


def checked_answer(response: str, cited: Iterable[str], read: Iterable[str],
                   confidence: str) -> tuple[str, list[str], str]:
    """(response, evidence, confidence) with every cited id that was not read dropped: the response says which,
    and the confidence goes one step down (to low when no cited entry is left)."""
    kept, dropped = check_cited(cited, read)
    if not dropped:
        return response, kept, confidence
    note = dropped_note(dropped)
    text = response if note in response else f"{response.rstrip()}\n\n{note}"
    return text, kept, ("low" if not kept else CONFIDENCE_DOWN.get(confidence, "low"))


def describe_period(start: date, end: date) -> str:
    return start.isoformat() if start == end else f"{start.isoformat()} to {end.isoformat()}"


def empty_period_answer(periods: list[tuple[date, date]]) -> str:
    """The answer to a question whose asked period(s) hold no notes."""
    spans = "; ".join(describe_period(s, e) for s, e in periods)
    return (f"No notes in that period: you have no notes from {spans}, so there is nothing to answer from. "
            "(Notes outside it were not used.)")


def asked_periods(instructions: list[Any]) -> list[tuple[date, date]]:
    """The date ranges a first plan's retrieval instructions ask about (sorted, each start <= end), or [] when
    any instruction is not bounded by dates (a keyword search over every note is not a question about a period)."""
    out: set[tuple[date, date]] = set()
    for ins in instructions:
        start, end = ins.start or ins.end, ins.end or ins.start
        if start is None or end is None:
            return []
        out.add((min(start, end), max(start, end)))
    return sorted(out)
