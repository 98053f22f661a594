"""Orchestrator (000): plan with coverage, last 30 entries, notes, research, timing → the next question.
In structured mode it is the 003 'interviewer AI' and also assesses the section's required dimensions."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.interview.common import language_label, notes_text, transcript_text
from activities.llm import offline
from models.common import AgentResult
from models.interview.activities import OrchestratorInput
from models.interview.notes import OrchestratorDecision
from rules.interview.phases import progress_percent

ORCHESTRATOR = AgentSpec("interview_orchestrator", "interview/orchestrator.md", OrchestratorDecision, tier="medium",
                         policy="live_agent",
                         description="Interview: decides the next question, its phase and how to ask it")


@ORCHESTRATOR.activity
async def interview_orchestrator(inp: OrchestratorInput) -> AgentResult[OrchestratorDecision]:
    return await ORCHESTRATOR.run(
        {"topic": inp.topic, "research_goal": inp.research_goal, "angle": inp.angle, "mode": inp.mode,
         "elapsed": round(inp.elapsed_seconds), "target": round(inp.target_seconds),
         "percent": progress_percent(inp.elapsed_seconds, inp.target_seconds), "phase": inp.phase,
         "section_title": inp.current_section_title,
         "section_remaining": None if inp.section_seconds_remaining is None else round(inp.section_seconds_remaining),
         "follow_up_context": inp.follow_up_context, "plan_coverage": inp.plan_coverage,
         "dimensions": inp.dimensions, "notes_text": notes_text(inp), "research": inp.research,
         "window_size": len(inp.window), "transcript": transcript_text(inp.window),
         "language": language_label(inp.language)},
        offline_context={"fallback": inp.fallback.model_dump(mode="json") if inp.fallback else None,
                         "phase": inp.phase})


@ORCHESTRATOR.offline
def _offline_decision(req: offline.OfflineRequest):
    """The engine's own next unasked plan question (P1 > P2 > P3), in the current phase (demo only)."""
    return req.context.get("fallback")

