"""Issue 39, item 2: every word the offline test double wrote says so. The gateway marks each call's result
(`LLMUsage.offline`); every artifact, log line, table row, status and report built from it carries the label.
These tests walk everything an offline writing run leaves behind (the default config through the CLI, the gated
config with a quality gate and a human's yes, a run whose breaker asks the orchestrator) and fail on any
model-written file or row without the label."""

from __future__ import annotations

import asyncio
import json
import re

import yaml
from typer.testing import CliRunner

from activities.artifacts import store
from activities.llm.offline import OFFLINE_LABEL as DOUBLE_LABEL
from client.cli import app
from models.common import OFFLINE_LABEL, offline_labelled
from models.writing.workflow import ApprovalInput, WritingResult
from rules.writing.summary import OFFLINE_HEADER
from tests.workflows.writing.conftest import STORY, config, raw_config, rules, start
from workflows.writing.workflow import WritingWorkflow

runner = CliRunner()
MODELS = ["openai/gpt-4o-mini", "m-b"]
# what a run leaves that no model wrote: the person's story and the prompts as sent
NOT_MODEL_WRITTEN = re.compile(r"^(input_story\.md|.*\.prompt\.md)$")
LOGS = {"run_manifest.yaml", "state_log.jsonl", "token_usage.jsonl", "run_summary.md"}
MODEL_EVENTS = ("quality_gate", "orchestrator_decision")


def _address(env) -> str:
    return env.client.service_client.config.target_host


def unlabelled_artifacts(run_id: str) -> list[str]:
    """Every file of the run that a model wrote (or a log, table or summary built from what it wrote), checked
    for the label; returns what is missing it, one line each."""
    folder = store().path_for(run_id, "x").parent
    files = sorted(p for p in folder.iterdir() if p.is_file())
    assert files, f"no artifacts in {folder}"
    problems: list[str] = []
    for path in files:
        name, text = path.name, path.read_text(encoding="utf-8")
        if NOT_MODEL_WRITTEN.match(name):
            continue
        if name == "run_manifest.yaml":
            manifest = yaml.safe_load(text)
            if manifest.get("produced_by") != OFFLINE_LABEL or manifest.get("offline") is not True:
                problems.append(f"{name}: produced_by={manifest.get('produced_by')!r}")
        elif name == "token_usage.jsonl" or name.startswith("agent_logs__"):
            problems += [f"{name}:{n}: {line[:100]}" for n, line in enumerate(text.splitlines(), 1)
                         if json.loads(line).get("offline") is not True]
        elif name == "state_log.jsonl":
            problems += _unlabelled_events(name, text)
        elif name == "run_summary.md":
            problems += _unlabelled_summary(text)
        elif name.endswith(".json"):
            if json.loads(text).get("_offline") != OFFLINE_LABEL:
                problems.append(f"{name}: no _offline label")
        elif not text.startswith(OFFLINE_LABEL):
            problems.append(f"{name}: starts {text[:60]!r}")
    return problems


def _unlabelled_events(name: str, text: str) -> list[str]:
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        event = json.loads(line)
        if event["event"] in MODEL_EVENTS and event.get("offline") is not True:
            problems.append(f"{name}:{n}: {event['event']} unlabelled")
        if event["event"] == "orchestrator_decision" and event.get("reasoning") and \
                not str(event["reasoning"]).startswith(OFFLINE_LABEL):
            problems.append(f"{name}:{n}: the orchestrator's reasoning is unlabelled")
        if event["event"] == "fan_out_complete":
            problems += [f"{name}:{n}: {model}'s output unlabelled"
                         for model, out in (event.get("outputs") or {}).items() if out.get("offline") is not True]
    return problems


def _unlabelled_summary(text: str) -> list[str]:
    """run_summary.md: the header says so, every table row and every orchestrator decision names the label."""
    problems = [] if OFFLINE_HEADER in text else ["run_summary.md: no offline header"]
    lines = text.splitlines()
    for n, line in enumerate(lines):
        in_table = line.startswith("|")
        is_head = in_table and n + 1 < len(lines) and lines[n + 1].startswith("|-")
        if in_table and not is_head and not line.startswith("|-") and OFFLINE_LABEL not in line:
            problems.append(f"run_summary.md row: {line[:100]}")
        if line.startswith(("- orchestrator_decision", "**Final score:**")) and OFFLINE_LABEL not in line:
            problems.append(f"run_summary.md: {line[:100]}")
    return problems


def test_the_label_is_the_doubles_own():
    assert OFFLINE_LABEL == DOUBLE_LABEL
    assert offline_labelled("Ready.", True) == f"{OFFLINE_LABEL} Ready."
    assert offline_labelled(offline_labelled("Ready.", True), True).count(OFFLINE_LABEL) == 1
    assert offline_labelled("Ready.", False) == "Ready."


async def test_every_artifact_and_row_of_an_offline_default_run_is_labelled(ts_env, worker, offline, tmp_path):
    story = tmp_path / "post_39.md"
    story.write_text(STORY)
    wid = "writing-labels-test-post-39"
    async with worker(ts_env.client) as queue:
        out = await asyncio.to_thread(runner.invoke, app, [
            "write", str(story), "--models", ",".join(MODELS), "--address", _address(ts_env), "--task-queue", queue,
            "--id", wid])
        status = await asyncio.to_thread(runner.invoke, app, ["write", "status", wid, "--address", _address(ts_env)])
        outputs = await asyncio.to_thread(runner.invoke, app, ["write", "outputs", wid, "--address",
                                                                _address(ts_env)])
        handle = ts_env.client.get_workflow_handle(wid, result_type=WritingResult)
        result = await handle.result()
        view = await handle.query(WritingWorkflow.outputs)
        state = await handle.query(WritingWorkflow.run_status)
    assert out.exit_code == 0, out.output
    assert unlabelled_artifacts(wid) == []
    assert result.offline and state.offline and view.offline
    assert all(o.offline for group in view.outputs.values() for o in group) and result.final_post.offline
    assert all(row.offline for row in view.audit_scores)
    flat = " ".join(out.output.split())
    assert f"final score: 8/10 {OFFLINE_LABEL}" in flat and "the offline test double wrote this run's" in flat
    assert status.exit_code == 0 and "the offline test double wrote this run's" in " ".join(status.output.split())
    rows = [line for line in outputs.output.splitlines() if ".md" in line and "│" in line]
    assert rows and all("offline test" in row for row in rows), outputs.output
    for query in ("agents", "costs", "trend", "weekly"):
        shown = runner.invoke(app, ["history", query, "--include-offline"])
        assert shown.exit_code == 0, shown.output
        assert "produced by" in shown.output, (query, shown.output)
        data = [line for line in shown.output.splitlines() if line.startswith("│")]
        assert data and all("[offline test double]" in line or "offline test" in line for line in data), \
            (query, shown.output)
    exported = runner.invoke(app, ["history", "export", str(tmp_path / "exp")])
    assert exported.exit_code == 0, exported.output
    for table in ("invocations", "audit_scores"):  # every exported row says who wrote it
        rows = json.loads((tmp_path / "exp" / f"{table}.json").read_text())
        assert rows and all(row["offline"] is True for row in rows), table
    runs = json.loads((tmp_path / "exp" / "runs.json").read_text())
    assert [r["profile"] for r in runs] == ["offline"]


async def test_a_gated_run_with_a_human_yes_labels_gates_audits_and_analysis(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        pending = await handle.execute_update(WritingWorkflow.await_approval_request)
        assert pending.post_text.startswith(OFFLINE_LABEL)  # the reviewer sees who wrote it
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        result = await handle.result()
    names = {p.name for p in store().path_for(result.run_id, "x").parent.iterdir()}
    assert any(n.endswith(".json") for n in names), names  # the gates' verdicts were written
    assert unlabelled_artifacts(result.run_id) == []
    assert result.status == "complete" and result.offline


async def test_the_orchestrators_decision_and_the_forced_reason_are_labelled(ts_env, worker, offline):
    data = raw_config("default")
    data["circuit_breaker"] = rules(transition_limit=3)
    from models.writing.workflow import WorkflowConfig

    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, WorkflowConfig.model_validate(data))
        result = await handle.result()
    assert unlabelled_artifacts(result.run_id) == []
    assert result.forced and result.offline, result
    assert f"{OFFLINE_LABEL} " in (result.reason or ""), result.reason


def test_a_real_models_text_is_never_labelled():
    from activities.writing.common import labelled
    from models.common import LLMUsage

    real = LLMUsage(agent="writing_audit", model="openai/gpt-4o-mini", provider="openai")
    double = real.model_copy(update={"offline": True})
    assert labelled("# Audit by x", "text/markdown", real) == "# Audit by x"
    assert labelled("# Audit by x", "text/markdown", double) == f"{OFFLINE_LABEL}\n\n# Audit by x"
    assert json.loads(labelled('{"score": 7}', "application/json", double)) == {"_offline": OFFLINE_LABEL,
                                                                               "score": 7}
