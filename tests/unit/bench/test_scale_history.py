"""bench/scale_history.py: what one exchange costs in history, counted from a recorded interview history."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

from temporalio.client import WorkflowExecutionStatus, WorkflowHistory

from bench.scale_history import HistoryCounts
from bench.scale_metrics import Result
from bench.scale_temporal import SessionRun, collect
from models.interview.workflow import EventLogPage

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


def test_an_interview_that_reached_its_end_is_finished_not_lost():
    """At ten exchanges a bench interview asks its whole plan and completes: the run used to count it lost."""
    statuses = {"done": WorkflowExecutionStatus.COMPLETED, "live": WorkflowExecutionStatus.RUNNING,
                "broke": WorkflowExecutionStatus.FAILED}

    class Handle:
        def __init__(self, wid: str) -> None:
            self.wid = wid

        async def describe(self):  # noqa: ANN201
            return SimpleNamespace(status=statuses[self.wid])

        async def query(self, *_args, **_kwargs):  # noqa: ANN002, ANN003, ANN201
            return EventLogPage(events=[], last_event_id=0)

        async def fetch_history(self):  # noqa: ANN201
            raise RuntimeError("not read in this test")

        async def terminate(self, _reason: str) -> None:
            return None

    client = SimpleNamespace(get_workflow_handle=Handle)
    res = Result()
    asyncio.run(collect(client, [SessionRun(w, []) for w in statuses], exchanges=1, res=res))
    assert (res.finished, res.lost) == (1, 1)
    line = res.line("temporal", 3)
    assert "sessions lost 1" in line and "interviews finished 1" in line
