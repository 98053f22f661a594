"""Storage activities do their synchronous disk/DB work in a thread: while the store is busy, the worker's event
loop keeps running (other activities, heartbeats, polls)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from activities import artifacts
from activities.interview import storage as interview_storage
from activities.writing import history
from activities.writing import storage as writing_storage
from models.common import ArtifactRef, PutArtifactInput
from models.interview.activities import ArchiveInput

BUSY_S = 0.3


class SlowStore:
    """A store whose every call blocks its thread for BUSY_S (like a slow disk)."""

    ref = ArtifactRef(uri="file:///nowhere/x", name="x", sha256="0" * 64, size_bytes=0, content_type="text/plain")

    def put(self, *args: Any, **kwargs: Any) -> ArtifactRef:
        time.sleep(BUSY_S)
        return self.ref

    def get(self, *args: Any) -> str:
        time.sleep(BUSY_S)
        return ""


class SlowHistory:
    def __init__(self, location: str | None = None) -> None:
        pass

    def record_run(self, *args: Any) -> int:
        time.sleep(BUSY_S)
        return 0


async def _loop_ticks_while(coro: Any) -> int:
    """How many times a 10 ms ticker ran on the loop while `coro` was running."""
    ticks = 0
    done = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not done.is_set():
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        await coro
    finally:
        done.set()
        await task
    return ticks


CASES = {
    "put_artifact": (artifacts, lambda: artifacts.put_artifact(PutArtifactInput(scope="s", name="n", content="c"))),
    "get_artifact": (artifacts, lambda: artifacts.get_artifact(SlowStore.ref)),
    "interview_archive_lines": (interview_storage, lambda: interview_storage.interview_archive_lines(
        ArchiveInput(workflow_id="w", name="n", lines=["a"]))),
    "writing_dump_context": (writing_storage, lambda: writing_storage.writing_dump_context(
        writing_storage.DumpInput(run_id="r", context={}))),
}


@pytest.mark.parametrize("name", list(CASES))
async def test_a_busy_store_does_not_block_the_event_loop(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module, call = CASES[name]
    monkeypatch.setattr(module, "store", SlowStore)
    assert await _loop_ticks_while(call()) >= 5


async def test_recording_history_does_not_block_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "HistoryStore", SlowHistory)
    from tests.unit.writing.test_history_and_logs import T0, record

    inp = history.RecordHistoryInput(**record("r1", "s", T0, {"a": 1}, {"a": 0.01}).model_dump())
    assert await _loop_ticks_while(history.writing_record_history(inp)) >= 5
