"""Calls queue for a model that serves one call at a time *before* their attempt starts (issue 29).

The defect: NoteTaker ∥ Researcher (or a model check, or two interviews) on a serial model — the in-process
`local` model, a llama.cpp server — all started at once on the LLM worker's 500 slots, and waited for the one
model inside their attempts: the last ones timed out ("no answer within 40.5 s") while the model was busy
with the others. Here three calls whose model takes 1.2 s each, one at a time, under a 3 s start-to-close: all
three must answer (the worker takes one at a time, the others wait in the task queue), and each call's usage
says how long it queued apart from the model's latency.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from activities.platform.model_check import ModelCheckInput, ModelCheckResult, model_check
    from workers.main import build_workers

pytestmark = pytest.mark.dev_server

MODEL_S = 1.2


@workflow.defn(name="ParallelAgentsProbe")
class ParallelAgentsProbe:
    @workflow.run
    async def run(self, n: int) -> list[str]:
        async def one(i: int) -> str:
            try:
                result = await workflow.execute_activity(
                    model_check, ModelCheckInput(word=f"w{i}"), result_type=ModelCheckResult,
                    task_queue=workflow.info().task_queue + "-llm",
                    start_to_close_timeout=timedelta(seconds=3), schedule_to_close_timeout=timedelta(seconds=60),
                    retry_policy=RetryPolicy(maximum_attempts=1))
            except ActivityError as err:
                return f"failed: {err.cause}"
            return f"ok queued={result.usage.queued_ms:.0f} latency={result.usage.latency_ms:.0f}"

        return list(await asyncio.gather(*(one(i) for i in range(n))))


async def test_parallel_calls_to_a_serial_model_queue_before_their_attempt_starts(dev_env, offline, monkeypatch):
    monkeypatch.setenv("COLLOQUY_PROFILE", "offline")
    monkeypatch.setenv("COLLOQUY_PROVIDER_CONCURRENCY", "1")  # the model serves one call at a time
    offline.set_serial()
    offline.set_latency(MODEL_S, "model_check")
    queue = "slots-probe"
    client = dev_env.client
    llm_workers = build_workers(client, queue, "llm")
    async with Worker(client, task_queue=queue, workflows=[ParallelAgentsProbe]), llm_workers[0]:
        outcomes = await client.execute_workflow(ParallelAgentsProbe.run, 3, id=f"{queue}-{uuid.uuid4().hex[:6]}",
                                                 task_queue=queue, execution_timeout=timedelta(seconds=60))
    assert all(o.startswith("ok") for o in outcomes), outcomes
    queued = sorted(float(o.split("queued=")[1].split()[0]) for o in outcomes)
    assert queued[-1] >= MODEL_S * 1000  # the last one waited for two calls, outside its attempt

