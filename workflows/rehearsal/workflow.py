"""SimulatedAnswerWorkflow: one simulated interviewee answer, generated from a persona by an LLM activity.

The rehearse loop itself is a thin client (`colloquy interview rehearse`): it reads `session_state` from the
InterviewWorkflow, records the interviewer's question with `submit_entry`, runs this workflow for the answer,
and submits the answer with `submit_entry`. One short workflow per answer keeps every LLM call an activity
(retries, timeouts and attempts visible in history) and makes the client idempotent: its id is
`rehearsal-<interview id>-turn-<n>` (models.rehearsal.workflow.answer_workflow_id), so a client that restarts mid-turn gets the same answer back instead of
a new one.

    answer = await rehearsal_interviewee(persona, question, recent lines)   ← live_agent policy
    on failure (outage, garbage after the gateway's re-ask): the persona's own material, flagged fallback
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.rehearsal.interviewee import (
        IntervieweeInput,
        SimulatedAnswer,
        fallback_answer,
        rehearsal_interviewee,
    )
    from core import search_attributes as sa
    from models.rehearsal.workflow import PIPELINE, WORKFLOW_TYPE
    from models.status import COMPLETED, PARTIAL, PHASE_DONE, RUNNING
    from workflows.calls import call_agent
    from workflows.inputs import start_input



@workflow.defn(name=WORKFLOW_TYPE)
class SimulatedAnswerWorkflow:
    @workflow.run
    async def run(self, raw: Any = None) -> SimulatedAnswer:
        inp = start_input(IntervieweeInput, raw, pipeline=PIPELINE, workflow_type=WORKFLOW_TYPE)
        sa.upsert(pipeline=PIPELINE, status=RUNNING, topic=inp.topic)
        workflow.set_current_details(f"{inp.persona.name} is answering question {inp.turn} of {inp.interview_id}")
        try:
            result = await call_agent(rehearsal_interviewee, inp,
                                      summary=f"{inp.persona.name} answers Q{inp.turn}: {inp.question[:60]}")
            answer = SimulatedAnswer(answer=result.output.answer.strip(), usage=result.usage)
        except ActivityError as err:
            cause = err.cause
            message = getattr(cause, "message", None) or str(cause or err)
            workflow.logger.warning("interviewee agent failed, using the persona's fallback: %s", message)
            answer = SimulatedAnswer(answer=fallback_answer(inp.persona, inp.turn), fallback=True,
                                     error=message[:500])
        sa.upsert(phase=PHASE_DONE, status=PARTIAL if answer.fallback else COMPLETED)
        workflow.set_current_details(f"answered question {inp.turn}" + (" (fallback)" if answer.fallback else ""))
        return answer


WORKFLOWS: list[type] = [SimulatedAnswerWorkflow]
