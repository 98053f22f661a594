"""`colloquy discuss "topic"` against a real dev server (real clock) with the workers of this test process."""

from __future__ import annotations

import asyncio
from pathlib import Path

from typer.testing import CliRunner

from client.cli import app
from models.common import OFFLINE_LABEL
from tests.workflows.discussion.helpers import evaluation, ideas, scores, uniform

runner = CliRunner()


async def test_discuss_command_runs_a_discussion_and_prints_the_outcome(dev_env, worker, offline, artifact_dir):
    offline.script("discussion_kickoff", "Kickoff: focus on cost.")
    offline.script("discussion_ideate", ideas("Compost hub", "Surplus app", "School kitchens"))
    for agent in ("discussion_research", "discussion_critique", "discussion_implement", "discussion_synthesize"):
        offline.script(agent, f"{agent} text")
    offline.script("discussion_score", scores(uniform("I1", 6.5), evaluation("I2", 9, 8, 8, 9, 8),
                                              uniform("I3", 5.0)))
    offline.script("discussion_select", {"explanation": "Surplus app, clearly.", "preferred_idea_id": "I2"})
    offline.set_latency(0.3)  # a slow-ish model, so the CLI's progress polling sees the discussion unfold
    address = dev_env.client.service_client.config.target_host
    async with worker(dev_env.client) as queue:
        result = await asyncio.to_thread(
            runner.invoke, app,
            ["discuss", "How can a small town cut food waste?", "--level", "standard", "--html",
             "--models", "critic=openai/gpt-4o-mini", "--id", "discussion-cli-test-food-waste",
             "--out", str(Path(str(artifact_dir) + "-copy") / "report.html"),
             "--address", address, "--task-queue", queue])
    out = result.output
    assert result.exit_code == 0, out
    assert "Discussion discussion-cli-test-food-waste started: level standard (1 round(s)" in out
    assert "+ idea I1 Compost hub" in out  # progress followed through the query while it ran
    assert "completed (selected) — " in out and "Selected idea: I2 Surplus app (8.4/10)" in out
    assert f"Team Leader: {OFFLINE_LABEL} Surplus app, clearly." in out  # the double's words say so (issue 39)
    # the artifacts' names and how to read them through the worker, never a path on the worker's disk
    assert "Report: report.html — save it: colloquy discuss-report discussion-cli-test-food-waste --html" in out, out
    assert "Transcript: transcript.md — print it: colloquy discuss-report discussion-cli-test-food-waste" in out
    shown = [line for line in out.splitlines() if line.startswith(("Report:", "Transcript:"))]
    assert len(shown) == 2 and not any(str(artifact_dir) in line for line in shown), shown  # (worker logs share out)
    saved = Path(str(artifact_dir) + "-copy") / "report.html"
    assert saved.read_text().count("Surplus app") and not saved.is_relative_to(artifact_dir)
    ui_port = int(address.rsplit(":", 1)[1]) + 1000  # the dev server's UI convention: gRPC port + 1000
    assert f"Web UI: http://127.0.0.1:{ui_port}/namespaces/default/workflows/discussion-cli-test-food-waste" in out
    assert offline.calls("discussion_critique")[0].model == "openai/gpt-4o-mini"


def test_discuss_command_rejects_bad_input_before_contacting_the_server():
    result = runner.invoke(app, ["discuss", " ", "--level", "epic", "--address", "127.0.0.1:1"])
    assert result.exit_code == 2
    assert "the topic is empty" in result.output and "unknown level 'epic'" in result.output
    result = runner.invoke(app, ["discuss", "ok topic", "--models", "critic:gpt-4o"])
    assert result.exit_code == 2 and "'critic:gpt-4o' is not role=model" in result.output


async def test_discuss_command_reports_a_failed_kickoff(dev_env, worker, offline):
    from activities.llm.offline import Fault

    offline.script("discussion_kickoff", Fault(kind="not_found"))
    address = dev_env.client.service_client.config.target_host
    async with worker(dev_env.client) as queue:
        result = await asyncio.to_thread(runner.invoke, app, ["discuss", "Any topic", "--address", address,
                                                              "--task-queue", queue])
    assert result.exit_code == 1
    assert "discussion failed: kickoff failed: the team leader could not frame the discussion" in result.output
