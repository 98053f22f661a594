"""History DB (§17) on a populated DB — every history test runs on both backends, the DuckDB file and a real
PostgreSQL (tests/unit/writing/postgres_server.py) — and the run logs (§7) rendered from a run record."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime, timedelta

import pytest

from activities.writing.history import HistoryStore
from models.common import ArtifactRef
from models.writing.workflow import (
    AgentOutput,
    AuditScoreRow,
    BreakerState,
    Invocation,
    RunRecord,
    RunState,
    StateLogEntry,
)
from rules.writing.summary import agent_logs, manifest, run_summary, state_log_lines, token_lines

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)  # a Monday


def _ref(name):
    return ArtifactRef(uri=f"file:///runs/{name}", name=name, sha256="0", size_bytes=10)


def record(run_id, story, start, scores, costs, status="complete", final=8.0, feedback=()):
    """A finished run: drafts by each model with a cost, cross-audit scores for each model, a final score."""
    invs, seq = [], 0
    for model, cost in costs.items():
        seq += 1
        invs.append(Invocation(seq=seq, state="draft", visit=1, task="draft", agent="writing_draft", model=model,
                               started_at=start, duration_s=2.0, status="success", input_tokens=1000,
                               output_tokens=300, cost_usd=cost, word_count=320, context_window=128000))
    seq += 1
    invs.append(Invocation(seq=seq, state="draft", visit=1, task="draft", agent="writing_draft", model="flaky",
                           started_at=start, status="failed", error="boom"))
    audit = [AuditScoreRow(state="cross-audit", kind="audit", auditor=a, target=t, overall=s, hook=s - 1,
                           specifics=s, voice=s, structure=s, feedback="fine")
             for t, s in scores.items() for a in costs]
    state = RunState(run_id=run_id, story_name=story, models=list(costs), status=status, current="complete",
                     started_at=start, invocations=invs, audit_scores=audit, final_score=final,
                     human_feedback=list(feedback),
                     gate_scores=[{"state": "draft-check", "visit": 1, "model": "gate", "target": "draft",
                                   "score": 7, "decision": "proceed", "feedback": "ok"}],
                     breaker=BreakerState(transition_history=[("start", "draft"), ("draft", "complete")]),
                     state_log=[StateLogEntry(ts=start, event="transition", state="draft",
                                              data={"from": "start", "to": "draft"})])
    post = AgentOutput(state="synthesize", model="orchestrator", kind="post", ref=_ref("post.md"), word_count=300,
                       preview="The GPU hit 94 degrees")
    return RunRecord(state=state, finished_at=start + timedelta(minutes=3), final_post=post)


def populate(h):
    h.record_run(record("r1", "post_03", T0, {"claude": 8, "gemini": 7}, {"claude": 0.03, "gemini": 0.01},
                        final=7.2), "default")
    h.record_run(record("r2", "post_03", T0 + timedelta(days=1), {"claude": 9, "gemini": 6},
                        {"claude": 0.02, "gemini": 0.01}, final=8.1, feedback=["Added GPU temp detail"]), "gated")
    h.record_run(record("r3", "post_04", T0 + timedelta(days=8), {"claude": 7, "gemini": 8},
                        {"claude": 0.02, "gemini": 0.02}, final=8.8), "default")
    h.record_run(record("r4", "post_04", T0 + timedelta(days=9), {"claude": 5}, {"claude": 0.05}, status="halted",
                        final=None), "default")
    return h


@pytest.fixture(params=["duckdb", "postgres"])
def backend(request, tmp_path):
    """The location of an empty history DB: a DuckDB file, or a fresh database on the test's PostgreSQL."""
    return str(tmp_path / "h.duckdb") if request.param == "duckdb" else request.getfixturevalue("postgres_url")


@pytest.fixture
def history(backend):
    return populate(HistoryStore(backend))


def test_agent_comparison_costs_and_best_agent(history):
    cols, rows = history.query("agents")
    assert cols[:2] == ["agent", "avg_score"]
    table = {r[0]: r for r in rows}
    assert table["claude"][1] == pytest.approx(round((8 * 2 + 9 * 2 + 7 * 2 + 5) / 7, 2))  # per audit row
    assert table["gemini"][1] == pytest.approx(7.0) and table["gemini"][5] == 3
    cols, rows = history.query("costs")
    costs = {r[0]: r for r in rows}
    assert costs["claude"][1] == 4 and costs["claude"][3] == pytest.approx(0.12)
    assert costs["flaky"][3] == 0 and rows[0][0] == "claude"  # ordered by total cost
    cols, rows = history.query("best_for_task", "draft")
    assert [r[0] for r in rows] == ["claude", "gemini"]


def test_trend_post_iterations_weekly_and_agent_over_time(history):
    _, trend = history.query("trend")
    assert [r[0] for r in trend] == ["r1", "r2", "r3", "r4"]
    cols, post = history.query("post", "post_03")
    assert [(r[0], r[2]) for r in post] == [(1, 7.2), (2, 8.1)]
    assert post[0][4] == "Initial" and post[1][4] == "Added GPU temp detail"
    _, weekly = history.query("weekly")
    assert [(r[1], r[2]) for r in weekly] == [(2, pytest.approx(7.65)), (1, pytest.approx(8.8))]  # halted excluded
    _, over_time = history.query("agent_over_time", "gemini")
    assert [r[2] for r in over_time] == [7.0, 6.0, 8.0]
    with pytest.raises(ValueError, match="needs a parameter"):
        history.query("post")
    with pytest.raises(KeyError, match="unknown history query"):
        history.query("nope")


def test_recording_a_run_again_replaces_it(history):
    history.record_run(record("r1", "post_03", T0, {"claude": 1}, {"claude": 1.0}, final=1.0), "default")
    _, costs = history.query("costs")
    assert {r[0]: r[1] for r in costs}["claude"] == 4  # r1 replaced, not duplicated
    _, post = history.query("post", "post_03")
    assert len(post) == 2


def test_export_writes_every_table_as_csv_and_json(history, tmp_path):
    files = history.export(tmp_path / "exports")
    assert sorted(p.name for p in files) == sorted(f"{t}.{ext}" for t in ("runs", "invocations", "audit_scores",
                                                                          "post_iterations") for ext in ("csv", "json"))
    runs = list(csv.DictReader((tmp_path / "exports" / "runs.csv").open()))
    assert [r["run_id"] for r in runs] == ["r1", "r2", "r3", "r4"]
    invocations = json.loads((tmp_path / "exports" / "invocations.json").read_text())
    assert len(invocations) == 11
    gates = [a for a in json.loads((tmp_path / "exports" / "audit_scores.json").read_text())
             if a["kind"] == "quality_gate"]
    assert len(gates) == 4 and gates[0]["overall_score"] == 7


def test_a_missing_duckdb_file_is_explained(tmp_path):
    with pytest.raises(FileNotFoundError, match="no run history yet"):
        HistoryStore(str(tmp_path / "none.duckdb")).query("trend")


def test_run_logs_render_the_seed_formats():
    rec = record("r9", "post_03", T0, {"claude": 8}, {"claude": 0.0095, "gemini": 0.0037})
    m = manifest(rec)
    assert m["status"] == "complete" and m["totals"]["cost_usd"] == pytest.approx(0.0132)
    assert m["duration_s"] == 180.0
    tokens = [json.loads(line) for line in token_lines(rec)]
    assert tokens[0] == {"ts": "2026-01-05T09:00:00Z", "agent": "claude", "state": "draft",
                         "activity": "writing_draft", "input_tokens": 1000, "output_tokens": 300, "total": 1300,
                         "context_max": 128000, "context_used_pct": 0.0, "context_status": "healthy",
                         "cost_usd": 0.0095, "status": "success", "offline": False}
    logs = agent_logs(rec)
    assert set(logs) == {"agent_logs/claude_draft.jsonl", "agent_logs/gemini_draft.jsonl",
                         "agent_logs/flaky_draft.jsonl"}
    complete = json.loads(logs["agent_logs/flaky_draft.jsonl"][1])
    assert complete["event"] == "complete" and not complete["success"] and complete["error"] == "boom"
    assert json.loads(state_log_lines(rec)[0])["event"] == "transition"
    text = run_summary(rec, post_text="The GPU hit 94 degrees.\nSecond line.", analysis_text="Ready to publish.")
    assert "# Workflow Run: r9" in text and "**Duration:** 3m 00s" in text
    assert "| claude | 1,000 | 300 | 1,300 | $0.0095 |" in text
    assert "| **Total** | **2,000** | **600** | **2,600** | **$0.0132** |" in text
    assert "> The GPU hit 94 degrees." in text and "Ready to publish." in text
    assert "| draft-check | 1 | 7/10 | proceed |" in text


def test_run_summary_compares_with_history(history, tmp_path):
    rec = record("r5", "post_03", T0 + timedelta(days=10), {"claude": 9, "gemini": 5}, {"claude": 0.01}, final=8.8)
    ctx = history.context("post_03", "r5")
    assert ctx.iteration == 3 and ctx.previous_best == 8.1
    text = run_summary(rec, history=ctx)
    assert "- **Iteration:** 3" in text and "- **Current score:** 8.8 (+0.7)" in text
    assert "| claude | 9.0 |" in text and "↑" in text
    assert "below average" in text
    assert HistoryStore(str(tmp_path / "missing.duckdb")).context("x", "y") is None


def test_forced_and_aborted_runs_are_kept_apart_and_an_aborted_run_shows_no_score(backend):
    """Issue 39: a forced completion is no iteration and says `(forced)`; an aborted (halted) or `forced` run
    shows no score, though its final audits scored a post nobody approved; `weekly` counts neither."""
    h = HistoryStore(backend)
    h.record_run(record("ok", "post_39", T0, {"claude": 8}, {"claude": 0.01}, final=7.0), "gated")
    h.record_run(record("aborted", "post_39", T0 + timedelta(hours=1), {"claude": 8}, {"claude": 0.01},
                        status="halted", final=9.0), "gated")
    forced = record("forced", "post_39", T0 + timedelta(hours=2), {"claude": 8}, {"claude": 0.01}, final=6.0)
    h.record_run(forced.model_copy(update={"forced": True}), "default")
    h.record_run(record("unapproved", "post_39", T0 + timedelta(hours=3), {"claude": 8}, {"claude": 0.01},
                        status="forced", final=9.0), "gated")
    _, post = h.query("post", "post_39")
    assert [(r[0], r[2], r[6]) for r in post] == [(1, 7.0, "complete")]
    _, every = h.query("post_all", "post_39")
    assert [(r[0], r[2], r[6]) for r in every] == [(1, 7.0, "complete"), (None, None, "halted"),
                                                   (None, 6.0, "complete (forced)"), (None, None, "forced")]
    _, trend = h.query("trend")
    assert [(r[0], r[3], r[4]) for r in trend] == [("ok", "complete", 7.0), ("aborted", "halted", None),
                                                   ("forced", "complete (forced)", 6.0),
                                                   ("unapproved", "forced", None)]
    _, weekly = h.query("weekly")
    assert [(r[1], r[2]) for r in weekly] == [(1, pytest.approx(7.0))]
    assert h.context("post_39", "next").previous_best == 7.0
