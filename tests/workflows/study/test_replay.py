"""Determinism of StudyWorkflow: a small study (links opened, child interviews, look-ups, digests, the analysis)
replays fresh, and the recorded history in tests/histories/ replays against the current code.

Re-record after an intended workflow change (and say so in the commit):
    COLLOQUY_RECORD_HISTORIES=1 .venv/bin/pytest -q tests/workflows/study/test_replay.py
"""

from __future__ import annotations

import asyncio
import hashlib
import os

import pytest

from client.interview.cli import RehearsalOptions, TranscriptAnswers, rehearse
from models.study.workflow import UPDATE_OPEN_LINK, UPDATE_REVOKE_PARTICIPANT, OpenedLink, RevokeParticipant
from tests.conftest import HISTORIES, replay
from tests.e2e.interview.helpers import ANSWERS
from tests.workflows.study.helpers import invite, opening, start_study

RECORD = os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1"
NAME = "study_small"
STUDY_ID = "study-replay-small"   # the children's ids derive from it: the recorded history replays under it


@pytest.mark.dev_server
async def test_a_small_study_replays(dev_env, worker, offline, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    client = dev_env.client
    async with worker(client) as queue:
        h = await start_study(client, queue, STUDY_ID, quota=2, cycle_seconds=1,
                              check_seconds=0.5)
        people = await invite(h, 3)
        await h.execute_update(UPDATE_REVOKE_PARTICIPANT, RevokeParticipant(participant_id="P003"))

        async def take_part(token: str, language: str, answers: list[str]) -> None:
            opened = await h.execute_update(UPDATE_OPEN_LINK, opening(hashlib.sha256(token.encode()).hexdigest(),
                                                                      language), result_type=OpenedLink)
            await rehearse(client, opened.interview_id, TranscriptAnswers(answers),
                           RehearsalOptions(fresh_question_timeout=15, poll_seconds=0.1))

        await asyncio.gather(take_part(people[0][1], "en", ANSWERS[:2]), take_part(people[1][1], "de", ANSWERS[2:4]))
        result = await h.result()
        await replay(h, record_as=NAME if RECORD else None)
    assert result.completed == 2 and result.revoked == 1 and result.outputs is not None


@pytest.mark.skipif(not (HISTORIES / f"{NAME}.json").exists(), reason="no recorded study history yet")
async def test_the_recorded_study_replays():
    from temporalio.client import WorkflowHistory
    from temporalio.contrib.pydantic import pydantic_data_converter
    from temporalio.worker import Replayer

    from workers import registry

    history = WorkflowHistory.from_json(STUDY_ID, (HISTORIES / f"{NAME}.json").read_text())
    await Replayer(workflows=registry.workflows(), data_converter=pydantic_data_converter).replay_workflow(history)
