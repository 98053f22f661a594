"""Issue 23, items 2 and 3: a hard-budget halt reports the run's final figures (spend, tokens, cancelled calls)
with the cap beside them; every rejection's feedback reaches later syntheses, oldest first."""

from __future__ import annotations

import json

from activities.artifacts import store
from client.common import console
from client.writing.views import print_result
from models.writing.workflow import ApprovalInput, WorkflowConfig
from tests.workflows.writing.conftest import by_model, config, raw_config, start
from workflows.writing.workflow import WritingWorkflow

MODELS = ["m-a", "m-b", "m-c"]


async def test_a_budget_halt_names_the_final_spend_tokens_and_cancelled_calls_beside_the_cap(ts_env, worker,
                                                                                            offline):
    data = raw_config()
    data["agents"] = {m: {"cost_per_1k": {"input": 3.0, "output": 0.0}} for m in MODELS}  # each draft > the cap
    data["circuit_breaker"]["safety_limits"]["max_cost_hard"] = 0.5
    cfg = WorkflowConfig.model_validate(data)
    offline.script("writing_draft", *[by_model({m: f"Draft by {m}." for m in MODELS})] * 3)
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    rows = [json.loads(x) for x in store().get(result.artifacts["token_usage.jsonl"]).splitlines()]
    cancelled = sum(1 for r in rows if r["status"] == "cancelled")
    assert result.status == "halted"
    assert (f"hard_cost_limit: ${result.cost_usd:.4f} spent, {result.tokens:,} tokens (hard limit $0.50); "
            f"checked after every call, {cancelled} in-flight call(s) cancelled") in result.reason
    assert result.cost_usd == round(sum(r["cost_usd"] for r in rows), 6) or abs(
        result.cost_usd - sum(r["cost_usd"] for r in rows)) < 1e-6
    summary = store().get(result.artifacts["run_summary.md"])
    assert f"**${result.cost_usd:.4f}**" in summary and "**Hard limits:** $0.50" in summary
    with console.capture() as cap:
        print_result(result, "http://ui", result.run_id, cfg)
    assert f"usage: {result.tokens:,} tokens, ${result.cost_usd:.4f} (hard limits $0.50)" in cap.get()


async def test_every_rejection_reaches_later_syntheses_oldest_first(ts_env, worker, offline):
    offline.script("writing_synthesize", "POST ONE.", "POST TWO.", "POST THREE.")
    feedback = ["Shorter hook.", "Name the GPU."]
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, ["m-a", "m-b"], config("gated"))
        for text in feedback:
            pending = await handle.execute_update(WritingWorkflow.await_approval_request)
            await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(
                decision="reject", feedback=text, request_id=pending.request_id))
        await handle.execute_update(WritingWorkflow.await_approval_request)
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        result = await handle.result()
    assert result.status == "complete"
    prompts = [c.messages[-1]["content"] for c in offline.calls("writing_synthesize")]
    assert len(prompts) == 3
    positions = [prompts[2].find(f"Human reviewer feedback: {text}") for text in feedback]
    assert all(p >= 0 for p in positions) and positions == sorted(positions), positions  # oldest first
    assert "Shorter hook." in prompts[1] and "Name the GPU." not in prompts[1]


async def test_the_approval_timer_says_what_it_waits_for(ts_env, worker, offline):
    from temporalio.api.enums.v1 import EventType

    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, ["m-a"], config("gated"))
        await handle.execute_update(WritingWorkflow.await_approval_request)
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        await handle.result()
        timers = [e async for e in handle.fetch_history_events()
                  if e.event_type == EventType.EVENT_TYPE_TIMER_STARTED]
    summaries = [e.user_metadata.summary.data for e in timers]
    assert any(b"waiting up to 24 h for a human to approve, reject (with feedback) or abort human-approval-1" in s
               and handle.id.encode() in s for s in summaries), summaries
