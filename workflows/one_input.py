"""Every Colloquy workflow takes one input: one JSON object (or none, where every field has a default).

`temporal workflow start --input '{…}' --input '{…}'` sends two arguments. Before this, the SDK called
`run(self, a, b)` (or `__init__`) with both, Python raised TypeError, and the workflow task failed and was retried
forever: the run stayed RUNNING with nothing to show for it. This worker interceptor checks the arguments against
the run method's signature before the workflow code sees them; a start that cannot bind fails the run at once,
non-retryably (type InvalidInput), with one line saying what to send instead — for every registered workflow,
including ones added later. Workflows with `@workflow.init` take `*extra` in `__init__` and `run` so that the
instance can be made and the run reach this check.

A run that binds is untouched (no command is added), so recorded histories replay as before; a run that did not
bind never completed a workflow task, so it has no history to replay.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

from temporalio import workflow
from temporalio.worker import (
    ExecuteWorkflowInput,
    Interceptor,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
)

with workflow.unsafe.imports_passed_through():
    from core import search_attributes as sa
    from models.status import FAILED, PHASE_DONE
    from workflows.inputs import invalid


def arity_problem(run_fn: Any, args: list[Any], workflow_type: str) -> str | None:
    """Why `args` cannot be the run's input (one line), or None. Every workflow takes at most one argument."""
    parameters = [p for p in inspect.signature(run_fn).parameters.values() if p.name != "self"]
    required = sum(1 for p in parameters if p.default is inspect.Parameter.empty
                   and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    if len(args) > 1:
        return (f"invalid {workflow_type} input: {len(args)} inputs given, expected one JSON object (give "
                "`temporal workflow start --input` once, with every field in that one object)")
    if len(args) < required:
        return f"invalid {workflow_type} input: no input given, expected one JSON object"
    return None


class _OneInput(WorkflowInboundInterceptor):
    async def execute_workflow(self, input: ExecuteWorkflowInput) -> Any:
        problem = arity_problem(input.run_fn, list(input.args), workflow.info().workflow_type)
        if problem is not None:
            pipeline = getattr(sys.modules.get(input.type.__module__), "PIPELINE", None)   # its ColloquyPipeline
            sa.upsert(pipeline=pipeline if isinstance(pipeline, str) else None, phase=PHASE_DONE, status=FAILED)
            workflow.set_current_details(f"failed: {problem}")
            workflow.logger.warning("run refused: %s", problem)
            raise invalid(problem)
        return await super().execute_workflow(input)


class OneInputInterceptor(Interceptor):
    """The worker interceptor (workers/main.py puts it on every worker that runs workflows)."""

    def workflow_interceptor_class(self, input: WorkflowInterceptorClassInput) -> type[WorkflowInboundInterceptor]:
        return _OneInput
