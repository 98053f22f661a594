"""Planner (seed §11.3): decomposition with dependency classification, retrieval instructions, gap tracking,
domain expansion requests and the next action (retrieve / expand_domain / clarify / synthesize)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Literal

from activities.agents.base import AgentSpec
from activities.llm import offline
from activities.query.common import content_words, dump
from models.common import AgentResult
from models.query.agents import PlanInput, PlannerOutput, RetrievalInstruction, SubQuery
from models.query.parts import DependencyType, QueryType

PLANNER = AgentSpec("plan_query", "query/plan_query.md", PlannerOutput, tier="high", role="writer",
                    policy="agent",
                    description="Query pipeline Planner: sub-queries, dependencies, retrieval strategy, next action")


@PLANNER.activity
async def plan_query(inp: PlanInput) -> AgentResult[PlannerOutput]:
    ctx = inp.domain_context
    available = "\n".join(f"- {d.name}: {d.description}" for d in ctx.available_domains) or "(none)"
    return await PLANNER.run(
        {"expertise": ctx.expertise or "(none)", "vocabulary": dump(ctx.vocabulary), "available_domains": available,
         "today": inp.today.isoformat(), "query": inp.query, "retrieval_history": dump(inp.retrieval_history),
         "gaps": dump(inp.gaps_from_analyzer), "gaps_status": dump(inp.gaps_status),
         "feedback": dump(inp.evaluation_feedback), "user_responses": dump(inp.user_responses),
         "global_context": inp.global_context_summary or "(none)",
         "clarification_allowed": inp.clarification_allowed},
        offline_context={"query": inp.query, "today": inp.today.isoformat(),
                         "attempts": len(inp.retrieval_history), "gaps": len(inp.gaps_from_analyzer),
                         "feedback": len(inp.evaluation_feedback), "vocabulary": ctx.vocabulary},
    )


def _window(query: str, today: date) -> tuple[date, date]:
    q = query.lower()
    if "yesterday" in q:
        return today - timedelta(days=1), today - timedelta(days=1)
    if "today" in q:
        return today, today
    if "last week" in q:
        return today - timedelta(days=13), today - timedelta(days=7)
    if "month" in q:
        return today - timedelta(days=30), today
    if "year" in q:
        return today - timedelta(days=365), today
    return today - timedelta(days=14), today


@PLANNER.offline
def _offline_planner(req: offline.OfflineRequest) -> PlannerOutput:
    """Keyless default: a date window from the wording (widened on re-plans), plus a keyword search for the
    query's content words; synthesize once two retrievals have been tried."""
    c = req.context
    query = str(c.get("query", ""))
    today = date.fromisoformat(c["today"])
    start, end = _window(query, today)
    attempts = int(c.get("attempts", 0))
    if c.get("gaps") or c.get("feedback"):
        start = start - timedelta(days=30)  # re-plan: widen the window
    words = content_words(query)
    instructions = [RetrievalInstruction(tool="date_range", start=start, end=end, purpose="entries in scope")]
    if words:
        instructions.append(RetrievalInstruction(tool="keyword", keywords=words[:5], start=start, end=end,
                                                 purpose="entries about " + ", ".join(words[:5])))
    qtype = (QueryType.INSIGHT if query.lower().startswith("why") else
             QueryType.RECOMMENDATION if "should" in query.lower() else QueryType.SIMPLE)
    action: Literal["retrieve", "synthesize"] = "synthesize" if attempts >= 4 and c.get("gaps") else "retrieve"
    return PlannerOutput(
        original_query=query, query_type=qtype, sub_queries=[SubQuery(id=1, question=query)],
        execution_strategy=DependencyType.COUPLED, execution_order=[1], retrieval_instructions=instructions,
        gaps_status={w: {"searched": attempts > 0, "found": False} for w in words[:3]},
        next_action=action, reasoning=f"offline heuristic: {start}..{end}",
    )

