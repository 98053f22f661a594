"""A study's handle (shared by client/study/cli.py, client/study/review.py and client/study/export.py; they connect
through client/connection.py's `@connects`)."""

from __future__ import annotations

from temporalio.client import Client, WorkflowHandle

from models.study.workflow import StudyResult


def study_handle(client: Client, study_id: str) -> WorkflowHandle:
    return client.get_workflow_handle(study_id, result_type=StudyResult)
