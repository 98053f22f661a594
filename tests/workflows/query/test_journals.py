"""Issue 22 end to end: notes as people keep them. A journal copied elsewhere, with a file renamed and one deleted,
adds nothing and reports the deletion; a 100DaysOfCode log is dated; nothing imported exits 1; --dry-run writes
nothing; a cited entry that was never read is dropped; an empty month is answered as empty."""

from __future__ import annotations

import shutil
from datetime import date

from typer.testing import CliRunner

from client.cli import app
from client.query.cli import run_import
from tests.conftest import replay
from tests.workflows.query.helpers import (
    analysis,
    answer,
    evaluation,
    finding,
    no_update,
    plan,
    recording,
    route,
    start,
)
from tests.workflows.query.test_cli_e2e import _colloquy

LOG = ("# 100 Days Of Code - Log\n\n### Day 0: February 30, 2016 (Example 1)\nTemplate text.\n\n"
       "### Day 1: Thursday January 25, 2018\nBench 80x5 before work.\n\n"
       "### Day 2: Wedneday January 31, 2018\nEasy run 5k.\n")


def _journal(root):  # noqa: ANN001, ANN202
    (root / "2024").mkdir(parents=True)
    (root / "2024/2024-03-01.md").write_text("Ran 5k.\n")
    (root / "2024/2024-03-02.md").write_text("Bench 80x5.\n")
    (root / "2024/2024-03-03.md").write_text("Rest day.\n")
    (root / "log.md").write_text(LOG)
    return root


async def test_a_copied_journal_with_a_renamed_and_a_deleted_file_adds_nothing_and_reports_the_deletion(
        dev_env, worker, offline, tmp_path):
    src = _journal(tmp_path / "journal")
    notes = tmp_path / "notes"
    async with worker(dev_env.client) as queue:
        _, first = await run_import(dev_env.client, src, "fitness", str(notes), queue)
        parses = len(offline.calls("parse_log"))
        copy = tmp_path / "elsewhere" / "journal-copy"
        shutil.copytree(src, copy)
        (copy / "2024/2024-03-02.md").rename(copy / "2024/bench-2024-03-02.md")
        (copy / "2024/2024-03-03.md").unlink()
        wf_id, second = await run_import(dev_env.client, copy, "fitness", str(notes), queue)
        await replay(dev_env.client.get_workflow_handle(wf_id), record_as=recording("query_import_identity"))
        _, pruned = await run_import(dev_env.client, copy, "fitness", str(notes), queue, prune=True)
    assert (first.new, first.updated, first.unchanged) == (5, 0, 0) and parses == 5
    assert any("line 3" in w and "February 30, 2016 is not a real date" in w for w in first.warnings)
    assert (second.new, second.updated, second.unchanged) == (0, 0, 4)
    assert len(offline.calls("parse_log")) == parses  # nothing parsed again
    assert second.vanished_total == 1 and second.vanished == ["2024-03-03#1 (2024-03-03.md)"] and second.pruned == 0
    assert (pruned.new, pruned.vanished_total, pruned.pruned) == (0, 1, 1)
    raw = (notes / "logs/raw/2018/01/2018-01-31.md").read_text()
    assert "Easy run 5k." in raw and raw.count("## ") == 1


async def test_cli_import_exits_1_when_nothing_was_imported_and_dry_run_writes_nothing(dev_env, worker, offline,
                                                                                      tmp_path):
    empty = tmp_path / "thoughts"
    empty.mkdir()
    (empty / "ideas.md").write_text("No dates here.\n## Someday\nmaybe\n")
    journal = _journal(tmp_path / "journal")
    notes = tmp_path / "notes"
    address = dev_env.client.service_client.config.target_host
    async with worker(dev_env.client) as queue:
        code, out = await _colloquy("notes", "import", str(empty), "--address", address, "--task-queue", queue,
                                    "--notes-dir", str(notes))
    assert code == 1, out
    assert "ideas.md: no date found" in out and "nothing was imported" in out
    dry = CliRunner().invoke(app, ["notes", "import", str(journal), "--dry-run", "--notes-dir", str(notes)])
    assert dry.exit_code == 0, dry.output
    assert "2 entries  log.md (headings): 2018-01-25, 2018-01-31" in dry.output
    assert "log.md: line 3: 'Day 0: February 30, 2016 (Example 1)'" in dry.output
    assert "dry run: 5 entries from 4 of 4 files would be imported" in dry.output
    assert not (notes / "logs").exists()
    assert CliRunner().invoke(app, ["notes", "import", str(empty), "--dry-run"]).exit_code == 1


def test_import_help_no_longer_says_files_are_dated_by_their_file_name():
    out = CliRunner().invoke(app, ["notes", "import", "--help"], env={"COLUMNS": "200"}).output
    assert "dated by its YYYY-MM-DD file name" not in out
    assert "headings" in out and "--dry-run" in out and "--year" in out and "--prune" in out


async def test_an_answer_never_reports_an_entry_id_that_was_not_read(ts_env, worker, offline, notes):
    q = "Why was my bench heavy?"
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(q))
    offline.script("analyze_evidence", analysis("sufficient", [finding("heavy on Jan 9", "2026-01-09#1")]))
    offline.script("synthesize_answer", answer("Heavy on Jan 9 and on June 1, 2018.",
                                               ["2026-01-09#1", "2018-06-01#1"], confidence="high"))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, q, notes)).result()
    assert result.evidence_cited == ["2026-01-09#1"]
    assert "cited entry 2018-06-01#1 not among the notes read for this answer; dropped" in result.response
    assert result.confidence == "medium"


async def test_a_question_about_a_month_without_notes_is_answered_as_empty(ts_env, worker, offline, notes):
    q = "How did my training go in March?"
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(q, instructions=[{"tool": "date_range", "start": "2026-03-01",
                                                        "end": "2026-03-31"}]),
                   plan(q, instructions=[{"tool": "date_range", "start": "2026-01-01", "end": "2026-02-28"}]))
    offline.script("analyze_evidence", analysis("sufficient", [finding("bench heavy", "2026-01-09#1")]))
    offline.script("synthesize_answer", answer("In March your bench was heavy.", ["2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, q, notes, today=date(2026, 4, 2))
        result = await handle.result()
        await replay(handle, record_as=recording("query_empty_period"))
    assert "No notes in that period: you have no notes from 2026-03-01 to 2026-03-31" in result.response
    assert result.evidence_cited == [] and result.entries_read == 0 and "bench" not in result.response
    assert offline.calls("analyze_evidence") == [] and offline.calls("synthesize_answer") == []
    assert result.colloquy_status == "completed"


async def test_an_edited_file_keeps_its_unchanged_entries_without_a_no_op_history_record(dev_env, worker, offline,
                                                                                         tmp_path):
    import json

    src = tmp_path / "j"
    src.mkdir()
    (src / "log.md").write_text("## March 4, 2024\nSwim 1k.\n\n## March 5, 2024\nYoga.\n")
    notes = tmp_path / "notes"
    async with worker(dev_env.client) as queue:
        await run_import(dev_env.client, src, "fitness", str(notes), queue)
        (src / "log.md").write_text("## March 4, 2024\nSwim 1k.\n\n## March 5, 2024\nYoga, 45 minutes.\n")
        _, second = await run_import(dev_env.client, src, "fitness", str(notes), queue)
    assert (second.new, second.updated, second.unchanged) == (0, 1, 1)
    swim = json.loads((notes / "logs/parsed/2024/03/2024-03-04.json").read_text())["entries"]
    yoga = json.loads((notes / "logs/parsed/2024/03/2024-03-05.json").read_text())["entries"]
    assert len(swim) == 1 and "history" not in swim[0]
    assert len(yoga) == 1 and yoga[0]["history"][0]["raw"] == "Yoga."
