"""Issue 22, item 3-4 (pure and storage level): entries identified by date and text, vanished sources reported and
pruned with history kept, no no-op history records; cited evidence checked against the entries read."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time

from hypothesis import given, settings
from hypothesis import strategies as st

from activities.query.import_identity import finish_import, save_by_content
from activities.query.storage import StorageRepository
from models.query.parts import Entry
from rules.query.evidence import asked_periods, check_cited, checked_answer, empty_period_answer
from rules.query.imports import entry_key, journal_hints, split_dated

AT = datetime(2026, 2, 1, tzinfo=UTC)


def _batch(files: dict[str, str]) -> dict[str, list[tuple[str, Entry | None]]]:
    """What the parse batch hands the store: every dated part of each file, keyed by content."""
    hints = journal_hints(files)
    out: dict[str, list[tuple[str, Entry | None]]] = {}
    for rel, text in files.items():
        out[rel] = [(entry_key(p.day, p.text), Entry(id="", date=p.day, raw_content=p.text, timed=False,
                                                      timestamp=datetime.combine(p.day, time(0), tzinfo=UTC)))
                    for p in split_dated(text, rel, hints).parts]
    return out


JOURNAL = {
    "2024/2024-03-01.md": "Ran 5k.\n",
    "2024/2024-03-02.md": "Bench 80x5.\n",
    "2024/2024-03-03.md": "Rest day.\n",
    "log.md": "## March 4, 2024\nSwim.\n\n## March 5, 2024\nYoga.\n",
}


def test_entry_key_is_date_and_normalised_text_not_path():
    assert entry_key(date(2024, 3, 1), "Ran  5k.\r\n") == entry_key(date(2024, 3, 1), " Ran 5k.\n")
    assert entry_key(date(2024, 3, 1), "Ran 5k.") != entry_key(date(2024, 3, 2), "Ran 5k.")


def test_reimport_from_a_copy_elsewhere_with_a_renamed_and_a_deleted_file_adds_nothing_and_reports_the_loss(
        tmp_path):
    repo = StorageRepository(tmp_path / "notes")
    first = save_by_content(repo, "/home/me/journal", "import-1", _batch(JOURNAL), {}, AT)
    assert (len(first.new), len(first.updated), len(first.unchanged)) == (5, 0, 0)
    assert finish_import(repo, "/home/me/journal", "import-1", False, AT).vanished_total == 0
    moved = dict(JOURNAL)
    moved["2024/renamed-2024-03-02.md"] = moved.pop("2024/2024-03-02.md")  # renamed: same date, same text
    del moved["2024/2024-03-03.md"]                                         # deleted
    second = save_by_content(repo, "/backup/journal-copy", "import-2", _batch(moved), {}, AT)
    assert (len(second.new), len(second.updated), len(second.unchanged)) == (0, 0, 4)
    gone = finish_import(repo, "/backup/journal-copy", "import-2", False, AT)
    assert gone.vanished_total == 1 and gone.vanished == ["2024-03-03#1 (2024-03-03.md)"] and gone.pruned == 0
    assert [e.raw_content for e in repo.get_entries_by_date_range(date(2024, 3, 3), date(2024, 3, 3))] == ["Rest day."]
    pruned = finish_import(repo, "/backup/journal-copy", "import-2", True, AT)
    assert pruned.pruned == 1
    assert repo.get_entries_by_date_range(date(2024, 3, 3), date(2024, 3, 3)) == []  # removed: no longer read
    record = json.loads((tmp_path / "notes/logs/parsed/2024/03/2024-03-03.json").read_text())["entries"][0]
    assert record["removed"] and "Rest day." in (tmp_path / "notes/logs/raw/2024/03/2024-03-03.md").read_text()
    assert finish_import(repo, "/backup/journal-copy", "import-2", False, AT).vanished_total == 0  # said once


def test_an_edited_file_replaces_only_its_changed_entry_and_unchanged_ones_get_no_history_record(tmp_path):
    repo = StorageRepository(tmp_path / "notes")
    save_by_content(repo, "/j", "i1", _batch({"log.md": JOURNAL["log.md"]}), {}, AT)
    edited = {"log.md": "## March 4, 2024\nSwim.\n\n## March 5, 2024\nYoga, 45 minutes.\n"}
    out = save_by_content(repo, "/j", "i2", _batch(edited), {}, AT)
    assert (out.new, out.updated, out.unchanged) == ([], ["log.md#1"], ["log.md#0"])
    swim = json.loads((tmp_path / "notes/logs/parsed/2024/03/2024-03-04.json").read_text())["entries"][0]
    yoga = json.loads((tmp_path / "notes/logs/parsed/2024/03/2024-03-05.json").read_text())["entries"][0]
    assert "history" not in swim  # unchanged: no no-op record
    assert yoga["history"][0]["raw"] == "Yoga." and yoga["id"] == "2024-03-05#1"
    assert finish_import(repo, "/j", "i2", False, AT).vanished_total == 0


def test_an_older_manifest_is_recognised_by_content(tmp_path):
    """Notes imported before content identity (per-file manifest) are matched by their stored text."""
    repo = StorageRepository(tmp_path / "notes")
    e = Entry(id="", date=date(2024, 3, 1), timestamp=datetime(2024, 3, 1, tzinfo=UTC), raw_content="Ran 5k.",
              timed=False)
    repo.save_import("/old/2024-03-01.md", "h", [e], AT)
    out = save_by_content(repo, "/new", "i1", _batch({"2024-03-01.md": "Ran 5k.\n"}), {}, AT)
    assert out.new == [] and out.unchanged == ["2024-03-01.md#0"]


# ------------------------------------------------------------------------------------------ evidence checked
def test_a_cited_id_that_was_never_read_is_dropped_and_the_answer_says_so():
    text, kept, conf = checked_answer("Heavy in June.", ["2018-06-01#1"], ["2018-05-30#1"], "high")
    assert kept == [] and conf == "low"
    assert text.endswith("[unverified evidence — cited entry 2018-06-01#1 not among the notes read for this "
                         "answer; dropped]")
    same, kept, conf = checked_answer("ok", ["a#1", "a#1"], ["a#1"], "high")
    assert (same, kept, conf) == ("ok", ["a#1"], "high")


IDS = st.from_regex(r"20[0-9]{2}-[01][0-9]-[0-3][0-9]#[1-9]", fullmatch=True)


@given(st.lists(IDS, max_size=12), st.lists(IDS, max_size=12), st.sampled_from(["high", "medium", "low"]))
@settings(max_examples=300, deadline=None)
def test_property_whatever_the_model_cites_the_reported_ids_are_among_those_read(cited, read, confidence):
    text, kept, _ = checked_answer("Answer.", cited, read, confidence)
    assert set(kept) <= set(read) and len(kept) == len(set(kept))
    kept2, dropped = check_cited(cited, read)
    assert kept2 == kept and set(dropped) == set(cited) - set(read)
    assert ("unverified evidence" in text) == bool(dropped)


def test_an_empty_period_is_stated():
    class Ins:
        def __init__(self, start, end):  # noqa: ANN001
            self.start, self.end = start, end

    assert asked_periods([Ins(date(2026, 3, 31), date(2026, 3, 1))]) == [(date(2026, 3, 1), date(2026, 3, 31))]
    assert asked_periods([Ins(date(2026, 3, 1), None), Ins(None, None)]) == []
    assert empty_period_answer([(date(2026, 3, 1), date(2026, 3, 31))]).startswith(
        "No notes in that period: you have no notes from 2026-03-01 to 2026-03-31")
