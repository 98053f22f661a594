"""Workflow-side helpers: run an agent or artifact activity with the policy of its kind and a UI summary.

LLM activities run on the `<task queue>-llm` queue, so LLM-bound workers can scale apart from orchestration
(an all-in-one `colloquy worker` polls both). Everything else runs on the workflow's own task queue.
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.artifacts import get_artifact, put_artifact
    from models.common import ArtifactRef, PutArtifactInput
    from rules.policies import activity_options

LLM_QUEUE_SUFFIX = "-llm"
LLM_KINDS = {"live_agent", "fast_agent", "agent", "long_agent"}


def llm_task_queue() -> str:
    return workflow.info().task_queue + LLM_QUEUE_SUFFIX


async def call_agent(activity: Any, arg: Any, *, kind: str = "agent", summary: str | None = None,
                     result_type: Any = None) -> Any:
    """Execute an agent activity (by function reference) with its policy kind."""
    opts = activity_options(kind)
    if kind in LLM_KINDS:
        opts["task_queue"] = llm_task_queue()
    if result_type is not None:
        opts["result_type"] = result_type
    return await workflow.execute_activity(activity, arg, summary=summary, **opts)


async def call_activity(activity: Any, arg: Any, *, kind: str = "storage", summary: str | None = None,
                        result_type: Any = None) -> Any:
    """Execute a non-LLM activity (storage, artifacts, history) on the workflow's own task queue."""
    opts = activity_options(kind)
    if result_type is not None:
        opts["result_type"] = result_type
    return await workflow.execute_activity(activity, arg, summary=summary, **opts)


async def save_artifact(scope: str, name: str, content: str, content_type: str = "text/markdown") -> ArtifactRef:
    return await call_activity(put_artifact, PutArtifactInput(scope=scope, name=name, content=content,
                                                              content_type=content_type),
                               kind="artifact", summary=f"save {name}")


async def load_artifact(ref: ArtifactRef) -> str:
    return await call_activity(get_artifact, ref, kind="artifact", summary=f"load {ref.name}")
