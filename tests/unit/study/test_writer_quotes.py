"""The essay writer uses the shared grounding check: a sentence with a near-miss quote is dropped (never printed in
quote marks, never repaired by guessing); the interviewer's words are not the interviewee's quotes; the essay and
the result say how much was dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from activities.artifacts import store
from activities.interview.writer import interview_writer
from models.interview.activities import WriterInput
from models.interview.analysis import AnalysisSummary
from models.interview.entries import TranscriptEntry
from models.interview.plan import PlanSnapshot, SectionSnapshot

ANSWER = "The worst night was a settlement batch that failed at three in the morning, and we had no runbook."


@pytest.fixture
def transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    entries = [TranscriptEntry(entry_id="q1", speaker="interviewer", text="Tell me about the worst night you had"),
               TranscriptEntry(entry_id="a1", speaker="interviewee", text=ANSWER)]
    return store().put("interview-w", "transcript.json", json.dumps([e.model_dump(mode="json") for e in entries]),
                       "application/json")


async def test_near_miss_quotes_are_dropped_not_printed_as_quotes(transcript, offline):
    offline.script("interview_writer",
                   '# Night\n\nI remember: "The worst night was a settlement batch that failed at three in the '
                   'morning". Then "the worst night was a settlement batch that failed at four in the morning" and '
                   '"Tell me about the worst night you had".')
    plan = PlanSnapshot(topic="On call", research_goal="g", angle="a", sections=[SectionSnapshot(id="s", title="S")])
    result = await interview_writer(WriterInput(workflow_id="interview-w", plan=plan, analysis=AnalysisSummary(),
                                                transcript=transcript))
    out = result.output
    essay = store().get(out.essay)
    assert out.quotes_verified == 1
    assert out.quotes_unverified == ["the worst night was a settlement batch that failed at four in the morning",
                                     "Tell me about the worst night you had"]
    assert '"The worst night was a settlement batch that failed at three in the morning"' in essay
    assert '"the worst night was a settlement batch that failed at four in the morning"' not in essay
    assert "four in the morning" not in essay                          # the sentence is dropped, not reworded
    assert '"Tell me about the worst night you had"' not in essay      # the interviewer's words, not a quote
    assert out.sentences_written == 2 and out.sentences_kept == 1 and out.sentences_dropped == {"invented_quote": 1}
    assert "*grounding: dropped 1 of 2 sentences" in essay and not out.extractive
