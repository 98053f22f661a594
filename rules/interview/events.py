"""003 §3.2 append-only event log: monotonic ids, actor, workflow-time timestamps, typed payloads."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from models.interview.names import EVENT_TYPES
from models.interview.workflow import InterviewEvent

ACTORS = ("system", "interviewer_ai", "assistant_ai", "candidate", "interviewer", "client")


class EventLog:
    """Events in memory (the tail, after continue-as-new) plus the next id. Never edits an event."""

    def __init__(self, events: list[InterviewEvent] | None = None, next_id: int = 1) -> None:
        self.events: list[InterviewEvent] = list(events or [])
        self.next_id = max(next_id, (self.events[-1].event_id + 1) if self.events else 1)

    @property
    def last_id(self) -> int:
        return self.next_id - 1

    def append(self, timestamp: datetime, actor: str, type: str, payload: dict[str, Any] | None = None,
               section_id: str | None = None) -> InterviewEvent:
        if type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {type}")
        if actor not in ACTORS:
            raise ValueError(f"unknown actor {actor}")
        if self.events and timestamp < self.events[-1].timestamp:
            timestamp = self.events[-1].timestamp  # workflow time never goes back; keep the log ordered
        event = InterviewEvent(event_id=self.next_id, timestamp=timestamp, actor=actor, type=type,
                               section_id=section_id, payload=payload or {})
        self.events.append(event)
        self.next_id += 1
        return event

    def after(self, event_id: int, limit: int = 1000) -> list[InterviewEvent]:
        return [e for e in self.events if e.event_id > event_id][:limit]

    def first_id(self) -> int:
        return self.events[0].event_id if self.events else self.next_id

    def split_for_archive(self, keep: int) -> tuple[list[InterviewEvent], list[InterviewEvent]]:
        """(events to archive, events to keep in memory)."""
        if len(self.events) <= keep:
            return [], list(self.events)
        return list(self.events[:-keep]), list(self.events[-keep:])

    def of_type(self, *types: str) -> list[InterviewEvent]:
        return [e for e in self.events if e.type in types]


def to_jsonl(events: list[InterviewEvent]) -> str:
    return "".join(e.model_dump_json() + "\n" for e in events)
