"""Issue 39's smaller defects: timeout_per_agent means what it says; a late abort after an approve is logged; a
score below the floor after an approval is not a silent `complete`."""

from __future__ import annotations

import json

from activities.artifacts import store
from activities.llm.offline import Fault
from tests.workflows.writing.conftest import by_model, config, quick_worker, start

MODELS = ["m-a", "m-b"]


def _log(result) -> list[dict]:
    return [json.loads(x) for x in store().get(result.artifacts["state_log.jsonl"]).splitlines()]


async def _timers(handle) -> list[float]:
    return [e.timer_started_event_attributes.start_to_fire_timeout.ToTimedelta().total_seconds()
            async for e in handle.fetch_history_events() if e.HasField("timer_started_event_attributes")]


async def test_timeout_per_agent_3_fires_after_3_seconds_not_33(ts_env, offline):
    cfg = config(settings={"timeout_per_agent": 3})
    offline.script("writing_draft", *[by_model({"m-b": Fault(kind="hang")}, "A DRAFT.")] * 2)
    async with quick_worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, MODELS, cfg)
        result = await handle.result()
        timers = await _timers(handle)
    assert timers and set(timers) == {3.0}, timers  # every per-agent timer: the configured 3 s
    failed = [e for e in _log(result) if e["event"] == "agent_failed"]
    assert failed and failed[0]["agent"] == "m-b" and "timed out after 3s" in failed[0]["error"]
    started = [e for e in _log(result) if e["event"] == "fan_out_start"]
    assert started[0]["timeout_s"] == 3
