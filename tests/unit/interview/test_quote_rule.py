"""One verbatim rule (rules/grounding.py `check_quote`) wherever interview quotes are kept or dropped: the analysis
(what the Writer may quote) and the section summaries. Before, both used a looser check of their own — any
capitalisation, and (the analysis) the interviewer's lines counted as the interviewee's words."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta

import pytest
from temporalio.testing import ActivityEnvironment

from activities.artifacts import store
from activities.interview.analysis import interview_analysis
from activities.interview.section_summary import interview_section_summary
from models.interview.activities import AnalysisInput, SectionSummaryInput
from models.interview.entries import TranscriptEntry
from models.interview.notes import NotesState
from models.interview.plan import PlanSnapshot

SAID = "We paged everyone for every alert, and nobody slept for a month."
ASKED = "What changed after the outage in March?"
ENTRIES = [TranscriptEntry(entry_id="q1", speaker="interviewer", text=ASKED, section_id="s1", seq=1),
           TranscriptEntry(entry_id="a1", speaker="interviewee", text=SAID, section_id="s1", seq=2)]
EXACT = "nobody slept for a month"
RECASED = "Nobody slept for a month"          # the words match, the capitalisation does not: a near miss


@pytest.fixture(autouse=True)
def _artifacts(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))


def _env(activity_type: str) -> ActivityEnvironment:
    env = ActivityEnvironment()
    # ActivityEnvironment's default gives the activity 1 s, which a first model call misses on a busy machine
    # (litellm's imports): a minute, as a worker would give it.
    env.info = dataclasses.replace(env.info, workflow_id="wf-quotes", activity_type=activity_type,
                                   start_to_close_timeout=timedelta(minutes=1),
                                   schedule_to_close_timeout=timedelta(minutes=1))
    return env


async def test_the_analysis_keeps_only_the_interviewees_exact_words(offline):
    offline.script("interview_analysis", {"quotes": [{"text": EXACT}, {"text": RECASED}, {"text": ASKED}],
                                          "suggested_title": "Pager"})
    ref = store().put("wf-quotes", "transcript.json", json.dumps([e.model_dump(mode="json") for e in ENTRIES]),
                      "application/json")
    plan = PlanSnapshot(topic="on-call", research_goal="g", angle="a", sections=[])
    result = await _env("interview_analysis").run(
        interview_analysis, AnalysisInput(workflow_id="wf-quotes", plan=plan, notes=NotesState(), transcript=ref))
    assert [q.text for q in result.output.quotes] == [EXACT]
    assert result.output.quotes_dropped == 2                 # the near miss and the interviewer's words, counted


async def test_the_analysis_drops_a_quote_cut_inside_words(offline):
    """A quote that starts or ends inside a word ("ody slept for a mon") is in the answer's characters but is
    nobody's words: dropped, like any other quote that is not a run of the interviewee's words."""
    offline.script("interview_analysis", {"quotes": [{"text": "ody slept for a mon"}, {"text": EXACT}]})
    ref = store().put("wf-quotes", "transcript.json", json.dumps([e.model_dump(mode="json") for e in ENTRIES]),
                      "application/json")
    plan = PlanSnapshot(topic="on-call", research_goal="g", angle="a", sections=[])
    result = await _env("interview_analysis").run(
        interview_analysis, AnalysisInput(workflow_id="wf-quotes", plan=plan, notes=NotesState(), transcript=ref))
    assert [q.text for q in result.output.quotes] == [EXACT] and result.output.quotes_dropped == 1


async def test_a_section_summary_keeps_only_the_interviewees_exact_words(offline):
    offline.script("interview_section_summary", {"section_id": "s1", "key_points": [],
                                                 "quotes": [EXACT, RECASED, ASKED], "open_threads": []})
    result = await _env("interview_section_summary").run(
        interview_section_summary, SectionSummaryInput(section_id="s1", title="Pager", goal="g", entries=ENTRIES))
    assert result.output.quotes == [EXACT]


async def test_the_analysis_drops_claims_the_interviewee_never_made(offline):
    """Issue 41: the analysis keeps only what the transcript supports — a claim or tension about beekeeping, or
    one narrated about "the interviewee", is not what this on-call engineer said (counted in claims_dropped)."""
    offline.script("interview_analysis", {
        "main_claims": ["Paging everyone for every alert meant nobody slept for a month.",
                        "Beekeeping for two decades taught patience.",
                        "The interviewee explained that nobody slept for a month."],
        "tensions": ["We paged everyone, but nobody slept.", "Interviewer: what about the hives?"]})
    ref = store().put("wf-quotes", "transcript.json", json.dumps([e.model_dump(mode="json") for e in ENTRIES]),
                      "application/json")
    plan = PlanSnapshot(topic="on-call", research_goal="g", angle="a", sections=[])
    result = await _env("interview_analysis").run(
        interview_analysis, AnalysisInput(workflow_id="wf-quotes", plan=plan, notes=NotesState(), transcript=ref))
    out = result.output
    assert out.main_claims == ["Paging everyone for every alert meant nobody slept for a month."]
    assert out.tensions == ["We paged everyone, but nobody slept."] and out.claims_dropped == 3
