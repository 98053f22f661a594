"""Gateway behaviour seen through a real workflow on the time-skipping server."""

from __future__ import annotations

import uuid

from temporalio.api.enums.v1 import EventType

from activities.llm.offline import Fault
from models.platform.workflow import ModelCheckReport, ModelCheckRequest
from workflows.platform.model_check import ModelCheckWorkflow


async def _attempts(handle) -> list[int]:
    history = await handle.fetch_history()
    return [e.activity_task_started_event_attributes.attempt for e in history.events
            if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED]


async def test_rate_limit_is_retried_by_temporal_and_visible_as_attempts(ts_env, worker, offline):
    offline.script("model_check", Fault(kind="rate_limit", retry_after_s=1), Fault(kind="server_error"),
                   {"ok": True, "echo": "colloquy"})
    async with worker(ts_env.client) as queue:
        handle = await ts_env.client.start_workflow(ModelCheckWorkflow.run, ModelCheckRequest(),
                                                    id=f"mc-{uuid.uuid4().hex[:6]}", task_queue=queue)
        report: ModelCheckReport = await handle.result()
    assert report.rows[0].ok and report.rows[0].echo == "colloquy"
    assert report.rows[0].usage.attempt == 3
    assert await _attempts(handle) == [3]  # Temporal records the final attempt number on the started event


async def test_auth_error_is_not_retried_and_explains_itself(ts_env, worker, offline):
    offline.script("model_check", Fault(kind="auth"))
    async with worker(ts_env.client) as queue:
        handle = await ts_env.client.start_workflow(ModelCheckWorkflow.run, ModelCheckRequest(),
                                                    id=f"mc-{uuid.uuid4().hex[:6]}", task_queue=queue)
        report = await handle.result()
    row = report.rows[0]
    assert not row.ok
    assert "authentication failed" in row.error
    assert len(offline.calls("model_check")) == 1


async def test_a_check_of_a_serial_model_gives_each_agent_its_own_turn(ts_env, worker, offline):
    """`models --check` on a model that serves one call at a time (parallel=1): the checks run one after another,
    so no check's time budget is spent waiting for the others (issue 29); every agent still answers."""
    agents = ["interview_note_taker", "interview_researcher", "interview_orchestrator", "model_check"]
    async with worker(ts_env.client) as queue:
        handle = await ts_env.client.start_workflow(
            ModelCheckWorkflow.run, ModelCheckRequest(agents=agents, parallel=1),
            id=f"mc-{uuid.uuid4().hex[:6]}", task_queue=queue)
        report = await handle.result()
    assert [r.agent for r in report.rows] == agents and all(r.ok for r in report.rows)
    in_flight = peak = 0
    for event in (await handle.fetch_history()).events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            in_flight += 1
            peak = max(peak, in_flight)
        elif event.event_type in (EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED):
            in_flight -= 1
    assert peak == 1
