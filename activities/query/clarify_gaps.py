"""Clarifier (seed §11.8): questions for the gaps only the user can fill."""

from __future__ import annotations

from typing import Any

from activities.agents.base import AgentSpec
from activities.llm import offline
from activities.llm.schema import inline_refs, json_schema_of
from activities.query.common import dump
from models.common import AgentResult
from models.query.agents import ClarificationQuestion, ClarifierOutput, ClarifyInput

CLARIFIER = AgentSpec("clarify_gaps", "query/clarify_gaps.md", ClarifierOutput, tier="medium", role="writer",
                      policy="agent",
                      description="Query pipeline Clarifier: questions for non-retrievable gaps")


#: The Clarifier is called once the workflow has decided to ask: at least one question, at most this many.
MAX_QUESTIONS = 3


def clarifier_schema() -> dict[str, Any]:
    """ClarifierOutput's schema for the call: one to MAX_QUESTIONS questions, each a real question. The workflow
    only calls the Clarifier when it must ask; a grammar-constrained small model otherwise answered with no
    question (or an empty one) and the user was never asked."""
    schema = inline_refs(json_schema_of(ClarifierOutput))
    questions = schema["properties"]["questions"]
    item = questions["items"]
    item["properties"]["question"] = {**item["properties"]["question"], "minLength": 8}
    schema["properties"]["questions"] = {**questions, "minItems": 1, "maxItems": MAX_QUESTIONS}
    return schema


@CLARIFIER.activity
async def clarify_gaps(inp: ClarifyInput) -> AgentResult[ClarifierOutput]:
    return await CLARIFIER.run(
        {"vocabulary": dump(inp.vocabulary), "query": inp.original_query, "gaps": dump(inp.gaps),
         "planner_questions": dump(inp.planner_questions), "retrieval_history": dump(inp.retrieval_history),
         "previous": dump(inp.previous_clarifications)},
        offline_context={"gaps": [g.description for g in inp.gaps], "planner_questions": inp.planner_questions},
        schema=clarifier_schema(),
    )


@CLARIFIER.offline
def _offline_clarifier(req: offline.OfflineRequest) -> ClarifierOutput:
    asks = list(req.context.get("planner_questions") or [])
    asks += [f"Can you tell me about this: {g}?" for g in req.context.get("gaps", [])]
    return ClarifierOutput(
        questions=[ClarificationQuestion(question=q, gap_addressed=q) for q in asks[:3]] or
        [ClarificationQuestion(question="Is there anything not in your notes that I should know?")],
        context_explanation="Your notes do not cover this, so only you can tell me.",
        fallback_action="I will answer with what your notes contain.")

