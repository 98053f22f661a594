"""WritingWorkflow on the time-skipping server with the offline provider: fan-out outcomes, dynamic prompts,
accounting, logs, history, validation, replay (seed 004 §18 integration strategy)."""

from __future__ import annotations

import json
import os
import uuid

import duckdb
import pytest
from temporalio.client import WorkflowFailureError

from activities.artifacts import store
from activities.llm.offline import Fault
from models.common import OFFLINE_LABEL
from models.writing.workflow import WorkflowConfig
from tests.conftest import HISTORIES, replay, replay_recorded
from tests.workflows.writing.conftest import by_model, config, quick_worker, raw_config, start
from workflows.writing.workflow import WritingWorkflow

MODELS = ["openai/gpt-4o-mini", "anthropic/claude-3-5-haiku", "ollama_chat/qwen2.5:7b"]
A, B, C = MODELS
DRAFTS = {A: "ALPHA draft. The GPU hit 94 degrees.", B: "BRAVO draft. Fans like a jet engine.",
          C: "CHARLIE draft. Two tokens per second."}


def script_drafts(offline, responses, n=3):
    offline.script("writing_draft", *[by_model(responses)] * n)


def _text(ref) -> str:
    return store().get(ref)


def audit_of(targets, score=7):
    return {"reviews": [{"target": t, "feedback": f"{t}: add a concrete number", "hook_score": score,
                         "specifics_score": score, "voice_score": score, "structure_score": score,
                         "overall_score": score} for t in targets], "consensus": "all drafts need one number"}


ANALYSIS = {"summary": "Ready.", "suggestions": [], "final_score": 8.5, "determination": "ready"}


async def test_all_success_runs_the_seed_pipeline_and_keeps_each_draft_apart(ts_env, worker, offline,
                                                                             isolated_store):
    script_drafts(offline, DRAFTS)
    offline.script("writing_audit", *[audit_of(MODELS)] * 3)
    offline.script("writing_final_analysis", ANALYSIS)
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS)
        result = await handle.result()
        outputs = await handle.query(WritingWorkflow.outputs)
        await replay(handle, record_as="writing_default"
                     if os.environ.get("COLLOQUY_RECORD") or not (HISTORIES / "writing_default.json").exists()
                     else None)
    assert result.status == "complete" and result.final_state == "complete"
    assert [t for _, t in result.transitions] == ["draft", "cross-audit", "synthesize", "final-audit",
                                                  "final-analysis", "complete"]
    drafts = {o.model: o for o in outputs.outputs["draft"]}
    assert set(drafts) == set(MODELS)
    assert len({o.ref.uri for o in drafts.values()}) == 3  # one artifact per model
    for model, out in drafts.items():
        assert DRAFTS[model] in _text(out.ref)
    assert {c.model for c in offline.calls("writing_draft")} == set(MODELS)  # each id was forced on its call
    synth_prompt = offline.calls("writing_synthesize")[0].messages[-1]["content"]
    for model in MODELS:
        assert f"Draft from {model}" in synth_prompt and DRAFTS[model] in synth_prompt
    assert result.final_post is not None and result.final_post.kind == "post"
    assert result.final_score == 8.5  # the final analysis' score
    for name in ("run_manifest.yaml", "state_log.jsonl", "token_usage.jsonl", "run_summary.md"):
        assert name in result.artifacts
    summary = _text(result.artifacts["run_summary.md"])
    assert "start → draft → cross-audit → synthesize → final-audit → final-analysis → complete" in summary
    assert f"| {A} |" in summary
    states = [json.loads(line) for line in _text(result.artifacts["state_log.jsonl"]).splitlines()]
    fan = [e for e in states if e["event"] == "fan_out_complete" and e["state"] == "draft"][0]
    assert fan["result"] == "all_success" and set(fan["outputs"]) == set(MODELS)
    assert result.history_recorded
    con = duckdb.connect(str(isolated_store / "history.duckdb"), read_only=True)
    assert con.execute("SELECT status, story FROM runs").fetchall() == [("complete", "post_03")]
    assert con.execute("SELECT COUNT(*) FROM invocations").fetchone()[0] == 11
    assert con.execute("SELECT COUNT(*) FROM audit_scores WHERE kind = 'audit'").fetchone()[0] == 9
    con.close()


async def test_recorded_default_history_replays(ts_env):
    await replay_recorded("writing_default")


async def test_partial_success_prompts_name_only_the_survivors(ts_env, worker, offline):
    script_drafts(offline, {**DRAFTS, B: Fault(kind="auth")})
    offline.script("writing_audit", *[audit_of(MODELS)] * 3)  # auditors "review" B too: those rows are dropped
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS)
        result = await handle.result()
        outputs = await handle.query(WritingWorkflow.outputs)
    assert result.status == "complete"
    assert result.transitions[1] == ("draft", "cross-audit")
    assert {o.model for o in outputs.outputs["draft"]} == {A, C}
    for call in offline.calls("writing_audit"):
        prompt = call.messages[-1]["content"]
        assert B not in prompt, "an audit prompt names the model whose draft failed"
        assert f"Draft from {A}" in prompt and f"Draft from {C}" in prompt
        assert f"the drafts from: {A}, {C}." in prompt
    synth = offline.calls("writing_synthesize")[0].messages[-1]["content"]
    drafts_part = synth.split("# Available Audits")[0]
    assert B not in drafts_part and f"Compare the drafts from: {A}, {C}\n" in synth
    assert f"Audit from {B}" in synth  # B drafted nothing but its audit exists, so it may be shown
    # B still audits (cross-audit fans out to every model) but only the two drafts that exist
    assert {r.target for r in outputs.audit_scores if r.kind == "audit"} == {A, C}
    assert {r.auditor for r in outputs.audit_scores if r.kind == "audit"} == set(MODELS)
    log = [json.loads(x) for x in _text(result.artifacts["state_log.jsonl"]).splitlines()]
    fan = next(e for e in log if e["event"] == "fan_out_complete" and e["state"] == "draft")
    assert fan["result"] == "partial_success" and fan["failed"] == [B]
    failed = [json.loads(x) for x in _text(result.artifacts["token_usage.jsonl"]).splitlines()
              if json.loads(x)["status"] != "success"]
    assert [(f["agent"], f["state"], f["status"]) for f in failed] == [(B, "draft", "failed")]


async def test_a_hanging_model_times_out_alone(ts_env, worker, offline):
    cfg = config(settings={"timeout_per_agent": 2})
    script_drafts(offline, {**DRAFTS, C: Fault(kind="hang")})
    async with quick_worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, cfg)
        result = await handle.result()
    assert result.status == "complete"
    tokens = [json.loads(x) for x in _text(result.artifacts["token_usage.jsonl"]).splitlines()]
    draft_rows = {t["agent"]: t["status"] for t in tokens if t["state"] == "draft"}
    assert draft_rows == {A: "success", B: "success", C: "timeout"}
    synth = offline.calls("writing_synthesize")[0].messages[-1]["content"]
    assert C not in synth.split("# Available Audits")[0]


async def test_all_failure_follows_its_transition_and_calls_nothing_else(ts_env, worker, offline):
    script_drafts(offline, {m: Fault(kind="bad_request") for m in MODELS})
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS)
        result = await handle.result()
    assert result.status == "halted" and result.final_state == "halt"
    assert result.transitions == [("start", "draft"), ("draft", "halt")]
    assert offline.calls("writing_audit") == [] and offline.calls("writing_synthesize") == []
    assert "run_summary.md" in result.artifacts and result.history_recorded


async def test_llm_garbage_is_reasked_then_that_branch_fails_and_the_rest_proceed(ts_env, worker, offline):
    # A's audits are garbage on every attempt (invalid JSON, then wrong schema): InvalidLLMOutput after
    # the re-ask, retried by Temporal (long_agent: 3 attempts), then only that branch is lost.
    for _ in range(6 + 2):
        offline.script("writing_audit", by_model({A: Fault(kind="invalid_json")},
                                                 default=lambda req: _audit_for(req)))
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS)
        result = await handle.result()
        outputs = await handle.query(WritingWorkflow.outputs)
    assert result.status == "complete"
    assert {o.model for o in outputs.outputs["cross-audit"]} == {B, C}
    assert len([c for c in offline.calls("writing_audit") if c.model == A]) == 6  # 3 attempts x (ask + re-ask)
    tokens = [json.loads(x) for x in _text(result.artifacts["token_usage.jsonl"]).splitlines()]
    assert [t["status"] for t in tokens if t["agent"] == A and t["state"] == "cross-audit"] == ["failed"]


def _audit_for(req):
    from activities.writing.audit import _offline_audit

    return _offline_audit(req)


async def test_provider_outage_everywhere_halts_with_the_reason_kept(ts_env, worker, offline):
    offline.script("writing_draft", *[Fault(kind="server_error")] * 9)  # 3 models x 3 attempts
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS)
        result = await handle.result()
    assert result.status == "halted"
    log = [json.loads(x) for x in _text(result.artifacts["state_log.jsonl"]).splitlines()]
    errors = [e["error"] for e in log if e["event"] == "agent_failed"]
    assert len(errors) == 3 and all("unavailable" in e for e in errors)
    assert len(offline.calls("writing_draft")) == 9


async def test_costs_add_up_from_invocations_to_states_agents_run_and_history(ts_env, worker, offline,
                                                                             isolated_store):
    prices = {m: {"cost_per_1k": {"input": 0.003 * (i + 1), "output": 0.015}, "context_window": 2000}
              for i, m in enumerate(MODELS)}
    cfg = config(agents=prices)
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, cfg)
        result = await handle.result()
        status = await handle.query(WritingWorkflow.run_status)
    rows = [json.loads(x) for x in _text(result.artifacts["token_usage.jsonl"]).splitlines()]
    expected = 0.0
    session: dict[str, int] = {}
    for r in rows:
        session[r["agent"]] = session.get(r["agent"], 0) + r["total"]
        if r["agent"] in prices:
            p = prices[r["agent"]]["cost_per_1k"]
            own = r["input_tokens"] / 1000 * p["input"] + r["output_tokens"] / 1000 * p["output"]
            assert r["cost_usd"] == pytest.approx(own)
            assert r["context_max"] == 2000
            # §6: the model's cumulative session total, not this call's size
            assert r["context_used_pct"] == pytest.approx(100 * session[r["agent"]] / 2000, abs=0.01)
        expected += r["cost_usd"]
    assert expected > 0
    assert result.cost_usd == pytest.approx(expected) == pytest.approx(status.cost_usd)
    assert result.tokens == sum(r["total"] for r in rows)
    con = duckdb.connect(str(isolated_store / "history.duckdb"), read_only=True)
    run_cost, run_tokens = con.execute("SELECT total_cost_usd, total_tokens FROM runs").fetchone()
    inv_cost, inv_tokens = con.execute("SELECT SUM(cost_usd), SUM(total_tokens) FROM invocations").fetchone()
    by_state = con.execute("SELECT SUM(c) FROM (SELECT state, SUM(cost_usd) c FROM invocations GROUP BY state)"
                           ).fetchone()[0]
    con.close()
    assert run_cost == pytest.approx(inv_cost) == pytest.approx(by_state) == pytest.approx(expected)
    assert run_tokens == inv_tokens == result.tokens
    summary = _text(result.artifacts["run_summary.md"])
    assert f"**${expected:.4f}**" in summary


async def test_invalid_config_fails_before_any_model_is_called(ts_env, worker, offline):
    data = raw_config("default")
    data["states"]["draft"]["transitions"].pop("all_failure")
    data["states"]["synthesize"]["transitions"]["success"] = "publish"
    data["states"]["orphan"] = {"type": "terminal"}
    cfg = WorkflowConfig.model_validate(data)
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, cfg)
        with pytest.raises(WorkflowFailureError) as info:
            await handle.result()
    message = str(info.value.cause)
    assert "missing transition 'all_failure'" in message
    assert "unknown state 'publish'" in message
    assert "'orphan' is unreachable" in message
    assert offline.calls() == []


@pytest.mark.parametrize("kw,expected", [
    ({"story": "   "}, "the story is empty"),
    ({"story": "x" * 200_001}, "over the 200,000 limit"),
    ({"models": [f"m{i}" for i in range(9)]}, "9 models, at most 8"),
    ({"personas": {"writer": "p" * 20_001}}, "persona 'writer' is 20,001 characters, over the 20,000 limit"),
    ({"models": ["a", " "]}, "a model id is empty"),
])
async def test_bad_input_is_refused_with_a_clear_message(ts_env, worker, offline, kw, expected):
    models = kw.pop("models", MODELS)
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, models, **kw)
        with pytest.raises(WorkflowFailureError) as info:
            await handle.result()
    assert expected in str(info.value.cause)
    assert offline.calls() == []


async def test_unknown_config_name_is_a_config_error(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config_name="nope")
        with pytest.raises(WorkflowFailureError) as info:
            await handle.result()
    assert "no config named 'nope'" in str(info.value.cause) and "default" in str(info.value.cause)


async def test_long_runs_continue_as_new_and_keep_everything(ts_env, worker, offline):
    script_drafts(offline, DRAFTS)
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, continue_as_new_after=2)
        result = await handle.result()
    assert result.status == "complete"
    assert len(result.transitions) == 6
    manifest = _text(result.artifacts["run_manifest.yaml"])
    assert "continued_as_new: 2" in manifest
    assert len([json.loads(x) for x in _text(result.artifacts["token_usage.jsonl"]).splitlines()]) == 11
    synth = offline.calls("writing_synthesize")[0].messages[-1]["content"]
    assert all(DRAFTS[m] in synth for m in MODELS)


async def test_a_second_run_of_the_same_story_is_compared_with_the_first(ts_env, worker, offline):
    offline.script("writing_final_analysis", {**ANALYSIS, "final_score": 6.0}, {**ANALYSIS, "final_score": 7.5})
    async with worker(ts_env.client) as queue:
        first = await (await start(ts_env, queue, MODELS)).result()
        second = await (await start(ts_env, queue, MODELS)).result()
    assert "## Historical Context" not in _text(first.artifacts["run_summary.md"])
    summary = _text(second.artifacts["run_summary.md"])
    assert "- **Iteration:** 2" in summary and "- **Previous best score:** 6" in summary
    assert "- **Current score:** 7.5 (+1.5)" in summary
    # this run's scores were the offline test double's: labelled (issue 39)
    assert f"| {A} {OFFLINE_LABEL} |" in summary.split("### Agent Performance (Last 10 Runs)")[1]


async def test_a_large_story_can_come_as_an_artifact_ref(ts_env, worker, offline):
    from models.writing.workflow import WritingInput

    big = "The GPU hit 94 degrees. " + "Detail. " * 40_000  # over the inline limit, fine as a ref
    ref = store().put("stories", "big.md", big)
    script_drafts(offline, DRAFTS)
    async with worker(ts_env.client) as queue:
        handle = await ts_env.client.start_workflow(
            WritingWorkflow.run, WritingInput(story_ref=ref, story_name="big", models=MODELS),
            id=f"writing-test-ref-{uuid.uuid4().hex[:8]}", task_queue=queue)
        result = await handle.result()
    assert result.status == "complete"
    assert "The GPU hit 94 degrees." in offline.calls("writing_draft")[0].messages[-1]["content"]


async def test_a_broken_history_db_does_not_lose_the_run(ts_env, worker, offline, isolated_store, monkeypatch):
    blocker = isolated_store / "not-a-db"
    blocker.mkdir()
    monkeypatch.setenv("COLLOQUY_HISTORY_DB", str(blocker))  # a directory: DuckDB cannot open it
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS)).result()
    assert result.status == "complete" and not result.history_recorded
    assert result.final_post is not None and "run_summary.md" in result.artifacts
