"""The study with a withdrawal erased (patch study-erasure) replays: its recorded history
(tests/histories/study_erasure.json, recorded by tests/e2e/study/test_erasure.py with COLLOQUY_RECORD_HISTORIES=1,
encryption off) against the current code. The e2e test also replays each run it makes, encrypted ones included."""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from core.converter import colloquy_data_converter
from tests.conftest import HISTORIES
from workers import registry

NAME = "study_erasure"
STUDY_ID = "study-erasure-plain"   # the children's ids derive from it: the history replays under it


@pytest.mark.parametrize("name", [NAME, "study_erasure_purge"])
async def test_the_recorded_erasure_replays(name):
    """study_erasure: the run in which P002 corrected an answer, withdrew and was erased, then continued as new;
    study_erasure_purge: the next run, which deleted that one."""
    history = WorkflowHistory.from_json(STUDY_ID, (HISTORIES / f"{name}.json").read_text())
    await Replayer(workflows=registry.workflows(), data_converter=colloquy_data_converter).replay_workflow(history)
