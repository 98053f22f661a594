"""The Writer activity repairs the model's essay (rules/interview/essay_repair.py) and says how much it dropped:
speaker residue, invented quotes, third person, wrong names and unsupported sentences go; a grounded first-person
essay is kept as written; too little left means the labelled extractive essay."""

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
from rules.interview.essay_repair import EXTRACTIVE_LABEL

ASKED = "Tell me about the worst night you had on call."
ANSWERS = ["I have carried the pager for the payments team for six years, and the worst nights were always "
           "settlement batches failing at three in the morning.",
           "We had no runbooks at first, so I wrote one for every alert, and the pages dropped by half."]
PLAN = PlanSnapshot(topic="On call", research_goal="g", angle="a", sections=[SectionSnapshot(id="s", title="S")])


@pytest.fixture
def transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    entries = [TranscriptEntry(entry_id="q1", speaker="interviewer", text=ASKED)] + [
        TranscriptEntry(entry_id=f"a{i}", speaker="interviewee", text=a) for i, a in enumerate(ANSWERS)]
    return store().put("interview-g", "transcript.json", json.dumps([e.model_dump(mode="json") for e in entries]),
                       "application/json")


async def _write(transcript, offline, essay: str):
    offline.script("interview_writer", essay)
    result = await interview_writer(WriterInput(workflow_id="interview-g", plan=PLAN, analysis=AnalysisSummary(),
                                                transcript=transcript, interviewee_name="Maya Chen"))
    return result.output, store().get(result.output.essay)


async def test_the_interviewer_beekeeper_line_is_dropped_and_the_essay_falls_back(transcript, offline):
    out, essay = await _write(transcript, offline, "# Two decades\n\nThe Interviewer: I'm a beekeeper for over two "
                                                   "decades. Maya explained that bees taught her patience.")
    assert "beekeeper" not in essay and "Maya explained" not in essay
    assert out.extractive and EXTRACTIVE_LABEL in essay and out.sentences_kept == 0
    assert out.sentences_dropped == {"speaker_residue": 1, "third_person": 1}
    assert ANSWERS[1] in essay                                # the interviewee's own sentences, in order


async def test_a_grounded_first_person_essay_is_kept_as_written(transcript, offline):
    text = ("# Six years of pages\n\nI have carried the pager for the payments team for six years. The worst nights "
            "were settlement batches failing at three in the morning. We had no runbooks, so I wrote one for every "
            "alert, and the pages dropped by half.")
    out, essay = await _write(transcript, offline, text)
    assert not out.extractive and out.sentences_dropped == {} and out.sentences_kept == out.sentences_written == 3
    assert essay.endswith(text.split("\n\n")[1] + "\n") and "*grounding:" not in essay


async def test_what_was_dropped_is_counted_in_the_essay_and_the_result(transcript, offline):
    text = ("# Pages\n\nI have carried the pager for the payments team for six years. The worst nights were "
            "settlement batches failing at three in the morning. We had no runbooks at first. I wrote one for every "
            "alert. I also ran the Berlin marathon twice.")
    out, essay = await _write(transcript, offline, text)
    assert not out.extractive and out.sentences_written == 5 and out.sentences_kept == 4
    assert sum(out.sentences_dropped.values()) == 1 and "marathon" not in essay
    assert "*grounding: dropped 1 of 5 sentences" in essay and out.grounding_note in essay


async def test_an_invented_title_from_the_analysis_is_not_the_essays_title(transcript, offline):
    """Seen on the local model: the analysis suggested "What a lifesaver. The 12345 story about what it takes to
    make things work ..." and the extractive essay carried it as its title. The analysis's title is model output
    too: checked like the essay's own, else the essay is titled with the plan's topic."""
    offline.script("interview_writer", "# A Life Among the Hives\n\nI'm a beekeeper for over two decades.")
    junk = ("What a lifesaver. The 12345 story about what it takes to make things work is not just that, but how "
            "you can do more than your own self willed")
    result = await interview_writer(WriterInput(workflow_id="interview-g", plan=PLAN, transcript=transcript,
                                                analysis=AnalysisSummary(suggested_title=junk)))
    essay = store().get(result.output.essay)
    assert result.output.title == "On call" and "lifesaver" not in essay and "Hives" not in essay
    assert result.output.extractive


async def test_the_extractive_essays_closing_quote_is_counted_as_verified(transcript, offline):
    out, essay = await _write(transcript, offline, "# Bees\n\nThe Interviewer: I'm a beekeeper.")
    assert out.extractive and essay.rstrip().endswith(f'> "{ANSWERS[0]}"') and out.quotes_verified == 1
