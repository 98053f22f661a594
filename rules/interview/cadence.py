"""000 processing optimisation: skip NoteTaker/Researcher without new content; reuse a decision < 30 s old;
research a topic again only after 300 s. What each live agent is sent: the listeners get what was said since they
last listened (plus a few entries of context) — their notes and topics so far hold the rest; the Orchestrator the
last 30 entries and the most recent research. All as `WindowLine`s (speaker, text, kind)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from models.interview.entries import TranscriptEntry, WindowLine

DECISION_REUSE_SECONDS = 30.0
TOPIC_REFRESH_SECONDS = 300.0
NOTES_WINDOW = 20
RESEARCH_WINDOW = 20
ORCHESTRATOR_WINDOW = 30
LISTEN_CONTEXT = 4            # entries before the new ones the listeners see again, for context
RESEARCH_IN_PROMPT = 8        # research items the Orchestrator is sent (the most recent)


def should_run_listeners(new_entries: int) -> bool:
    """NoteTaker and Researcher run only when something new was said."""
    return new_entries > 0


def should_reuse_decision(new_entries: int, last_decided_at: datetime | None, now: datetime,
                          context_changed: bool = False) -> bool:
    """Reuse when nothing new arrived, nothing changed (phase/section) and the decision is < 30 s old."""
    if new_entries > 0 or last_decided_at is None or context_changed:
        return False
    return (now - last_decided_at).total_seconds() < DECISION_REUSE_SECONDS


def _topic_key(topic: str) -> str:
    return " ".join(topic.lower().split())


def fresh_topics(candidates: list[str], researched_at: dict[str, datetime], now: datetime,
                 refresh_seconds: float = TOPIC_REFRESH_SECONDS) -> list[str]:
    """Topics not researched yet, or researched more than `refresh_seconds` ago (deduplicated, in order)."""
    out: list[str] = []
    for topic in candidates:
        key = _topic_key(topic)
        if not key or key in {_topic_key(t) for t in out}:
            continue
        last = researched_at.get(key)
        if last is None or now - last >= timedelta(seconds=refresh_seconds):
            out.append(topic)
    return out


def mark_researched(researched_at: dict[str, datetime], topics: list[str], now: datetime) -> dict[str, datetime]:
    out = dict(researched_at)
    for topic in topics:
        out[_topic_key(topic)] = now
    return out


def window(entries: list, size: int) -> list:
    return list(entries) if len(entries) <= size else list(entries[-size:])


def listen_window(entries: Sequence[TranscriptEntry], processed_seq: int, limit: int) -> list[TranscriptEntry]:
    """The listeners' delta: entries after `processed_seq` (the last cycle's), preceded by up to LISTEN_CONTEXT
    earlier ones, never more than `limit` in all (the newest)."""
    first_new = next((i for i, e in enumerate(entries) if e.seq > processed_seq), len(entries))
    return window(list(entries[max(0, first_new - LISTEN_CONTEXT):]), limit)


def lines(entries: Sequence[TranscriptEntry]) -> list[WindowLine]:
    """Entries as an agent reads them: speaker, text, kind — nothing else crosses into the activity input."""
    return [WindowLine(speaker=e.speaker, text=e.text, kind=e.kind) for e in entries]
