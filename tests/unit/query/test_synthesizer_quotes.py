"""Query answers reuse the shared grounding check: a quote of the notes that is not their exact words is flagged in
the answer, never printed as a quote; exact quotes and the user's own words stay quoted."""

from __future__ import annotations

import json
from datetime import date, datetime

import pytest

from activities.artifacts import store
from activities.query.synthesize_answer import synthesize_answer
from models.query.agents import AnalyzerOutput, SynthesizeInput
from models.query.parts import Entry, QueryType, Verdict

NOTE = "Squats felt heavy today, 5x5 at 100kg, left knee a bit sore after the third set."


@pytest.fixture
def entries_ref(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    entry = Entry(id="2026-01-05#1", date=date(2026, 1, 5), timestamp=datetime(2026, 1, 5, 18), raw_content=NOTE)
    return store().put("query-x", "entries.json", json.dumps([entry.model_dump(mode="json")]), "application/json")


async def test_near_miss_quotes_in_an_answer_are_flagged(entries_ref, offline):
    offline.script("synthesize_answer", {
        "response": 'You wrote "left knee a bit sore after the third set" and "left knee a bit sore after the fourth '
                    'set"; you also said "only on heavy days" when I asked.',
        "key_points": [], "evidence_cited": ["2026-01-05#1"], "confidence": "medium"})
    out = (await synthesize_answer(SynthesizeInput(
        query="How is my knee?", query_type=QueryType.SIMPLE,
        analysis=AnalyzerOutput(query_intent="knee", verdict=Verdict.SUFFICIENT),
        user_responses={"when": "Only on heavy days, really"}, entries_refs=[entries_ref]))).output
    assert '"left knee a bit sore after the third set"' in out.response
    assert '"left knee a bit sore after the fourth set"' not in out.response
    assert "left knee a bit sore after the fourth set [unverified quote — near miss: 1 word differs" in out.response
    assert '"only on heavy days"' not in out.response      # the user wrote "Only on heavy days": capitalisation


async def test_a_cited_entry_that_was_not_read_is_dropped_like_an_unverified_quote(entries_ref, offline):
    """Issue 22: ids are checked as quotes are — `2018-06-01#1` was never read (it does not even exist)."""
    offline.script("synthesize_answer", {"response": "Your knee was sore on Jan 5 and on June 1, 2018.",
                                         "evidence_cited": ["2026-01-05#1", "2018-06-01#1"], "confidence": "high"})
    out = (await synthesize_answer(SynthesizeInput(
        query="How is my knee?", query_type=QueryType.SIMPLE,
        analysis=AnalyzerOutput(query_intent="knee", verdict=Verdict.SUFFICIENT), entries_refs=[entries_ref]))).output
    assert out.evidence_cited == ["2026-01-05#1"] and out.confidence == "medium"
    assert "[unverified evidence — cited entry 2018-06-01#1 not among the notes read for this answer; dropped]" \
        in out.response
