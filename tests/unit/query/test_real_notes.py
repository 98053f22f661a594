"""Pure rules behind the "real notes" issue: dates from content, edit-aware import storage, search before asking,
plain-word gaps, correction targets, the user's clock, offline labels, and the rough edges."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time

import pytest

from activities.query.storage import StorageRepository
from models.query.agents import PlannerOutput
from models.query.parts import Entry, EvaluationFeedback
from models.query.workflow import OFFLINE_ANSWER_LABEL
from rules.query.clock import utc_offset_minutes
from rules.query.corrections import check_target, chosen_entry, option_label
from rules.query.evaluation import accumulate_feedback, missing_items, plain_reason
from rules.query.imports import clean_text, parse_date, split_dated
from rules.query.machine import LoopCounters, LoopLimits, State, decide_after_plan, decide_after_wait
from rules.query.summaries import describe_search, label_offline, unique


# ------------------------------------------------------------------------------- item 2: dates from content
def test_monthly_journal_with_dated_headings_splits_into_dated_entries():
    text = ("# Training journal, January 2015\n\n## 4.01.2015\nEasy run 5k.\n\n## 5.01.2015\nBench 80x5.\n\n"
            "## Monday 12 January 2015\nRest.\n## January 13, 2015 07:30\nSquat 100x5\n"
            "2015-01-14T18:20 ran 10k\nslow\n# 2015-01-15\nSwim.\n")
    out = split_dated(text, "2015-01.md")
    assert out.errors == [] and out.source == "headings"
    assert [(p.day.isoformat(), p.at, p.text) for p in out.parts] == [
        ("2015-01-04", None, "Easy run 5k."), ("2015-01-05", None, "Bench 80x5."), ("2015-01-12", None, "Rest."),
        ("2015-01-13", time(7, 30), "Squat 100x5"), ("2015-01-14", time(18, 20), "ran 10k\nslow"),
        ("2015-01-15", None, "Swim.")]


def test_front_matter_and_file_name_date_a_whole_file():
    assert split_dated("---\ntitle: x\ndate: 2015-03-02\n---\nLong run.", "run.md").parts[0].day == date(2015, 3, 2)
    named = split_dated("Bench 85x5", "2026-01-09.md")
    assert named.source == "file name" and named.parts[0].day == date(2026, 1, 9) and named.parts[0].at is None


def test_impossible_dates_are_errors_and_undated_files_are_flagged():
    assert split_dated("x", "2026-02-30.md").errors == ["the file name's date 2026-02-30 is not a real date"]
    # An impossible date in a heading (a template's `February 30`) is reported with its line, not used to split
    # (issue 22: it used to fail the whole file).
    bad = split_dated("## 31.02.2015\nx", "j.md")
    assert bad.errors == [] and bad.parts == [] and bad.undated
    assert bad.flags == [(1, "'31.02.2015': 31.02.2015 is not a real date — not used as an entry date")]
    assert split_dated("---\ndate: soon\n---\nx", "j.md").errors
    undated = split_dated("Gym was fun", "gym.md")
    assert undated.undated and undated.parts == [] and undated.errors == []
    assert parse_date("4 Jan 2015") == (date(2015, 1, 4), None) and parse_date("Plans for 2015") is None


# ---------------------------------------------------------------------------- item 1: edit-aware import store
def _entry(day: str, text: str, timed: bool = False) -> Entry:
    d = date.fromisoformat(day)
    return Entry(id="", date=d, timestamp=datetime.combine(d, time(7, 30), tzinfo=UTC), raw_content=text, timed=timed)


def test_import_store_is_new_then_unchanged_then_replaced_in_place_with_history(tmp_path):
    repo = StorageRepository(tmp_path)
    at = datetime(2026, 1, 16, tzinfo=UTC)
    src = "/journal/2015-01.md"
    assert repo.save_import(src, "h1", [_entry("2015-01-04", "Run 5k"), _entry("2015-01-05", "Bench 80")], at) == "new"
    assert repo.save_import(src, "h1", [_entry("2015-01-04", "ignored")], at) == "unchanged"
    assert repo.save_import(src, "h2", [_entry("2015-01-04", "Run 6k")], at) == "updated"
    raw = (tmp_path / "logs/raw/2015/01/2015-01-04.md").read_text()
    assert "Run 6k" in raw and "Run 5k" not in raw and raw.count("## --:--") == 1 and "00:00" not in raw
    record = json.loads((tmp_path / "logs/parsed/2015/01/2015-01-04.json").read_text())["entries"][0]
    assert record["history"][0]["raw"] == "Run 5k"  # the earlier version is kept, not live
    # The entry the edited file no longer has is not read any more (kept on disk, marked removed).
    read = repo.get_entries_by_date_range(date(2015, 1, 1), date(2015, 1, 31))
    assert [(e.id, e.raw_content) for e in read] == [("2015-01-04#1", "Run 6k")]
    assert repo.read_manifest()["sources"][src]["hash"] == "h2"


# ------------------------------------------------------------------------------ item 3: search before asking
def _plan(action: str) -> PlannerOutput:
    return PlannerOutput.model_validate({"original_query": "q", "query_type": "simple", "next_action": action,
                                         "retrieval_instructions": [{"tool": "date_range", "start": "2026-01-01",
                                                                     "end": "2026-01-16"}]})


def test_a_clarify_before_any_search_becomes_a_retrieval_and_answers_replan():
    kw = {"counters": LoopCounters(), "limits": LoopLimits(), "expandable": [], "gaps": [], "has_analysis": False}
    assert decide_after_plan(_plan("clarify"), searched=False, **kw) == State.RETRIEVE
    assert decide_after_plan(_plan("clarify"), searched=True, **kw) == State.CLARIFY
    assert decide_after_wait(True, replan=True) == State.PLAN and decide_after_wait(False) == State.SYNTHESIZE


# ------------------------------------------------------------------------------ item 8: gaps in plain words
def test_every_evaluations_gaps_in_plain_words():
    fb = accumulate_feedback([], [EvaluationFeedback(issue="completeness: not evaluated", suggestion="")])
    fb = accumulate_feedback(fb, [EvaluationFeedback(issue="accuracy: accuracy issue: the Jan 9 claim cites no "
                                                           "entry", suggestion=""),
                                  EvaluationFeedback(issue="completeness: not evaluated", suggestion="")])
    items = missing_items([], fb)
    assert items == ["a complete answer to every part of the question (this could not be checked)",
                     "The Jan 9 claim cites no entry"]
    assert plain_reason("overall: the evaluator failed the response") == "an answer the final check accepts"
    assert not any("not evaluated" in i or i.startswith("completeness:") for i in items)


# -------------------------------------------------------------------------- item 10: which entry to correct
RECENT = [_entry("2026-01-05", "Bench 185x5 for 3 sets"), _entry("2026-01-09", "Bench 85x5, slept 5 hours"),
          _entry("2026-01-12", "Bench 175x5x3, slept 5.5 hours"), _entry("2026-01-14", "Tempo run 6k, pace 5:05/km")]
for _e in RECENT:
    _e.id = f"{_e.date.isoformat()}#1"


def test_correction_target_is_checked_against_the_old_value():
    clear = check_target("Actually that was 185 not 85", "2026-01-09#1", RECENT)
    assert not clear.ambiguous  # "85" stands alone only in Jan 9 ("185x5" does not count)
    wrong = check_target("Actually that was 185 not 85", "2026-01-05#1", RECENT)
    assert wrong.ambiguous and [e.id for e in wrong.candidates] == ["2026-01-09#1", "2026-01-05#1"]
    several = check_target("Actually I slept 6 hours not 5", "2026-01-14#1", RECENT)
    assert several.ambiguous and "2026-01-09#1" in [e.id for e in several.candidates]
    assert not check_target("Sorry, correction: it was 180", "2026-01-09#1", RECENT).ambiguous
    assert chosen_entry("2026-01-09#1", several.candidates) == "2026-01-09#1"
    assert chosen_entry(option_label(RECENT[1]), RECENT) == "2026-01-09#1"
    assert chosen_entry("2", RECENT) == "2026-01-09#1" and chosen_entry("none of these", RECENT) is None


# --------------------------------------------------------------------------------- item 9: the user's clock
def test_time_zones_become_utc_offsets():
    assert utc_offset_minutes("Asia/Seoul") == 540 and utc_offset_minutes("+05:30") == 330
    assert utc_offset_minutes("America/New_York", datetime(2026, 7, 1, tzinfo=UTC)) == -240
    with pytest.raises(ValueError, match="unknown time zone"):
        utc_offset_minutes("Mars/Olympus")


# ---------------------------------------------------------------- item 5 + 11: labels and the rough edges
def test_offline_label_evidence_once_plain_search_words_and_no_nul():
    assert label_offline("Hi", True) == f"{OFFLINE_ANSWER_LABEL} Hi" and label_offline("Hi", False) == "Hi"
    assert label_offline(label_offline("Hi", True), True).count(OFFLINE_ANSWER_LABEL) == 1
    assert unique(["2026-01-09#1", "2026-01-05#1", "2026-01-09#1"]) == ["2026-01-09#1", "2026-01-05#1"]
    assert describe_search("keyword", {"keywords": ["bench", "heavy"], "start": "2026-01-02", "end": "2026-01-16"}) \
        == "the words bench, heavy between 2026-01-02 and 2026-01-16"
    assert clean_text("Bench\x00 85\r\nx") == "Bench 85\nx"


def test_offline_label_matches_the_provider_label():
    from activities.llm.offline import OFFLINE_LABEL

    assert OFFLINE_ANSWER_LABEL == OFFLINE_LABEL


def test_nul_bytes_are_not_stored(tmp_path):
    repo = StorageRepository(tmp_path)
    result = repo.save_entry(_entry("2026-01-16", "Bench\x0085x5", timed=True))
    raw = (tmp_path / result.raw_file).read_text()
    assert "\x00" not in raw and "Bench85x5" in raw and "## 07:30" in raw


def test_clarifying_question_prompt_shows_no_empty_default():
    from client.query.cli import question_prompt
    from models.query.workflow import PendingQuestion

    prompt = question_prompt(PendingQuestion(id="q1", question="How do you feel?", options=["tired", "rested"]))
    shown = str(prompt.make_prompt(""))
    assert shown.startswith("q1. How do you feel? [tired / rested]") and "()" not in shown

