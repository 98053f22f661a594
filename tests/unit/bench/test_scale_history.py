"""bench/scale_history.py: what one exchange costs in history, counted from a recorded interview history."""

from __future__ import annotations

import json
from pathlib import Path

from temporalio.client import WorkflowHistory

from bench.scale_history import HistoryCounts
from bench.scale_metrics import Result

HISTORY = Path(__file__).resolve().parents[2] / "histories" / "interview_after_scale.json"


def test_counts_the_live_part_per_exchange():
    raw = json.loads(HISTORY.read_text(encoding="utf-8"))
    events = WorkflowHistory.from_json("interview", raw).events
    first_update = next(i for i, e in enumerate(raw["events"])
                        if e["eventType"] == "EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED")
    live = raw["events"][first_update:]
    counts = HistoryCounts()
    counts.add(events, exchanges=2)
    assert counts.sessions == 1 and counts.exchanges == 2
    assert counts.events == len(live)
    assert counts.updates == 5
    assert counts.workflow_tasks == sum(e["eventType"] == "EVENT_TYPE_WORKFLOW_TASK_COMPLETED" for e in live)
    assert counts.activity_tasks == sum(e["eventType"] == "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED" for e in live)
    assert 0 < counts.bytes
    per = counts.per_exchange()
    assert per["events"] == len(live) / 2
    assert "events" in counts.line() and "1 sessions read" in counts.line()
    assert HistoryCounts().line() == "history per exchange: not read"


def test_a_session_with_no_update_counts_nothing_live():
    raw = json.loads(HISTORY.read_text(encoding="utf-8"))
    counts = HistoryCounts()
    counts.add(WorkflowHistory.from_json("interview", raw).events[:3], exchanges=1)   # start, first task: no entry
    assert counts.events == 0 and counts.sessions == 1


def test_sustained_means_within_the_pace():
    res = Result(latencies=[12.0, 13.0], pace=30.0)
    assert "-> sustained" in res.line("temporal", 2)
    assert "NOT sustained" in Result(latencies=[12.0, 13.0]).line("temporal", 2)
