"""Shared helpers for the platform's workflow tests: run ModelCheckWorkflow, read its history."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle

from activities.llm.config import reset_config_cache
from models.platform.workflow import ModelCheckReport, ModelCheckRequest
from workflows.platform.model_check import ModelCheckWorkflow


async def run_model_check(client: Client, queue: str, request: ModelCheckRequest | None = None,
                          prefix: str = "mc") -> tuple[WorkflowHandle, ModelCheckReport]:
    handle = await client.start_workflow(ModelCheckWorkflow.run, request or ModelCheckRequest(),
                                         id=f"{prefix}-{uuid.uuid4().hex[:8]}", task_queue=queue)
    report: ModelCheckReport = await handle.result()
    return handle, report


async def events(handle: WorkflowHandle, kind: int) -> list[Any]:
    history = await handle.fetch_history()
    return [e for e in history.events if e.event_type == kind]


async def started_attempts(handle: WorkflowHandle) -> list[int]:
    """Temporal writes the ActivityTaskStarted event once, carrying the attempt that finished."""
    return [e.activity_task_started_event_attributes.attempt
            for e in await events(handle, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)]


async def failures(handle: WorkflowHandle) -> list[Any]:
    """The failures recorded in ActivityTaskFailed events (type, non_retryable, message)."""
    return [e.activity_task_failed_event_attributes.failure
            for e in await events(handle, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED)]


def use_config(monkeypatch: Any, tmp_path: Path, yaml_text: str, **env: str) -> Path:
    """Point the in-process workers at a config file (+ env overrides) for this test."""
    path = tmp_path / "colloquy.yaml"
    path.write_text(yaml_text)
    monkeypatch.setenv("COLLOQUY_CONFIG", str(path))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    reset_config_cache()
    return path


def _decoded(node: Any, out: list[str]) -> None:
    import base64
    import binascii

    if isinstance(node, dict):
        for key, value in node.items():
            if key == "data" and isinstance(value, str):
                try:
                    out.append(base64.b64decode(value, validate=True).decode("utf-8", errors="replace"))
                except (binascii.Error, ValueError):
                    pass
            _decoded(value, out)
    elif isinstance(node, list):
        for value in node:
            _decoded(value, out)


async def history_text(handle: WorkflowHandle) -> str:
    """The whole history as searchable text: the JSON plus every payload decoded (payloads are base64)."""
    import json

    raw = (await handle.fetch_history()).to_json()
    decoded: list[str] = []
    _decoded(json.loads(raw), decoded)
    return raw + "\n" + "\n".join(decoded)
