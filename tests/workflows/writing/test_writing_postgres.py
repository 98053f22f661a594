"""WritingWorkflow recording its history into a real PostgreSQL (COLLOQUY_HISTORY_DB=postgresql://...), read back by
`colloquy history`; an unreachable server loses the history, never the run, and never shows the password."""

from __future__ import annotations

import asyncio

import psycopg
from typer.testing import CliRunner

from client.cli import app
from tests.unit.writing.postgres_server import PASSWORD, free_port
from tests.workflows.writing.conftest import start

runner = CliRunner(env={"COLUMNS": "200"})  # model ids on one line in the tables
MODELS = ["openai/gpt-4o-mini", "anthropic/claude-3-5-haiku"]
ANALYSIS = {"summary": "Ready.", "suggestions": [], "final_score": 8.0, "determination": "ready"}


def audit_of(targets, score):
    return {"reviews": [{"target": t, "feedback": "add a number", "hook_score": score, "specifics_score": score,
                         "voice_score": score, "structure_score": score, "overall_score": score} for t in targets],
            "consensus": "one number"}


async def test_a_run_records_into_postgres_and_the_cli_reads_it_back(ts_env, worker, offline, postgres_url,
                                                                     monkeypatch, isolated_store):
    monkeypatch.setenv("COLLOQUY_HISTORY_DB", postgres_url)  # the worker's environment, not the payload
    offline.script("writing_audit", *[audit_of(MODELS, 7)] * 2)
    offline.script("writing_final_analysis", ANALYSIS)
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, story_name="post_pg")
        result = await handle.result()
        history_json = (await handle.fetch_history()).to_json()
    assert result.status == "complete" and result.history_recorded
    assert PASSWORD not in history_json and "postgresql://" not in history_json
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT run_id, story, status, final_score FROM runs").fetchall() == [
            (result.run_id, "post_pg", "complete", 8.0)]
        invocations, cost = conn.execute("SELECT COUNT(*), SUM(cost_usd) FROM invocations").fetchone()
        assert invocations == 8 and cost == result.cost_usd  # 2 drafts, 2 audits, synth, 2 final audits, analysis
        assert conn.execute("SELECT COUNT(*) FROM audit_scores WHERE kind = 'audit'").fetchone()[0] == 4

    costs = await asyncio.to_thread(runner.invoke, app, ["history", "costs", "--include-offline"])  # COLLOQUY_HISTORY_DB
    assert costs.exit_code == 0, costs.output
    assert "Cost by Agent" in costs.output and MODELS[0] in costs.output and MODELS[1] in costs.output
    agents = await asyncio.to_thread(runner.invoke, app, ["history", "agents", "--db", postgres_url,
                                                                   "--include-offline"])
    assert agents.exit_code == 0, agents.output
    assert "Agent Performance Comparison" in agents.output and "7.00" in agents.output and MODELS[1] in agents.output
    post = await asyncio.to_thread(runner.invoke, app, ["history", "post", "post_pg", "--include-offline"])
    assert post.exit_code == 0 and "Initial" in post.output
    exported = runner.invoke(app, ["history", "export", str(isolated_store / "exp")])
    assert exported.exit_code == 0 and (isolated_store / "exp" / "runs.csv").read_text().count("post_pg") == 1


async def test_an_unreachable_postgres_loses_the_history_not_the_run(ts_env, worker, offline, monkeypatch,
                                                                     isolated_store):
    url = f"postgresql://postgres:{PASSWORD}@127.0.0.1:{free_port()}/colloquy"
    monkeypatch.setenv("COLLOQUY_HISTORY_DB", url)
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS)
        result = await handle.result()
        history_json = (await handle.fetch_history()).to_json()
    assert result.status == "complete" and not result.history_recorded
    assert result.final_post is not None and "run_summary.md" in result.artifacts
    assert "cannot connect to the history DB postgresql://postgres:***@127.0.0.1" in history_json
    assert PASSWORD not in history_json

    out = runner.invoke(app, ["history", "costs"])
    assert out.exit_code == 2
    assert "cannot connect to the history DB postgresql://postgres:***@" in " ".join(out.output.split())
    assert PASSWORD not in out.output
    exported = runner.invoke(app, ["history", "export", str(isolated_store / "exp")])
    assert exported.exit_code == 2 and "postgres:***@" in exported.output and PASSWORD not in exported.output
    assert not (isolated_store / "exp").exists()


def test_the_cli_on_an_empty_postgres_database_says_there_is_no_history_yet(postgres_url):
    out = runner.invoke(app, ["history", "trend", "--db", postgres_url])
    assert out.exit_code == 4 and "no run history yet" in out.output and PASSWORD not in out.output
