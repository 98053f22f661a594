"""Workflow-side helpers: run an agent or artifact activity with the policy of its kind and a UI summary.

Agent activities run on the `<task queue>-llm` queue, so LLM-bound workers can scale apart from orchestration
(an all-in-one `colloquy worker` polls both), with the policy kind their declaration names (AgentSpec.policy):

    result = await call_agent(interview_note_taker, inp, summary="NoteTaker: 3 new entries")

Everything else runs on the workflow's own task queue (`call_activity`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, overload

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.agents.base import AgentSpec, agent_activity
    from activities.artifacts import get_artifact, put_artifact
    from models.common import ArtifactRef, PutArtifactInput
    from workflows.activity_options import activity_options

A = TypeVar("A")
R = TypeVar("R")

LLM_QUEUE_SUFFIX = "-llm"
LLM_KINDS = {"live_agent", "fast_agent", "agent", "long_agent"}


def llm_task_queue() -> str:
    return workflow.info().task_queue + LLM_QUEUE_SUFFIX


@overload
async def call_agent(agent: Callable[[A], Awaitable[R]], arg: A, *, kind: str | None = None,
                     summary: str | None = None, result_type: Any = None) -> R: ...


@overload
async def call_agent(agent: AgentSpec[Any], arg: Any, *, kind: str | None = None, summary: str | None = None,
                     result_type: Any = None) -> Any: ...


async def call_agent(agent: Any, arg: Any, *, kind: str | None = None, summary: str | None = None,
                     result_type: Any = None) -> Any:
    """Execute an agent activity, given by its function or its AgentSpec, on the LLM task queue with the
    policy kind of its declaration (`kind` overrides it). The result is typed by the activity's annotation
    (`result_type` overrides it)."""
    declared = agent_activity(agent)
    if declared is None and kind is None:
        raise TypeError(f"{agent!r} is not a declared agent activity (AgentSpec.activity): pass kind=")
    fn = declared.spec.activity_fn if isinstance(agent, AgentSpec) and declared else agent
    kind = kind or (declared.policy if declared else "agent")
    opts = activity_options(kind)
    if declared is not None or kind in LLM_KINDS:
        opts["task_queue"] = llm_task_queue()
    if result_type is not None:
        opts["result_type"] = result_type
    return await workflow.execute_activity(fn, arg, summary=summary, **opts)


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
