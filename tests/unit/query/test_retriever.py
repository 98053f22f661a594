"""The Retriever's tools over a temp notes folder: every entry in scope, vocabulary expansion, topics,
max_entries with a truncation warning, bad instructions reported — entries to the artifact store."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest

from activities.query.retriever import _retrieve
from activities.query.storage import StorageRepository, load_entries
from models.query.agents import AnalyzerOutput, RetrievalInstruction, RetrieveInput
from models.query.parts import Entry

VOCAB = {"bench": "bench press", "pr": "personal record"}


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    r = StorageRepository(tmp_path / "notes")
    start = date(2026, 1, 1)
    for i in range(40):
        d = start + timedelta(days=i)
        text = ["bench press 185x5", "easy run 5k", "new personal record on squat", "rest"][i % 4]
        r.save_entry(Entry(id="", date=d, timestamp=datetime(d.year, d.month, d.day, 8, tzinfo=UTC),
                           raw_content=text, domain_data={"running": {"runs": []}} if "run" in text else {}))
    return r


def _run(repo, *ins: RetrievalInstruction, max_entries: int = 100):  # noqa: ANN001, ANN202
    return _retrieve(repo, RetrieveInput(scope="wf-test", label="r1", instructions=list(ins), vocabulary=VOCAB,
                                         max_entries=max_entries))


def test_date_range_reads_every_entry_in_scope_and_stores_them_as_an_artifact(repo):
    out = _run(repo, RetrievalInstruction(tool="date_range", start=date(2026, 1, 1), end=date(2026, 1, 10)))
    assert out.total_entries_found == 10 and len(out.entry_ids) == 10 and not out.truncated
    assert out.date_range_covered.start == date(2026, 1, 1) and out.date_range_covered.end == date(2026, 1, 10)
    assert [e.id for e in load_entries([out.entries_ref])] == out.entry_ids
    assert out.retrieval_summary[0].entries_found == 10


def test_keyword_search_expands_with_the_vocabulary(repo):
    out = _run(repo, RetrievalInstruction(tool="keyword", keywords=["PR"]))
    assert out.total_entries_found == 10  # "pr" also searched "personal record"
    assert out.retrieval_summary[0].params["keywords"] == ["pr", "personal record"]
    bench = _run(repo, RetrievalInstruction(tool="keyword", keywords=["bench"], start=date(2026, 1, 1),
                                            end=date(2026, 1, 8)))
    assert bench.entry_ids == ["2026-01-01#1", "2026-01-05#1"]


def test_topic_matches_a_domain_or_a_subject(repo):
    out = _run(repo, RetrievalInstruction(tool="topic", topic="running"))
    assert out.total_entries_found == 10
    assert _run(repo, RetrievalInstruction(tool="pattern", pattern="2026/02/*.md")).total_entries_found == 9


def test_max_entries_truncates_to_the_most_recent_with_a_warning(repo):
    out = _run(repo, RetrievalInstruction(tool="date_range", start=date(2026, 1, 1), end=date(2026, 2, 28)),
               max_entries=25)
    assert out.truncated and out.total_entries_found == 40 and len(out.entry_ids) == 25
    assert out.entry_ids[-1] == "2026-02-09#1" and out.entry_ids[0] == "2026-01-16#1"
    assert "40 entries in scope, only the 25 most recent were read (max_entries)" in out.warnings[0]


def test_bad_instructions_are_reported_not_fatal(repo):
    out = _run(repo, RetrievalInstruction(tool="date_range", start=date(2026, 1, 10), end=date(2026, 1, 8)),
               RetrievalInstruction(tool="topic"), RetrievalInstruction(tool="pattern", pattern="../*"),
               RetrievalInstruction(tool="keyword", keywords=["swimming"]))
    assert out.total_entries_found == 3  # the reversed range was searched the right way round
    text = " | ".join(out.warnings)
    assert "date range 2026-01-10..2026-01-08 was reversed" in text
    assert "a topic instruction without a topic was skipped" in text
    assert "pattern must stay inside the notes directory" in text
    assert "no entries found for the words swimming" in text
    assert not any("{" in w for w in out.warnings)  # plain words, not raw JSON (item 11)
    assert out.entries_ref is not None and json.loads(out.model_dump_json())["total_entries_found"] == 3


def test_empty_scope_stores_nothing(repo):
    out = _run(repo, RetrievalInstruction(tool="date_range", start=date(2025, 1, 1), end=date(2025, 1, 31)))
    assert out.entries_ref is None and out.entry_ids == [] and out.date_range_covered is None


def test_analyzer_output_generates_the_verdict_after_the_evidence():
    fields = list(AnalyzerOutput.model_fields)
    assert fields.index("verdict") > fields.index("gaps_identified") > fields.index("findings")
    schema_order = list(AnalyzerOutput.model_json_schema()["properties"])
    assert schema_order[-2:] == ["verdict", "verdict_reasoning"]
