"""Every registered workflow takes one input (issue 38, a smaller defect): two `--input` values are two arguments,
and the run used to fail its workflow task forever on a TypeError (an InterviewWorkflow stayed RUNNING, stranded).
Now each run fails at once, non-retryably, with one line saying what to send (workflows/one_input.py)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from temporalio import workflow
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from workers import registry

TYPES = sorted(workflow._Definition.must_from_class(cls).name or "" for cls in registry.workflows())
TYPED = ["ReadArtifactWorkflow", "SpeakQuestionWorkflow", "TranscribeClipWorkflow", "WorkerModelsWorkflow"]


async def _fails_at_once(ts_env, worker, workflow_type: str, args: list) -> ApplicationError:  # noqa: ANN001
    async with worker(ts_env.client) as queue:
        handle = await ts_env.client.start_workflow(workflow_type, args=args, id=f"one-input-{uuid.uuid4().hex[:8]}",
                                                    task_queue=queue)
        with pytest.raises(WorkflowFailureError) as info:
            await asyncio.wait_for(handle.result(), timeout=30)
    cause = info.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == "InvalidInput" and cause.non_retryable and "\n" not in cause.message
    return cause


def test_every_registered_workflow_is_covered():
    assert len(TYPES) == len(set(TYPES)) >= 14 and "InterviewWorkflow" in TYPES and set(TYPED) <= set(TYPES)


@pytest.mark.parametrize("workflow_type", TYPES)
async def test_two_inputs_fail_the_run_at_once(ts_env, worker, offline, workflow_type):
    err = await _fails_at_once(ts_env, worker, workflow_type, [{"topic": "a"}, {"topic": "b"}])
    assert f"invalid {workflow_type} input: 2 inputs given, expected one JSON object" in err.message
    assert offline.calls() == []


@pytest.mark.parametrize("workflow_type", TYPED)
async def test_no_input_fails_a_run_that_needs_one_at_once(ts_env, worker, offline, workflow_type):
    err = await _fails_at_once(ts_env, worker, workflow_type, [])
    assert "no input given" in err.message


async def test_the_refused_run_says_failed_in_its_search_attributes(ts_env, worker, offline):
    from core import search_attributes as sa
    from models.status import FAILED, PHASE_DONE

    async with worker(ts_env.client) as queue:
        handle = await ts_env.client.start_workflow("InterviewWorkflow", args=[{"topic": "a"}, {}],
                                                    id=f"one-input-{uuid.uuid4().hex[:8]}", task_queue=queue)
        with pytest.raises(WorkflowFailureError):
            await asyncio.wait_for(handle.result(), timeout=30)
        attrs = (await handle.describe()).typed_search_attributes
    assert attrs.get(sa.PIPELINE) == "interview" and attrs.get(sa.STATUS) == FAILED
    assert attrs.get(sa.PHASE) == PHASE_DONE
