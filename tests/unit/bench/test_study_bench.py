"""bench/study.py: the study's history figures over its runs, counted from a recorded history (the look-ups that
answered "no such interview": the window the ledger's race fix covers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from temporalio.client import WorkflowHistory

from bench.study import _history

HISTORY = Path(__file__).resolve().parents[2] / "histories" / "study_lookup_race.json"


class _Client:
    def __init__(self, history: WorkflowHistory) -> None:
        self.history = history

    def get_workflow_handle(self, wid: str, run_id: str) -> Any:
        history = self.history

        class Handle:
            async def fetch_history(self) -> WorkflowHistory:
                return history

        return Handle()


async def test_counts_events_bytes_and_missing_look_ups():
    raw = json.loads(HISTORY.read_text(encoding="utf-8"))
    history = WorkflowHistory.from_json("study", raw)
    out = await _history(_Client(history), "study", "run-1")
    assert out.runs == 1 and out.events == out.max_events == len(raw["events"])
    assert out.max_bytes == sum(e.ByteSize() for e in history.events) > out.carried > 0
    assert out.missing == 3         # the recorded race: three look-up answers said "no such interview"
