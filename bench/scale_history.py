"""What one exchange costs in history, read from the sessions' recorded histories (`bench.interview_scale`).

Counted from the first accepted update (the first entry a client sent) to the end of the history, so the start,
the plan and the opening question are left out, then divided by the session's exchanges (a question and its
answer): events, workflow tasks completed, activity tasks scheduled, updates accepted, signals, timers started,
and the bytes of those events as stored (their payloads, mostly). A sample of sessions is read, not all of them:
histories are large and reading them is bookkeeping, not load.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

SAMPLE = 5      # sessions whose histories are read per run
COUNTED = {
    "workflow_tasks": EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    "activity_tasks": EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
    "updates": EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
    "signals": EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    "timers": EventType.EVENT_TYPE_TIMER_STARTED,
}


@dataclass
class HistoryCounts:
    sessions: int = 0
    exchanges: int = 0
    events: int = 0
    workflow_tasks: int = 0
    activity_tasks: int = 0
    updates: int = 0
    signals: int = 0
    timers: int = 0
    bytes: int = 0

    def add(self, events: Iterable[HistoryEvent], exchanges: int) -> None:
        """One session's history: its live part (from the first accepted update) counted, for `exchanges`."""
        live = False
        for event in events:
            live = live or event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
            if not live:
                continue
            self.events += 1
            self.bytes += event.ByteSize()
            for name, kind in COUNTED.items():
                if event.event_type == kind:
                    setattr(self, name, getattr(self, name) + 1)
        self.sessions += 1
        self.exchanges += exchanges

    def per_exchange(self) -> dict[str, float]:
        n = max(1, self.exchanges)
        return {name: getattr(self, name) / n for name in ("events", "workflow_tasks", "activity_tasks", "updates",
                                                            "signals", "timers", "bytes")}

    def line(self) -> str:
        if not self.sessions:
            return "history per exchange: not read"
        p = self.per_exchange()
        return (f"history per exchange ({self.sessions} sessions read, start left out): {p['events']:.1f} events, "
                f"{p['workflow_tasks']:.1f} workflow tasks, {p['activity_tasks']:.1f} activity tasks, "
                f"{p['updates']:.1f} updates, {p['signals']:.1f} signals, {p['timers']:.1f} timers, "
                f"{p['bytes'] / 1024:.1f} KiB")
