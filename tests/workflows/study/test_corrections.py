"""Issue 36, item 2, on the time-skipping server: a participant corrects an answer on the read-back page, the
study closes, and the findings quote the corrected words, marked corrected — the digest is redone on the corrected
transcript (its model output scripted: the first digest quotes the answer as said, the redone one the correction)
and the quote is checked against the corrected answer. Before the fix the findings quoted the original words.

The study runs on its own workers with the look-up activity scripted and a stand-in interview workflow (as in
test_lookup_race.py); the digest, theme merge, reduce, synthesis and publish activities are the real ones (the
model is the offline double, scripted for the digests). The run replays against the current code; its recorded
history (tests/histories/study_corrections.json) pins patch study-corrections."""

from __future__ import annotations

import json
import os
import uuid
from datetime import timedelta
from typing import Any

from temporalio import activity, workflow
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer, Worker

from activities.artifacts import store
from activities.study import study_digest, study_publish, study_reduce, study_synthesis, study_theme_merge
from core.converter import colloquy_data_converter
from models.interview.entries import TranscriptEntry
from models.interview.names import WORKFLOW_TYPE as INTERVIEW_WORKFLOW_TYPE
from models.study.activities import InterviewLookup, LookupInput
from models.study.workflow import (
    QUERY_FINDINGS_DRAFT,
    QUERY_PROGRESS,
    UPDATE_CLOSE,
    UPDATE_MEMBER_CHECK,
    UPDATE_OPEN_LINK,
    CloseStudy,
    Findings,
    MemberCheck,
    MemberCheckView,
    OpenedLink,
    StudyProgress,
    StudyResult,
)
from tests.conftest import HISTORIES, replay
from tests.workflows.study.helpers import invite, opening, sha, start_study
from workers import registry
from workflows.calls import LLM_QUEUE_SUFFIX
from workflows.study.workflow import StudyWorkflow

RECORD = os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1"
NAME = "study_corrections"
STUDY_ID = "study-corrections"
SAID = "We silenced the noisy alerts for a week and nobody noticed."
MEANT = "We fixed the noisy alerts at their source; silencing them was never the plan."


@workflow.defn(name=INTERVIEW_WORKFLOW_TYPE, sandboxed=False)
class StandInInterview:
    @workflow.run
    async def run(self, raw: Any) -> None:
        await workflow.wait_condition(lambda: False)


def _digest(quote: str) -> dict[str, Any]:
    return {"themes": [{"title": "Alert fatigue", "summary": "What people did about noise",
                        "stance": "Fix alerts at the source", "quotes": [{"text": quote}]}], "not_in_plan": []}


async def test_the_findings_quote_the_corrected_words_marked_corrected(ts_env, offline, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    transcript = store().put(STUDY_ID, "transcript-P001.json", json.dumps([e.model_dump(mode="json") for e in [
        TranscriptEntry(entry_id="q1", speaker="interviewer", text="What did you do about noisy alerts?"),
        TranscriptEntry(entry_id="a1", speaker="interviewee", text=SAID),
        TranscriptEntry(entry_id="q2", speaker="interviewer", text="How did you end up carrying the pager?"),
        TranscriptEntry(entry_id="a2", speaker="interviewee", text="Somebody had to, so I volunteered.")]]),
        "application/json")

    @activity.defn(name="study_lookup_interviews")
    async def lookup(inp: LookupInput) -> list[InterviewLookup]:
        return [InterviewLookup(interview_id=i, state="finished", exit_reason="closing_detected", answers=2,
                                transcript=transcript, length_seconds=120.0) for i in inp.interview_ids]

    offline.script("study_digest", _digest(SAID), _digest(MEANT))
    client = ts_env.client
    queue = f"test-{uuid.uuid4().hex[:8]}"
    async with Worker(client, task_queue=queue, workflows=[StudyWorkflow, StandInInterview],
                      activities=[lookup, study_reduce, study_publish]), \
            Worker(client, task_queue=queue + LLM_QUEUE_SUFFIX,
                   activities=[study_digest, study_theme_merge, study_synthesis]):
        h = await start_study(client, queue, STUDY_ID, quota=5, check_seconds=2.0)
        [(_, t)] = await invite(h, 1)
        assert (await h.execute_update(UPDATE_OPEN_LINK, opening(sha(t)), result_type=OpenedLink)).new
        await ts_env.sleep(timedelta(seconds=5))
        progress = await h.query(QUERY_PROGRESS, result_type=StudyProgress)
        assert progress.completed == 1 and progress.digests == 1, progress
        saved = await h.execute_update(UPDATE_MEMBER_CHECK, MemberCheck(token_sha256=sha(t), action="correct",
                                                                        entry_id="a1", text=MEANT),
                                       result_type=MemberCheckView)
        assert [c.text for c in saved.corrections] == [MEANT]
        await h.execute_update(UPDATE_CLOSE, CloseStudy())
        result: StudyResult = await h.result()
        findings = await h.query(QUERY_FINDINGS_DRAFT, result_type=Findings)
        await replay(h, record_as=NAME if RECORD else None)
    assert result.status == "completed", result.error
    [theme] = findings.themes
    [quote] = theme.quotes
    assert quote.text == MEANT and quote.corrected and quote.verified and quote.entry_id == "a1"
    assert SAID not in findings.model_dump_json()                 # nowhere: not quoted, not flagged
    assert len(offline.calls("study_digest")) == 2                # the digest was redone on the corrected words
    assert MEANT in json.dumps(offline.calls("study_digest")[1].messages)
    md = store().get(result.outputs.findings_md) if result.outputs else ""
    [line] = [x for x in md.splitlines() if MEANT in x]
    assert line.startswith(f"> “{MEANT}”") and line.endswith("*(corrected by the participant)*") and SAID not in md


async def test_the_recorded_correction_replays():
    """tests/histories/study_corrections.json pins the new path of patch study-corrections: its marker and the
    digest redone on the corrected transcript."""
    history = WorkflowHistory.from_json(STUDY_ID, (HISTORIES / f"{NAME}.json").read_text())
    await Replayer(workflows=registry.workflows(), data_converter=colloquy_data_converter).replay_workflow(history)
