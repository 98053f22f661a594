"""`colloquy write` and `colloquy history` end to end: the CLI (in a thread, its own event loop) against the
time-skipping server and real workers; history commands on the DB the run wrote."""

from __future__ import annotations

import asyncio

import yaml
from typer.testing import CliRunner

from client.cli import app
from tests.workflows.writing.conftest import STORY, raw_config

runner = CliRunner()


def _address(env) -> str:
    return env.client.service_client.config.target_host


async def test_write_runs_a_story_and_history_reports_it(ts_env, worker, offline, tmp_path):
    story = tmp_path / "post_07.md"
    story.write_text(STORY)
    offline.script("writing_final_analysis", {"summary": "Ready.", "suggestions": [], "final_score": 7.0,
                                              "determination": "ready"})
    async with worker(ts_env.client) as queue:
        out = await asyncio.to_thread(runner.invoke, app, [
            "write", str(story), "--models", "m-a,m-b", "--address", _address(ts_env), "--task-queue", queue,
            "--id", "writing-cli-test-post-07"])
        shown = await asyncio.to_thread(runner.invoke, app, [
            "write", "outputs", "writing-cli-test-post-07", "--address", _address(ts_env)])
        missing = await asyncio.to_thread(runner.invoke, app, [
            "write", "status", "writing-no-such-run", "--address", _address(ts_env)])
        final = await asyncio.to_thread(runner.invoke, app, [
            "write", "outputs", "writing-cli-test-post-07", "--show", "final", "--address", _address(ts_env)])
        summary = await asyncio.to_thread(runner.invoke, app, [
            "write", "outputs", "writing-cli-test-post-07", "--show", "run_summary.md", "--address",
            _address(ts_env)])
        unknown = await asyncio.to_thread(runner.invoke, app, [
            "write", "outputs", "writing-cli-test-post-07", "--show", "nope.md", "--address", _address(ts_env)])
    assert out.exit_code == 0, out.output
    assert shown.exit_code == 0 and "draft_v1_m-a.md" in shown.output and "final post:" in shown.output
    assert missing.exit_code == 4 and "no workflow with id 'writing-no-such-run'" in missing.output
    assert final.exit_code == 0, final.output
    from activities.artifacts import store
    from models.writing.workflow import WritingResult

    result = await ts_env.client.get_workflow_handle("writing-cli-test-post-07", result_type=WritingResult).result()
    assert result.final_post is not None
    assert final.output.strip() == store().get(result.final_post.ref).strip()  # read through the worker
    assert summary.exit_code == 0 and "post_07" in summary.output, summary.output
    assert unknown.exit_code == 4 and "has no artifact 'nope.md'" in unknown.output
    assert "completed — ended at state 'complete'" in out.output
    assert "start → draft → cross-audit → synthesize → final-audit → final-analysis → complete" in out.output
    assert "final score: 7/10" in out.output and "history recorded" in out.output
    assert "draft: all_success (2 ok" in out.output and "· final-analysis → complete" in out.output
    costs = runner.invoke(app, ["history", "costs", "--include-offline"])  # offline runs: only when asked
    assert costs.exit_code == 0 and "m-a" in costs.output and "m-b" in costs.output
    post = runner.invoke(app, ["history", "post", "post_07", "--include-offline"])
    assert post.exit_code == 0 and "Initial" in post.output
    exported = runner.invoke(app, ["history", "export", str(tmp_path / "exp")])
    assert exported.exit_code == 0 and (tmp_path / "exp" / "runs.csv").read_text().count("post_07") == 1


def test_write_refuses_a_broken_config_before_contacting_anyone(tmp_path):
    story = tmp_path / "s.md"
    story.write_text(STORY)
    data = raw_config()
    data["states"]["draft"]["transitions"]["all_success"] = "nowhere"
    cfg = tmp_path / "broken.yaml"
    cfg.write_text(yaml.safe_dump(data))
    out = runner.invoke(app, ["write", str(story), "--models", "a", "--config", str(cfg),
                              "--address", "127.0.0.1:1"])
    assert out.exit_code == 2
    assert "transition to unknown state 'nowhere'" in out.output


def test_write_needs_models_and_history_explains_an_empty_db(tmp_path):
    story = tmp_path / "s.md"
    story.write_text(STORY)
    out = runner.invoke(app, ["write", str(story), "--models", " , "])
    assert out.exit_code == 2 and "at least one litellm model id" in out.output
    empty = runner.invoke(app, ["history", "trend", "--db", str(tmp_path / "none.duckdb")])
    assert empty.exit_code == 4 and "no run history yet" in empty.output


async def test_write_asks_for_approval_and_sends_free_text_as_feedback(ts_env, worker, offline, tmp_path):
    story = tmp_path / "post_08.md"
    story.write_text(STORY)
    offline.script("writing_synthesize", "FIRST CUT.", "PUNCHIER CUT.")
    async with worker(ts_env.client) as queue:
        out = await asyncio.to_thread(runner.invoke, app, [
            "write", str(story), "--models", "m-a", "--config", "gated", "--ask", "--address", _address(ts_env),
            "--task-queue", queue], input="Make it punchier\napprove\n")
    assert out.exit_code == 0, out.output
    assert "Approval requested: human-approval-1" in out.output and "FIRST CUT." in out.output
    assert "Approval requested: human-approval-2" in out.output and "PUNCHIER CUT." in out.output
    assert "completed — ended at state 'complete'" in out.output
    second = offline.calls("writing_synthesize")[1].messages[-1]["content"]
    assert "Human reviewer feedback: Make it punchier" in second
