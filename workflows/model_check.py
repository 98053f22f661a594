"""ModelCheckWorkflow: call each agent's model once, in parallel, through the real worker path.

`colloquy models --check` starts it; the gateway tests use it to see attempts and errors in history.
"""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.model_check import ModelCheckInput, model_check
    from models.common import UsageTotals
    from models.platform import ModelCheckReport, ModelCheckRequest, ModelCheckRow
    from workflows.calls import call_agent


@workflow.defn(name="ModelCheckWorkflow")
class ModelCheckWorkflow:
    @workflow.run
    async def run(self, request: ModelCheckRequest) -> ModelCheckReport:
        workflow.set_current_details(f"checking {len(request.agents)} agent model(s)")
        rows = await asyncio.gather(*(self._check(agent, request.word) for agent in request.agents))
        totals = UsageTotals()
        for row in rows:
            if row.usage:
                totals.add(row.usage)
        return ModelCheckReport(rows=list(rows), totals=totals)

    async def _check(self, agent: str, word: str) -> ModelCheckRow:
        try:
            result = await call_agent(model_check, ModelCheckInput(word=word, agent=agent), kind="fast_agent",
                                      summary=f"model check: {agent}")
        except ActivityError as err:
            cause = err.cause
            message = cause.message if isinstance(cause, ApplicationError) else str(cause or err)
            return ModelCheckRow(agent=agent, ok=False, error=message)
        return ModelCheckRow(agent=agent, ok=result.output.ok, model=result.usage.model,
                             provider=result.usage.provider, echo=result.output.echo, usage=result.usage)
