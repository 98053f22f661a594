"""Recorded QueryWorkflow histories replay against the current code (catches non-deterministic changes).
Re-record after an intended change: COLLOQUY_RECORD_HISTORIES=1 pytest tests/workflows/query."""

from __future__ import annotations

import pytest

from models.query.workflow import CONTEXT_WORKFLOW_TYPE, ContextRequest
from tests.conftest import replay, replay_recorded
from tests.workflows.query.helpers import recording


@pytest.mark.parametrize("name", ["query_clarify", "query_insight", "query_import", "query_search_first",
                                  "query_correction_choice", "query_clarify_replan",
                                  "query_reparse", "query_import_reparse", "query_import_identity",
                                  "query_empty_period", "query_context", "query_paths_refused"])
async def test_recorded_history_replays(name):
    await replay_recorded(name)


async def test_a_context_run_replays(ts_env, worker, tmp_path):
    """NotesContextWorkflow (`notes context`): a fresh run replays, and is the recorded history that pins its
    patch id (models/query/patches.py CONTEXT_SEARCH_ATTRIBUTES)."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "global-context.md").write_text("# Context\n- trains on Mondays\n", encoding="utf-8")
    async with worker(ts_env.client) as queue:
        handle = await ts_env.client.start_workflow(CONTEXT_WORKFLOW_TYPE, ContextRequest(notes_dir="notes"),
                                                    id="notes-context-replay", task_queue=queue, result_type=str)
        assert "trains on Mondays" in await handle.result()
        await replay(handle, record_as=recording("query_context"))
