"""The study commands' connection to Temporal and a study's handle (shared by client/study.py,
client/study_review.py and client/study_export.py)."""

from __future__ import annotations

from temporalio.client import Client, WorkflowHandle

from client.common import settings
from models.study import StudyResult


async def connect(address, namespace, tls, tls_cert, tls_key, tls_ca, api_key_env) -> Client:  # noqa: ANN001
    from core.temporal import connect as temporal_connect

    return await temporal_connect(settings(address, namespace, tls, tls_cert, tls_key, tls_ca, api_key_env))


def study_handle(client: Client, study_id: str) -> WorkflowHandle:
    return client.get_workflow_handle(study_id, result_type=StudyResult)
