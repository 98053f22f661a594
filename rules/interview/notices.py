"""Section boundaries and time warnings, as the clients show them (003 §9: a clear boundary between sections).

The engine already logs them (SECTION_STARTED, SECTION_ENDED, SECTION_TIME_WARNING); a client reads the event log
(`event_log(after_event_id)`) and turns each into a `Notice` with one sentence for a person. The room, the
interviewer console (client/web/interview/room.py pushes them with the state) and `join` (client/interview/join.py prints them) all
use this one wording.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from models.interview.workflow import InterviewEvent
from rules.interview.timing import fmt_clock

NOTICE_EVENTS = ("SECTION_STARTED", "SECTION_ENDED", "SECTION_TIME_WARNING")
KEEP = 20          # notices a client holds (the latest ones): bounded whatever the interview's length

END_REASONS = {
    "time_expired": "its time is up",
    "candidate_done": "done early, as the interviewee asked",
    "coverage_satisfied": "everything it set out to cover was covered",
    "followup_budget_exhausted": "its follow-up questions are used up",
    "followups_exhausted": "no follow-up question was left for what it still had open",
    "interview_ended": "the interview ended",
    "system_error": "of a system error",
    "not_reached": "the interview's time ran out before it",
}


def notice(ev: InterviewEvent, titles: dict[str, str]) -> dict[str, Any] | None:
    """One event as a notice ({event_id, kind, section_id, title, at, seconds_left?, text}); None for other events."""
    if ev.type not in NOTICE_EVENTS:
        return None
    p, sid = ev.payload, ev.section_id or ""
    if ev.type == "SECTION_STARTED":
        titles[sid] = str(p.get("title") or sid)
    title = titles.get(sid, sid)
    base: dict[str, Any] = {"event_id": ev.event_id, "section_id": sid, "title": title,
                            "at": ev.timestamp.isoformat()}
    if ev.type == "SECTION_STARTED":
        seconds = p.get("duration_seconds")
        length = f" ({fmt_clock(float(seconds))})" if isinstance(seconds, (int, float)) else ""
        goal = str(p.get("goal") or "").strip()
        return {**base, "kind": "section_started",
                "text": f"New section: {title}{length}" + (f" — {goal}" if goal else "")}
    if ev.type == "SECTION_ENDED":
        reason = str(p.get("reason") or "")
        why = END_REASONS.get(reason, reason.replace("_", " "))
        return {**base, "kind": "section_ended", "reason": reason,
                "text": f"Section ended: {title}" + (f" ({why})" if why else "")}
    seconds_left = p.get("seconds_left")
    left = fmt_clock(float(seconds_left)) if isinstance(seconds_left, (int, float)) else "little time"
    return {**base, "kind": "time_warning", "seconds_left": seconds_left,
            "text": f"{left} left in this section ({title})"}


class Notices:
    """The latest notices of one session, fed from the event log page by page (`cursor`: the last event read)."""

    def __init__(self, keep: int = KEEP) -> None:
        self.cursor = 0
        self.titles: dict[str, str] = {}
        self.items: deque[dict[str, Any]] = deque(maxlen=keep)

    def take(self, events: Iterable[InterviewEvent]) -> list[dict[str, Any]]:
        """Read events (any order, repeats ignored); returns the new notices."""
        new = []
        for ev in sorted(events, key=lambda e: e.event_id):
            if ev.event_id <= self.cursor:
                continue
            self.cursor = ev.event_id
            n = notice(ev, self.titles)
            if n is not None:
                self.items.append(n)
                new.append(n)
        return new

    def latest(self) -> list[dict[str, Any]]:
        return list(self.items)
