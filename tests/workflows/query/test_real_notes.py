"""What a user with real notes hit (the "real notes" issue, items 1-11), end to end through the workflows.
Each test names its item; each fails on the code before the fix."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from activities.llm.offline import Fault
from activities.query.storage import StorageRepository
from client.query.cli import run_import
from models.query.parts import Entry
from models.query.workflow import ClarifyAnswer
from tests.conftest import replay
from tests.workflows.query.helpers import (
    analysis,
    answer,
    evaluation,
    finding,
    gap,
    no_update,
    plan,
    recording,
    route,
    start,
    unlabelled,
)
from tests.workflows.query.waits import until_pending
from workflows.query.workflow import QueryWorkflow

Q = "Why did my bench feel heavy last week?"
ROOT = Path(__file__).resolve().parents[3]


# ------------------------------------------------------------------------------- 1. idempotent, edit-aware
async def test_item1_reimport_replaces_edited_files_and_skips_unchanged_ones(dev_env, worker, offline, tmp_path):
    src = tmp_path / "week"
    src.mkdir()
    for day in ("2026-01-05", "2026-01-06", "2026-01-07"):
        (src / f"{day}.md").write_text(f"Bench 100x5 on {day}.\n")
    notes = tmp_path / "notes"
    async with worker(dev_env.client) as queue:
        _, first = await run_import(dev_env.client, src, "fitness", str(notes), queue)
        (src / "2026-01-06.md").write_text("Bench 110x5 on 2026-01-06 (edited).\n")
        _, second = await run_import(dev_env.client, src, "fitness", str(notes), queue)
        calls_after_second = len(offline.calls("parse_log"))
        _, third = await run_import(dev_env.client, src, "fitness", str(notes), queue)
    assert (first.new, first.updated, first.unchanged) == (3, 0, 0)
    assert (second.new, second.updated, second.unchanged) == (0, 1, 2)
    assert (third.new, third.updated, third.unchanged) == (0, 0, 3)
    assert calls_after_second == 4 and len(offline.calls("parse_log")) == 4  # unchanged files: no LLM call
    raw = (notes / "logs/raw/2026/01/2026-01-06.md").read_text()
    assert "110x5" in raw and "Bench 100x5" not in raw  # one live version, never both
    record = json.loads((notes / "logs/parsed/2026/01/2026-01-06.json").read_text())["entries"]
    assert len(record) == 1 and record[0]["history"][0]["raw"] == "Bench 100x5 on 2026-01-06."


def test_item1_cli_reports_new_updated_unchanged():
    from client.query.cli import import_summary
    from models.query.workflow import ImportResult

    result = ImportResult(total=7, imported=1, new=1, updated=0, unchanged=6)
    assert import_summary(result) == "1 new, 0 updated, 6 unchanged entries"


# ------------------------------------------------------------------------------------ 2. dates from content
async def test_item2_monthly_journal_is_dated_by_its_headings_and_bad_dates_are_errors(dev_env, worker, offline,
                                                                                         tmp_path):
    src = tmp_path / "journal"
    src.mkdir()
    (src / "2015-01.md").write_text("# January 2015\n\n## 4.01.2015\nEasy run 5k.\n\n## 5.01.2015\nBench 80x5.\n")
    (src / "2026-02-30.md").write_text("Bench 90x5\n")
    (src / "gym.md").write_text("Gym was fun\n")
    notes = tmp_path / "notes"
    async with worker(dev_env.client) as queue:
        _, result = await run_import(dev_env.client, src, "fitness", str(notes), queue)
        _, today = await run_import(dev_env.client, src, "fitness", str(notes), queue, undated="today",
                                    today=date(2026, 1, 16))
    # Counts are entries (issue 22: identity by content): the monthly file gives two.
    assert result.new == 2 and any(f.startswith("2026-02-30.md: the file name's date 2026-02-30 is not a real date")
                                   for f in result.failed)
    assert any(w.startswith("gym.md: no date") and "--undated" in w for w in result.warnings)
    jan4 = (notes / "logs/raw/2015/01/2015-01-04.md").read_text()
    assert "Easy run 5k." in jan4 and "## --:--" in jan4 and "## 00:00" not in jan4  # no made-up time
    assert "Bench 80x5." in (notes / "logs/raw/2015/01/2015-01-05.md").read_text()
    assert not (notes / "logs/raw/2026/02").exists()
    assert today.new == 1 and "Gym was fun" in (notes / "logs/raw/2026/01/2026-01-16.md").read_text()


# -------------------------------------------------------------------------------- 3. search before asking
async def test_item3_a_first_clarify_searches_first_and_a_decline_answers_from_what_was_found(ts_env, worker,
                                                                                               offline, notes):
    ask = plan(Q, action="clarify", clarify_questions=["Were you ill that week?"])
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", ask, ask)
    offline.script("analyze_evidence", analysis("insufficient", [finding("heavy on Jan 9 after 5 hours of sleep",
                                                                         "2026-01-09#1")],
                                                [gap("whether you were ill", "subjective")]))
    offline.script("clarify_gaps", {"questions": [{"question": "Were you ill that week?"}]})
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, Q, notes)
        await until_pending(handle)
        await handle.execute_update(QueryWorkflow.clarify, ClarifyAnswer(decline=True))
        result = await handle.result()
        await replay(handle, record_as=recording("query_search_first"))
    assert result.path.index("RETRIEVE") < result.path.index("CLARIFY")
    assert result.entries_read > 0 and result.evidence_cited == ["2026-01-09#1"]
    assert "heavy on Jan 9" in result.response and "found nothing" not in result.response


# ------------------------------------------------------------------------------------------ 4. whole scopes
def _year_of_notes(root: Path) -> None:
    repo = StorageRepository(root)
    for i in range(365):
        d = date(2025, 1, 1) + timedelta(days=i)
        repo.save_entry(Entry(id="", date=d, timestamp=datetime(d.year, d.month, d.day, 7, tzinfo=UTC),
                              raw_content=f"Training day {i + 1}: bench {100 + i % 20}x5."))


async def test_item4_a_year_is_read_in_full_in_chunks_or_marked_partial(ts_env, worker, offline, tmp_path):
    notes = tmp_path / "notes"
    _year_of_notes(notes)
    q = "How did my training go this year?"
    async with worker(ts_env.client) as queue:
        full = await (await start(ts_env, queue, q, notes, today=date(2025, 12, 31))).result()
        analyzer_calls = len(offline.calls("analyze_evidence"))
        capped = await (await start(ts_env, queue, q, notes, today=date(2025, 12, 31), max_entries=50)).result()
    assert full.entries_read == 365 and not full.partial
    assert analyzer_calls == 5  # defaults: 4 chunks of at most 120 entries, read in parallel, + 1 to combine
    assert capped.partial and capped.entries_read == 50 and capped.entries_in_scope == 365
    assert "only 50 of the 365 entries in scope were read" in capped.response


def test_item4_cli_can_raise_the_limit():
    from typer.testing import CliRunner

    from client.cli import app

    out = CliRunner().invoke(app, ["notes", "ask", "--help"])
    assert "--max-entries" in out.output and "--tz" in out.output


# ------------------------------------------------------------------------------------------ 5. honest answers
async def test_item5_offline_answers_are_labelled_and_an_unrelated_question_finds_nothing(ts_env, worker, offline,
                                                                                          notes):
    from activities.llm.offline import OFFLINE_LABEL

    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, "What is my cat's name?", notes)).result()
    assert result.response.startswith(OFFLINE_LABEL) and result.offline
    assert "found nothing in your notes" in result.response and result.evidence_cited == []
    assert "From your notes:" not in result.response


# --------------------------------------------------------------------------------- 6. Router failure keeps it
async def test_item6_router_failure_keeps_the_note_as_written(ts_env, worker, offline, notes):
    offline.script("route_input", Fault(kind="auth"))
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, "Bench 200x1, new PR", notes)).result()
    assert result.stored_entries and "needs-parsing" in result.warnings[0]
    assert "Bench 200x1, new PR" in (notes / "logs/raw/2026/01/2026-01-16.md").read_text()
    record = json.loads((notes / "logs/parsed/2026/01/2026-01-16.json").read_text())["entries"][0]
    assert "needs-parsing" in record["tags"]
    assert result.path == ["ROUTE", "STORE", "OBSERVE", "COMPLETE"]


NOTE = "Bench 200x1, new PR"
PARSED_NOTE = {"tags": ["strength"], "confidence": 0.9,
               "domain_data": {"strength": {"exercises": [{"name": "bench press", "weight": 200, "reps": 1}]}}}


def _flagged_record(notes: Path, entry_id: str = "2026-01-16#1") -> dict:
    day = entry_id.split("#")[0]
    records = json.loads((notes / f"logs/parsed/{day[:4]}/{day[5:7]}/{day}.json").read_text())["entries"]
    return next(r for r in records if r["id"] == entry_id)


def _script_query(offline) -> None:  # noqa: ANN001
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(Q))
    offline.script("analyze_evidence", analysis("sufficient", [finding("heavy on Jan 9", "2026-01-09#1")]))
    offline.script("synthesize_answer", answer("Heavy on Jan 9.", ["2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())


async def test_item6_the_next_ask_parses_the_note_the_router_could_not_route(ts_env, worker, offline, notes):
    offline.script("route_input", Fault(kind="auth"))
    async with worker(ts_env.client) as queue:
        kept = await (await start(ts_env, queue, NOTE, notes)).result()
        assert "needs-parsing" in _flagged_record(notes)["tags"] and not _flagged_record(notes)["domain_data"]
        _script_query(offline)
        offline.script("parse_log", PARSED_NOTE)
        handle = await start(ts_env, queue, Q, notes)
        result = await handle.result()
        await replay(handle, record_as=recording("query_reparse"))
    assert kept.stored_entries[0].entry_id == "2026-01-16#1" and "colloquy notes reparse" in kept.response
    assert result.reparsed is not None and result.reparsed.parsed == ["2026-01-16#1"]
    assert result.reparsed.failed == {} and result.reparsed.waiting == 0
    assert [c.context["text"] for c in offline.calls("parse_log")] == [NOTE]  # the raw note, as written
    record = _flagged_record(notes)
    assert "needs-parsing" not in record["tags"] and "strength" in record["tags"]
    assert record["domain_data"]["strength"]["exercises"][0]["weight"] == 200
    assert record["history"][0]["raw"] == NOTE and record["history"][0]["domain_data"] == {}
    assert "needs-parsing" in record["history"][0]["tags"]
    assert NOTE in (notes / "logs/raw/2026/01/2026-01-16.md").read_text()  # the text itself is untouched
    assert "Heavy on Jan 9." in result.response and result.usage.by_agent["parse_log"].calls == 1


async def test_item6_a_parser_failure_keeps_the_flag_and_says_so(ts_env, worker, offline, notes):
    offline.script("route_input", Fault(kind="auth"))
    async with worker(ts_env.client) as queue:
        await (await start(ts_env, queue, NOTE, notes)).result()
        _script_query(offline)
        offline.script("parse_log", Fault(kind="auth", message="the key was revoked"))
        result = await (await start(ts_env, queue, Q, notes)).result()
    assert result.reparsed is not None and result.reparsed.parsed == []
    assert list(result.reparsed.failed) == ["2026-01-16#1"]
    assert any("0 parsed, 1 still unparsed (1: the Parser failed" in w and "the key was revoked" in w
               for w in result.warnings), result.warnings
    record = _flagged_record(notes)
    assert "needs-parsing" in record["tags"] and record["parse_failures"] == 1
    assert "the key was revoked" in record["last_parse_error"] and not record["domain_data"]
    assert "Heavy on Jan 9." in result.response  # the question is still answered


async def test_item6_an_import_parses_flagged_notes_too(dev_env, worker, offline, notes, tmp_path):
    offline.script("route_input", Fault(kind="auth"))
    src = tmp_path / "week"
    src.mkdir()
    (src / "2026-01-15.md").write_text("Rest day.\n")
    async with worker(dev_env.client) as queue:
        await (await start(dev_env, queue, NOTE, notes)).result()
        offline.script("parse_log", {"domain_data": {}}, PARSED_NOTE)  # the imported file first, then the note
        wf_id, result = await run_import(dev_env.client, src, "fitness", str(notes), queue)
        await replay(dev_env.client.get_workflow_handle(wf_id), record_as=recording("query_import_reparse"))
    assert result.new == 1 and result.reparsed is not None and result.reparsed.parsed == ["2026-01-16#1"]
    record = _flagged_record(notes)
    assert "needs-parsing" not in record["tags"] and record["domain_data"]["strength"]
    assert record["history"][0]["raw"] == NOTE


def _parse_unless_squat(req):  # noqa: ANN001, ANN202
    """The Parser double for the reparse command: fails on the squat note, parses the others."""
    text = req.context["text"]
    if "Squat" in text:
        return Fault(kind="auth", message="the model refused this note")
    return {"tags": ["running"], "domain_data": {"running": {"runs": [{"distance_km": 5}]}}} if "run" in text \
        else PARSED_NOTE


async def test_item6_reparse_command_parses_flagged_notes_through_a_worker(dev_env, worker, offline, tmp_path):
    import os
    import sys

    notes = tmp_path / "notes"
    repo = StorageRepository(notes)
    for day, text in (("2026-01-10", NOTE), ("2026-01-11", "Squat 140x3, knees ok"), ("2026-01-12", "Easy run 5k")):
        d = date.fromisoformat(day)
        repo.save_entry(Entry(id="", date=d, timestamp=datetime(d.year, d.month, d.day, 8, 0, tzinfo=UTC),
                              raw_content=text, tags=["needs-parsing"], source_key=f"test:{day}"))
    offline.script("parse_log", *[_parse_unless_squat] * 10)
    address = dev_env.client.service_client.config.target_host
    env = dict(os.environ, COLUMNS="200", COLLOQUY_LOG_LEVEL="ERROR")

    async def colloquy(*args: str) -> tuple[int, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "client.cli", "notes", "reparse", "--address", address, "--task-queue", queue,
            "--notes-dir", str(notes), *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            env=env)
        out, _ = await asyncio.wait_for(proc.communicate(), timeout=90)
        return proc.returncode or 0, out.decode()

    async with worker(dev_env.client) as queue:
        code1, first = await colloquy("--limit", "2")
        code2, second = await colloquy()
    assert code1 == 0 and code2 == 0, first + second
    # oldest first, two at most: Jan 10 parsed, Jan 11 failed, Jan 12 not tried
    assert "1 parsed, 2 still unparsed (1: the Parser failed — " in first and "the model refused this note" in first
    assert "1: not tried yet" in first and "parsed 2026-01-10#1" in first
    assert "still unparsed 2026-01-11#1: " in first
    # the note that failed goes after the one never tried: Jan 12 parsed, Jan 11 fails again, still flagged
    assert "1 parsed, 1 still unparsed (1: the Parser failed" in second and "parsed 2026-01-12#1" in second
    assert sorted(c.context["text"] for c in offline.calls("parse_log")) == sorted(
        [NOTE, "Squat 140x3, knees ok", "Easy run 5k", "Squat 140x3, knees ok"])  # one call per note tried
    assert "needs-parsing" not in _flagged_record(notes, "2026-01-12#1")["tags"]
    squat = _flagged_record(notes, "2026-01-11#1")
    assert "needs-parsing" in squat["tags"] and squat["parse_failures"] == 2


# ------------------------------------------------------------------------------- 8. every gap, plain words
async def test_item8_final_partial_lists_every_evaluations_gaps_in_plain_words(ts_env, worker, offline, notes):
    unchecked = evaluation()
    unchecked["dimensions"] = [d for d in unchecked["dimensions"] if d["dimension"] != "completeness"]
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(Q), plan(Q), plan(Q))
    offline.script("analyze_evidence", *[analysis("sufficient", [finding("heavy on Jan 9", "2026-01-09#1")])] * 3)
    offline.script("synthesize_answer", *[answer("Heavy on Jan 9.", ["2026-01-09#1"])] * 4)
    offline.script("evaluate_answer", unchecked, evaluation("accuracy", feedback="the sleep claim cites no entry"),
                   evaluation("relevance", feedback="it answers about a different week"))
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, Q, notes)).result()
    assert result.partial
    assert "a complete answer to every part of the question (this could not be checked)" in result.response
    assert "the sleep claim cites no entry" in result.response
    assert "it answers about a different week" in result.response
    assert "not evaluated" not in result.response and "completeness:" not in result.response


# ------------------------------------------------------------------------------------- 9. the user's clock
async def test_item9_http_api_stores_notes_on_the_users_clock(dev_env, worker, offline, notes):
    from aiohttp.test_utils import TestClient, TestServer

    from client.query.cli import build_api

    offline.script("route_input", route("log", []))
    async with worker(dev_env.client) as queue:
        api = build_api(dev_env.client, queue, "fitness", str(notes), wait_s=20)
        async with TestClient(TestServer(api, host="127.0.0.1")) as http:
            before = datetime.now(UTC) + timedelta(hours=9)
            resp = await http.post("/input", json={"text": "Rest day, walked 30 min", "time_zone": "Asia/Seoul"})
            body = await resp.json()
            after = datetime.now(UTC) + timedelta(hours=9)
            bad = await http.post("/input", json={"text": "x", "time_zone": "Mars/Olympus"})
            bad_body = await bad.json()
    stored = body["result"]["stored_entries"][0]
    assert stored["entry_id"].startswith((before.date().isoformat(), after.date().isoformat()))
    raw = (notes / stored["raw_file"]).read_text()
    assert f"## {before:%H}:" in raw or f"## {after:%H}:" in raw
    assert bad.status == 400 and "unknown time zone" in bad_body["error"]


# ----------------------------------------------------------------------- 10. ambiguous corrections ask first
async def test_item10_an_ambiguous_correction_asks_which_entry(ts_env, worker, offline, notes):
    text = "Actually I slept 6 hours not 5"
    offline.script("route_input", route("correction", ["strength"]), route("correction", ["strength"]))
    offline.script("observe_context", no_update(), no_update())
    jan14 = (notes / "logs/raw/2026/01/2026-01-14.md").read_text()
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, text, notes)
        pending = await until_pending(handle)
        assert any(o.startswith("2026-01-09#1:") for o in pending.questions[0].options or [])
        await handle.execute_update(QueryWorkflow.clarify, ClarifyAnswer(answers={"q1": "2026-01-09#1"}))
        result = await handle.result()
        await replay(handle, record_as=recording("query_correction_choice"))
        declined = await start(ts_env, queue, text, notes)
        await until_pending(declined)
        await declined.execute_update(QueryWorkflow.clarify, ClarifyAnswer(decline=True))
        kept = await declined.result()
    assert result.stored_entries[0].entry_id == "2026-01-09#1" and result.stored_entries[0].corrected
    assert text in (notes / "logs/raw/2026/01/2026-01-09.md").read_text()
    assert (notes / "logs/raw/2026/01/2026-01-14.md").read_text() == jan14  # the unrelated entry is untouched
    assert len(offline.calls("clarify_gaps")) == 2
    assert not kept.stored_entries[0].corrected and "no entry was chosen" in " ".join(kept.warnings)


# ---------------------------------------------------------------------------------------- 11. rough edges
def test_item11_the_cli_starts_queries_by_type_name_without_importing_workflows():
    probe = (
        "import asyncio, sys\n"
        "from client.query import cli as notes\n"
        "class Stop(Exception): pass\n"
        "class Client:\n"
        "    async def start_workflow(self, wf, req, **kw):\n"
        "        print(repr(wf)); raise Stop\n"
        "import client.worker_check as wc\n"
        "async def _worker_ok(*a, **k): pass\n"
        "wc.require_worker = _worker_ok  # the no-worker check asks a server; this probe has none\n"
        "try:\n"
        "    asyncio.run(notes._ask_once(Client(), 'hi', 'fitness', None, 'q', None))\n"
        "except Stop:\n"
        "    pass\n"
        "print('workflows.query' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["'QueryWorkflow'", "False"]


async def test_item11_evidence_once_nul_removed_and_answer_on_a_finished_run_says_so(ts_env, worker, offline,
                                                                                     notes):
    from client.query.cli import answer_workflow

    offline.script("route_input", route("query", ["strength"]), route("log", []))
    offline.script("plan_query", plan(Q))
    offline.script("analyze_evidence", analysis("sufficient", [finding("heavy on Jan 9", "2026-01-09#1")]))
    offline.script("synthesize_answer", answer("Heavy on Jan 9.", ["2026-01-09#1", "2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update(), no_update())
    asked = []

    async def ask(pending):  # noqa: ANN001, ANN202
        asked.append(pending)
        return None

    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, Q, notes)
        result = await handle.result()
        again, finished = await answer_workflow(ts_env.client, handle.id, ask)
        log = await (await start(ts_env, queue, "Plank\x00 2 minutes", notes)).result()
    assert result.evidence_cited == ["2026-01-09#1"]
    assert finished and asked == [] and unlabelled(again.response) == "Heavy on Jan 9."
    raw = (notes / log.stored_entries[0].raw_file).read_text()
    assert "Plank 2 minutes" in raw and "\x00" not in raw


def test_item11_bench_prints_the_client_overhead_per_ask():
    out = subprocess.run([sys.executable, "-m", "bench.notes_overhead", "--imports-only"], capture_output=True,
                         text=True, cwd=ROOT, check=True)
    assert "client-side overhead per ask" in out.stdout
