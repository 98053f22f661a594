"""ModelCheckWorkflow: call each agent's model once, in parallel (at most `parallel` at once when the worker's
models serve few calls at once), through the real worker path.

`colloquy models --check` starts it; the gateway tests use it to see attempts and errors in history.
"""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.platform.model_check import ModelCheckInput, model_check, worker_models
    from core import search_attributes as sa
    from models.common import UsageTotals
    from models.platform.workflow import (
        MODEL_CHECK_WORKFLOW_TYPE,
        QUERY_MODEL_CHECK_ROWS,
        WORKER_MODELS_WORKFLOW_TYPE,
        ModelCheckReport,
        ModelCheckRequest,
        ModelCheckRow,
        ModelTable,
        WorkerModelsRequest,
    )
    from models.status import PHASE_DONE, RUNNING, model_check_status
    from workflows.calls import call_agent
    from workflows.inputs import start_input

PIPELINE = "model_check"


@workflow.defn(name=MODEL_CHECK_WORKFLOW_TYPE)
class ModelCheckWorkflow:
    def __init__(self) -> None:
        self._rows: list[ModelCheckRow] = []

    @workflow.run
    async def run(self, raw: Any = None) -> ModelCheckReport:
        request = start_input(ModelCheckRequest, raw, pipeline=PIPELINE, workflow_type=MODEL_CHECK_WORKFLOW_TYPE)
        sa.upsert(pipeline=PIPELINE, status=RUNNING)
        workflow.set_current_details(f"waiting for {len(request.agents)} model call(s): {', '.join(request.agents)}")
        if request.parallel:
            # as many at once as the worker serves: each check's time budget starts when its model is free
            gate = asyncio.Semaphore(request.parallel)
            rows = await asyncio.gather(*(self._gated(gate, agent, request.word) for agent in request.agents))
        else:
            rows = await asyncio.gather(*(self._check(agent, request.word) for agent in request.agents))
        totals = UsageTotals().add_all(row.usage for row in rows if row.usage)
        failed = [r.agent for r in rows if not r.ok]
        sa.upsert(phase=PHASE_DONE, status=model_check_status(len(failed)))
        workflow.set_current_details(f"done: {len(rows) - len(failed)}/{len(rows)} ok"
                                     + (f"; failed: {', '.join(failed)}" if failed else ""))
        return ModelCheckReport(rows=list(rows), totals=totals)

    @workflow.query(name=QUERY_MODEL_CHECK_ROWS)
    def rows(self) -> list[ModelCheckRow]:
        """Rows finished so far."""
        return list(self._rows)

    async def _gated(self, gate: asyncio.Semaphore, agent: str, word: str) -> ModelCheckRow:
        async with gate:
            return await self._check(agent, word)

    async def _check(self, agent: str, word: str) -> ModelCheckRow:
        try:
            result = await call_agent(model_check, ModelCheckInput(word=word, agent=agent),
                                      summary=f"model check: {agent}")
        except ActivityError as err:
            cause = err.cause
            message = cause.message if isinstance(cause, ApplicationError) else str(cause or err)
            kind = cause.type if isinstance(cause, ApplicationError) else None
            row = ModelCheckRow(agent=agent, ok=False, error=message, error_type=kind)
        else:
            row = ModelCheckRow(agent=agent, ok=result.output.ok and not result.error, model=result.usage.model,
                                provider=result.usage.provider, echo=result.output.echo,
                                model_note=result.output.model_note, usage=result.usage,
                                error=result.error, error_type="InvalidLLMOutput" if result.error else None,
                                profile=result.profile or None, structured_output=result.structured_output or None,
                                output_schema=result.output_schema or None)
        self._rows.append(row)
        return row


@workflow.defn(name=WORKER_MODELS_WORKFLOW_TYPE)
class WorkerModelsWorkflow:
    """`colloquy models`: the agent table as an LLM worker resolves it (the `worker_models` activity on the
    `-llm` queue, where the agents run). No model is called."""

    @workflow.run
    async def run(self, request: WorkerModelsRequest) -> ModelTable:
        return await call_agent(worker_models, request, kind="fast_agent", summary="resolve the agent table",
                                result_type=ModelTable)
