"""StorageRepository on a temp dir: the six methods of seed §16.2, atomic layout, bad dates, unreadable files,
fail-fast errors and empty results for missing data."""

from __future__ import annotations

import json
import os
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from activities.query import notes_repository
from activities.query.storage import InvalidRequest, StorageError, StorageRepository, load_catalog
from models.query.agents import ContextUpdate, ParserOutput
from models.query.parts import DateRange, Entry
from models.query.workflow import ApplyContextInput


def _entry(day: str, text: str, hhmm: str = "08:00", data: dict | None = None) -> Entry:
    d = date.fromisoformat(day)
    h, m = (int(x) for x in hhmm.split(":"))
    return Entry(id="", date=d, timestamp=datetime(d.year, d.month, d.day, h, m, tzinfo=UTC), raw_content=text,
                 domain_data=data or {})


@pytest.fixture
def repo(tmp_path: Path) -> StorageRepository:
    r = StorageRepository(tmp_path / "notes")
    r.save_entry(_entry("2026-01-05", "Bench 185x5", data={"strength": {"exercises": [{"name": "bench press"}]}}))
    r.save_entry(_entry("2026-01-05", "Evening walk", "19:30"))
    r.save_entry(_entry("2026-01-31", "Run 5k, personal record"))
    r.save_entry(_entry("2026-02-01", "Rest day"))
    return r


def test_layout_is_raw_markdown_and_parsed_json_per_day(repo: StorageRepository):
    raw = repo.base_path / "logs/raw/2026/01/2026-01-05.md"
    parsed = repo.base_path / "logs/parsed/2026/01/2026-01-05.json"
    assert raw.read_text() == "# 2026-01-05\n\n## 08:00\nBench 185x5\n\n## 19:30\nEvening walk\n"
    data = json.loads(parsed.read_text())
    assert [e["id"] for e in data["entries"]] == ["2026-01-05#1", "2026-01-05#2"]
    assert not list(repo.base_path.rglob(".tmp-*"))  # atomic writes leave no temp files


def test_date_range_spans_months_and_missing_days_are_empty(repo: StorageRepository):
    got = repo.get_entries_by_date_range(date(2026, 1, 5), date(2026, 2, 1))
    assert [e.id for e in got] == ["2026-01-05#1", "2026-01-05#2", "2026-01-31#1", "2026-02-01#1"]
    assert got[0].domain_data == {"strength": {"exercises": [{"name": "bench press"}]}}
    assert got[1].timestamp.hour == 19
    assert repo.get_entries_by_date_range(date(2025, 1, 1), date(2025, 12, 31)) == []
    assert StorageRepository(repo.base_path / "nowhere").get_entries_by_date_range(date(2026, 1, 1),
                                                                                   date(2026, 1, 2)) == []


def test_reversed_range_and_unsafe_glob_are_refused(repo: StorageRepository):
    with pytest.raises(InvalidRequest, match="starts after it ends"):
        repo.get_entries_by_date_range(date(2026, 2, 1), date(2026, 1, 1))
    with pytest.raises(InvalidRequest, match="inside the notes directory"):
        repo.get_entries_by_pattern("../../etc/*")


def test_pattern_and_keyword_search(repo: StorageRepository):
    assert [e.id for e in repo.get_entries_by_pattern("2026/02/**/*.md")] == ["2026-02-01#1"]
    assert [e.id for e in repo.get_entries_by_pattern("2026/01/*.md")] == ["2026-01-05#1", "2026-01-05#2",
                                                                           "2026-01-31#1"]
    assert [e.id for e in repo.search_entries(["BENCH"])] == ["2026-01-05#1"]
    assert [e.id for e in repo.search_entries(["bench press"])] == ["2026-01-05#1"]  # parsed data is searched
    assert [e.id for e in repo.search_entries(["run", "record"], match_all=True)] == ["2026-01-31#1"]
    assert [e.id for e in repo.search_entries(["walk", "rest"],
                                              DateRange(start=date(2026, 1, 6), end=date(2026, 2, 28)))] == [
        "2026-02-01#1"]
    assert repo.search_entries([]) == []


def test_files_with_bad_dates_are_skipped_and_reported(repo: StorageRepository):
    month = repo.base_path / "logs/raw/2026/02"
    (month / "2026-02-30.md").write_text("## 08:00\nimpossible day\n")
    (month / "notes.md").write_text("not a day file\n")
    got = repo.get_entries_by_pattern("**/*.md")
    assert "impossible day" not in " ".join(e.raw_content for e in got)
    assert "skipped 2026-02-30.md: 2026-02-30 is not a real date" in repo.warnings
    assert "skipped notes.md: not a YYYY-MM-DD.md day file" in repo.warnings


def test_hand_written_day_file_without_sections_is_one_entry_and_undecodable_bytes_are_kept(tmp_path: Path):
    repo = StorageRepository(tmp_path)
    day = tmp_path / "logs/raw/2026/03/2026-03-01.md"
    day.parent.mkdir(parents=True)
    day.write_bytes(b"Squat 100x5\nfelt \xff good\n")
    [entry] = repo.get_entries_by_date_range(date(2026, 3, 1), date(2026, 3, 1))
    assert entry.raw_content == "Squat 100x5\nfelt \ufffd good"
    assert any("not valid UTF-8" in w for w in repo.warnings)


def test_unreadable_file_fails_fast_with_a_clear_message(repo: StorageRepository, monkeypatch):
    path = repo.base_path / "logs/raw/2026/01/2026-01-31.md"
    if os.geteuid() != 0:
        path.chmod(0)
    else:  # root reads anything: make the OS refuse this one file as it would for a normal user
        real = notes_repository._read_bytes

        def refuse(p: Path) -> bytes:
            if p == path:
                raise PermissionError(13, "Permission denied", str(p))
            return real(p)

        monkeypatch.setattr(notes_repository, "_read_bytes", refuse)
    with pytest.raises(StorageError, match="2026-01-31.md: permission denied") as info:
        repo.get_entries_by_date_range(date(2026, 1, 1), date(2026, 1, 31))
    assert not info.value.retryable


def test_disk_full_on_write_fails_fast(repo: StorageRepository, monkeypatch):
    def full(fd: int, text: str) -> None:
        os.close(fd)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(notes_repository, "_write_fd", full)
    with pytest.raises(StorageError, match="disk full") as info:
        repo.save_entry(_entry("2026-01-06", "Bench"))
    assert not info.value.retryable
    monkeypatch.undo()
    assert not (repo.base_path / "logs/raw/2026/01/2026-01-06.md").exists()  # nothing half-written
    assert not list(repo.base_path.rglob(".tmp-*"))


def test_heading_lookalike_lines_inside_a_note_stay_in_the_note(tmp_path: Path):
    repo = StorageRepository(tmp_path)
    repo.save_entry(_entry("2026-01-07", "copied from my log:\n## 10:30\nsquats"))
    [entry] = repo.get_entries_by_date_range(date(2026, 1, 7), date(2026, 1, 7))
    assert entry.raw_content == "copied from my log:\n## 10:30\nsquats"


def test_correction_appends_and_upserts_and_is_idempotent(repo: StorageRepository):
    fix = ParserOutput(date=date(2026, 1, 6), timestamp=datetime(2026, 1, 6, 9, 0, tzinfo=UTC), is_correction=True,
                       target_entry_id="2026-01-05#1",
                       correction_delta={"strength": {"exercises": [{"name": "bench press", "weight": 185}]}})
    note = _entry("2026-01-06", "Actually 185", "09:00").model_copy(update={"source_key": "wf-1:log"})
    first = repo.save_entry(note, correction=fix)
    again = repo.save_entry(note, correction=fix)  # a retried activity
    assert first.corrected and again.note == "already stored"
    raw = (repo.base_path / "logs/raw/2026/01/2026-01-05.md").read_text()
    assert raw.count("## 09:00 [correction] → 2026-01-05#1\nActually 185") == 1
    [e1, e2] = repo.get_entries_by_date_range(date(2026, 1, 5), date(2026, 1, 5))
    assert e1.corrections == ["Actually 185"] and e2.corrections == []
    assert e1.domain_data == {"strength": {"exercises": [{"name": "bench press", "weight": 185}]}}


def test_global_context_read_write_and_budgeted_updates(tmp_path: Path):
    repo = StorageRepository(tmp_path)
    assert repo.get_global_context() == ""
    repo.update_global_context("# Global Context\n\nhand-written line\n")
    assert "hand-written line" in repo.get_global_context()
    ups = [ContextUpdate(category="insight", key=f"insight_{i}", value="x" * 60, confidence="tentative")
           for i in range(30)] + [ContextUpdate(category="fact", key="bench_pr", value="205 lbs", confidence="certain")]
    res = repo.apply_context_updates(ApplyContextInput(updates=ups, today=date(2026, 1, 16), max_tokens=300))
    text = repo.get_global_context()
    assert res.tokens <= 300 and "- bench_pr: 205 lbs (certain)" in text and "hand-written line" in text
    assert res.archived and "insight_0" in (tmp_path / "global-context-archive.md").read_text()


def test_domain_catalogs_load_from_yaml():
    fitness = load_catalog("fitness")
    assert fitness.base.name == "general_fitness"
    assert [d.name for d in fitness.domains] == ["strength", "running", "nutrition"]
    # The framework's general base still applies inside the app's base.
    assert "Do not make claims without supporting data from the notes; cite entry dates." in \
        fitness.base.response_evaluation_rules
    assert load_catalog("general").domains == []
    with pytest.raises(InvalidRequest, match="unknown app 'cooking'"):
        load_catalog("cooking")




def test_flagged_notes_are_listed_fewest_failures_then_oldest_and_updated_in_place_once(repo: StorageRepository):
    from models.query.workflow import NEEDS_PARSING, ReparsedNote

    for day, text in (("2026-01-20", "Squat 140x3"), ("2026-01-05", "Bench 200x1"), ("2026-01-21", "Run 3k")):
        repo.save_entry(_entry(day, text).model_copy(update={"tags": [NEEDS_PARSING], "source_key": day}))
    entries, total = repo.needs_parsing(2)
    assert total == 3 and [e.id for e in entries] == ["2026-01-05#3", "2026-01-20#1"]  # oldest first
    assert repo.needs_parsing(5, exclude_source_key="2026-01-21")[1] == 2  # the run's own note is left alone
    at = datetime(2026, 1, 22, 9, 0, tzinfo=UTC)
    bench = ParserOutput(tags=["strength"], domain_data={"strength": {"exercises": [{"name": "bench press"}]}})
    notes = [ReparsedNote(entry_id="2026-01-05#3", parsed=bench), ReparsedNote(entry_id="2026-01-20#1", error="down")]
    first = repo.save_reparsed(notes, at)
    again = repo.save_reparsed(notes, at)  # a retried activity: written once, reported the same
    assert (first.parsed, first.still_flagged) == (["2026-01-05#3"], ["2026-01-20#1"])
    assert (again.parsed, again.still_flagged) == (first.parsed, first.still_flagged)
    parsed = json.loads(repo.parsed_path(date(2026, 1, 5)).read_text())["entries"][2]
    assert parsed["tags"] == ["strength"] and parsed["domain_data"] == bench.domain_data
    assert [h["raw"] for h in parsed["history"]] == ["Bench 200x1"] and parsed["history"][0]["tags"] == [NEEDS_PARSING]
    failed = json.loads(repo.parsed_path(date(2026, 1, 20)).read_text())["entries"][0]
    assert failed["parse_failures"] == 1 and failed["last_parse_error"] == "down" and NEEDS_PARSING in failed["tags"]
    # the note that failed now goes after the one never tried; the parsed one is no longer listed
    assert [e.id for e in repo.needs_parsing(5)[0]] == ["2026-01-21#1", "2026-01-20#1"]
    assert repo.get_entries_by_date_range(date(2026, 1, 5), date(2026, 1, 5))[2].raw_content == "Bench 200x1"
