"""Evaluator (seed §11.7): accuracy, relevance, safety, completeness; any FAIL → FAIL; domain rules applied."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.llm import offline
from activities.query.common import dump
from models.common import AgentResult
from models.query.agents import EvaluateInput, EvaluationDimension, EvaluatorOutput
from models.query.parts import Verdict
from rules.query.evaluation import DIMENSIONS

EVALUATOR = AgentSpec("evaluate_answer", "query/evaluate_answer.md", EvaluatorOutput, tier="high", role="auditor",
                      policy="agent",
                      description="Query pipeline Evaluator: four dimensions, domain rules, retry feedback")


@EVALUATOR.activity
async def evaluate_answer(inp: EvaluateInput) -> AgentResult[EvaluatorOutput]:
    return await EVALUATOR.run(
        {"rules": "\n".join(f"- {r}" for r in inp.evaluation_rules) or "(none)", "query": inp.query,
         "response": inp.response, "findings": dump(inp.analysis.findings), "evidence": inp.entries_summary,
         "attempt": inp.attempt_number, "previous_feedback": dump(inp.previous_feedback)},
        offline_context={"query": inp.query, "attempt": inp.attempt_number},
    )


@EVALUATOR.offline
def _offline_evaluator(req: offline.OfflineRequest) -> EvaluatorOutput:
    return EvaluatorOutput(
        dimensions=[EvaluationDimension(dimension=d, verdict=Verdict.PASS, reasoning="offline: not judged")
                    for d in DIMENSIONS],
        overall_verdict=Verdict.PASS, feedback=[], recommendation="accept")

