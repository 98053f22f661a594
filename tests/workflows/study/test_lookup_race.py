"""Issue 36's race on the time-skipping server: look-ups that find "no such interview" for an interview whose start
the study has asked for (the server's answer before the child exists, scripted here) leave the participant
running; when the interview then reports finished it is completed, and it reaches the quota. Before the fix
the first such look-up recorded the participant "abandoned" for good and the quota was never reached.

The study runs on its own worker with the look-up activity scripted and a stand-in interview workflow, so the
timing is the test's; the run replays against the current code, and its recorded history
(tests/histories/study_lookup_race.json) pins patch study-lookup-race's new path."""

from __future__ import annotations

import os
import uuid
from datetime import timedelta
from typing import Any

from temporalio import activity, workflow
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer, Worker

from core.converter import colloquy_data_converter
from models.common import ArtifactRef
from models.interview.names import WORKFLOW_TYPE as INTERVIEW_WORKFLOW_TYPE
from models.study.activities import InterviewLookup, LookupInput
from models.study.workflow import (
    QUERY_PARTICIPANTS,
    QUERY_PROGRESS,
    UPDATE_OPEN_LINK,
    OpenedLink,
    StudyProgress,
)
from tests.conftest import HISTORIES, replay
from tests.workflows.study.helpers import invite, opening, sha, start_study
from workers import registry
from workflows.study.workflow import StudyWorkflow

REF = ArtifactRef(name="transcript.json", uri="file:///t.json", sha256="0" * 64, size_bytes=2,
                  content_type="application/json")
RECORD = os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1"
NAME = "study_lookup_race"
STUDY_ID = "study-lookup-race"     # the child's id derives from it: the recorded history replays under it
MISSING_LOOKUPS = 3          # within the grace (60 s): the interview is not yet started, not abandoned


@workflow.defn(name=INTERVIEW_WORKFLOW_TYPE, sandboxed=False)
class StandInInterview:
    @workflow.run
    async def run(self, raw: Any) -> None:
        await workflow.wait_condition(lambda: False)


class ScriptedLookups:
    def __init__(self) -> None:
        self.calls = 0

    @activity.defn(name="study_lookup_interviews")
    async def lookup(self, inp: LookupInput) -> list[InterviewLookup]:
        self.calls += 1
        if self.calls <= MISSING_LOOKUPS:
            return [InterviewLookup(interview_id=i, state="missing", error="no such interview")
                    for i in inp.interview_ids]
        return [InterviewLookup(interview_id=i, state="finished", exit_reason="closing_detected", answers=3,
                                transcript=REF, length_seconds=120.0) for i in inp.interview_ids]


async def test_no_such_interview_then_finished_is_completed_and_reaches_the_quota(ts_env):
    client = ts_env.client
    lookups = ScriptedLookups()
    queue = f"test-{uuid.uuid4().hex[:8]}"
    async with Worker(client, task_queue=queue, workflows=[StudyWorkflow, StandInInterview],
                      activities=[lookups.lookup]):
        h = await start_study(client, queue, STUDY_ID, quota=1, check_seconds=2.0)
        [(_, t)] = await invite(h, 1)
        opened = await h.execute_update(UPDATE_OPEN_LINK, opening(sha(t)), result_type=OpenedLink)
        assert opened.new
        for _ in range(MISSING_LOOKUPS):
            await ts_env.sleep(timedelta(seconds=2.5))
            progress = await h.query(QUERY_PROGRESS, result_type=StudyProgress)
            assert progress.abandoned == 0 and progress.running == 1, progress
        await ts_env.sleep(timedelta(seconds=5))
        progress = await h.query(QUERY_PROGRESS, result_type=StudyProgress)
        people = await h.query(QUERY_PARTICIPANTS)
        assert lookups.calls > MISSING_LOOKUPS
        assert progress.completed == 1 and progress.abandoned == 0, (progress, people)
        assert progress.quota == progress.completed        # the quota is reached (it closes after the digest)
        await h.terminate("test over (the analysis needs the model workers)")
        await replay(h, record_as=NAME if RECORD else None)


async def test_the_recorded_race_replays():
    """tests/histories/study_lookup_race.json (recorded by the test above with COLLOQUY_RECORD_HISTORIES=1) pins
    the new path of patch study-lookup-race: its marker and the look-ups that found no interview."""
    history = WorkflowHistory.from_json(STUDY_ID, (HISTORIES / f"{NAME}.json").read_text())
    await Replayer(workflows=registry.workflows(), data_converter=colloquy_data_converter).replay_workflow(history)
