"""Rehearsal contract: `SimulatedAnswerWorkflow`, one simulated interviewee answer per workflow.

The payloads (Persona, IntervieweeInput, SimulatedAnswer) live with the interviewee agent in
activities/rehearsal/interviewee.py. Never change a name below (running workflows and recorded histories use them).
"""

from __future__ import annotations

# ------------------------------------------------------------------------------------------- public names
WORKFLOW_TYPE = "SimulatedAnswerWorkflow"                  # IntervieweeInput -> SimulatedAnswer
PIPELINE = "rehearsal"                                     # its ColloquyPipeline (a helper: the UI filters it out)


def answer_workflow_id(interview_id: str, turn: int) -> str:
    """The meaningful, idempotent id of the workflow producing answer `turn` of a rehearsal."""
    return f"rehearsal-{interview_id}-turn-{turn}"
