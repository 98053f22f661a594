"""A study's handle (shared by client/study/cli.py, client/study/review.py and client/study/export.py; they connect
through client/connection.py's `@connects`), and its updates with an ended study said plainly."""

from __future__ import annotations

from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.service import RPCError, RPCStatusCode

from client.errors import CliError, ExitCode
from models.study.workflow import StudyResult


def study_handle(client: Client, study_id: str) -> WorkflowHandle:
    return client.get_workflow_handle(study_id, result_type=StudyResult)


async def ended_status(handle: WorkflowHandle) -> str | None:
    """How the study's workflow ended ("completed", "failed", "terminated", ...); None while it runs or when there
    is no such workflow (the caller's own error then stands)."""
    try:
        desc = await handle.describe()
    except RPCError:
        return None
    if desc.status is None or desc.status == WorkflowExecutionStatus.RUNNING:
        return None
    return desc.status.name.lower().replace("_", " ")


async def study_update(handle: WorkflowHandle, name: str, arg: Any, result_type: type, nothing: str) -> Any:
    """An update; an ended study (Temporal: "workflow execution already completed") is one line, exit code 4:
    `study X has ended (completed): <nothing>`."""
    try:
        return await handle.execute_update(name, arg, result_type=result_type)
    except RPCError as err:
        if err.status != RPCStatusCode.NOT_FOUND:
            raise
        ended = await ended_status(handle)
        if ended is None:
            raise
        raise CliError(f"study {handle.id} has ended ({ended}): {nothing}", ExitCode.REFUSED) from None
