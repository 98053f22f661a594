"""Recorded QueryWorkflow histories replay against the current code (catches non-deterministic changes).
Re-record after an intended change: COLLOQUY_RECORD_HISTORIES=1 pytest tests/workflows/query."""

from __future__ import annotations

import pytest

from tests.conftest import replay_recorded


@pytest.mark.parametrize("name", ["query_clarify", "query_insight", "query_import", "query_search_first",
                                  "query_correction_choice", "query_clarify_replan",
                                  "query_reparse", "query_import_reparse", "query_import_identity",
                                  "query_empty_period"])
async def test_recorded_history_replays(name):
    await replay_recorded(name)
