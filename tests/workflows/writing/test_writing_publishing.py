"""Only a human's yes publishes a gated post (issue 39): a breaker plus the orchestrator's force_complete never
completes a run whose config has a human-approval state with a post nobody approved — the run ends `forced`
(not approved) with the last approved post, if any. The rule itself: rules/writing/publish.py, checked on
generated sequences in tests/unit/writing/test_publish_invariant.py."""

from __future__ import annotations

import json
import os

from activities.artifacts import store
from activities.writing.history import HistoryStore
from models.writing.workflow import ApprovalInput
from tests.conftest import HISTORIES, replay, replay_recorded
from tests.workflows.writing.conftest import config, gate, rules, start
from workflows.writing.workflow import WritingWorkflow

MODELS = ["m-a", "m-b"]
FORCE = {"reasoning": "good enough", "decision": "force_complete"}


def _log(result) -> list[dict]:
    return [json.loads(x) for x in store().get(result.artifacts["state_log.jsonl"]).splitlines()]


async def _pending(handle):
    return await handle.execute_update(WritingWorkflow.await_approval_request)


async def test_three_rejections_then_the_transition_limit_publish_nothing(ts_env, worker, offline):
    """The issue's repro: reject three times; transition 20 enters human-approval, the transition_limit breaker
    fires, the orchestrator answers force_complete — synthesize_v4 was never shown to the reviewer."""
    offline.script("writing_synthesize", "POST ONE.", "POST TWO.", "POST THREE.", "POST FOUR, NEVER SHOWN.")
    offline.script("writing_orchestrator", FORCE)
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"), story_name="post_39")
        for text in ("Shorter hook.", "Name the GPU.", "Less jargon."):
            pending = await _pending(handle)
            await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(
                decision="reject", feedback=text, request_id=pending.request_id))
        result = await handle.result()
        outputs = await handle.query(WritingWorkflow.outputs)
        recorded = HISTORIES / "writing_gated_forced_unapproved.json"
        await replay(handle, record_as=recorded.stem if os.environ.get("COLLOQUY_RECORD") or not recorded.exists()
                     else None)
    assert len(offline.calls("writing_synthesize")) == 4
    breaks = [e for e in _log(result) if e["event"] == "circuit_break"]
    assert [b["rule"] for b in breaks] == ["transition_limit"]
    assert result.status == "forced" and result.forced and result.colloquy_status == "halted"
    assert result.final_post is None and result.final_state == "halt"
    assert outputs.final_post is None  # `colloquy write outputs ID --show final` shows no unseen post either
    assert "not approved" in result.reason and "synthesize_v4.md" in result.reason
    history = HistoryStore()
    _, rows = history.query("post_all", "post_39", include_offline=True)
    assert [(r[0], r[2], r[6]) for r in rows] == [(None, None, "forced")]  # no iteration, no score
    assert history.query("post", "post_39", include_offline=True)[1] == []


async def test_recorded_forced_unapproved_history_replays(ts_env):
    await replay_recorded("writing_gated_forced_unapproved")


async def test_gate_retries_then_force_complete_never_publish_a_raw_draft(ts_env, worker, offline):
    """Gate retries in the gated config: the draft's visit limit breaks, force_complete picks the best draft —
    no synthesis, no audit, no approval: nothing is published."""
    cfg = config("gated", circuit_breaker=rules(state_visit_limit=3))
    offline.script("writing_quality_gate", *[gate("retry", "more detail")] * 5)
    offline.script("writing_orchestrator", FORCE)
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, MODELS, cfg)).result()
    assert offline.calls("writing_synthesize") == []
    assert result.status == "forced" and result.final_post is None
    assert "did not go through synthesis" in result.reason


async def test_an_approved_post_still_completes(ts_env, worker, offline):
    offline.script("writing_synthesize", "ONLY POST.")
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, config("gated"))
        await _pending(handle)
        await handle.execute_update(WritingWorkflow.submit_approval, ApprovalInput(decision="approve"))
        result = await handle.result()
    assert result.status == "complete" and not result.forced
    assert "ONLY POST." in store().get(result.final_post.ref)
