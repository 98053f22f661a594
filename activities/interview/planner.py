"""Planner (000): topic, context, duration → research goal, angle, sections with prioritised questions.
In structured mode the plan is a 003 schema (required dimensions and follow-up pools per section)."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.interview.common import language_label
from activities.llm import offline
from models.common import AgentResult
from models.interview.activities import PlannerInput
from models.interview.plan import PlanSnapshot
from rules.interview.plan import default_plan

PLANNER = AgentSpec("interview_planner", "interview/planner.md", PlanSnapshot, tier="medium",
                    policy="agent",
                    description="Interview: designs the rubric (research goal, angle, sections, questions)")


@PLANNER.activity
async def interview_planner(inp: PlannerInput) -> AgentResult[PlanSnapshot]:
    result = await PLANNER.run(
        {"topic": inp.topic, "context": inp.context, "duration_minutes": round(inp.duration_seconds / 60, 1),
         "mode": inp.mode, "follow_up_topic": inp.follow_up_topic, "previous_summary": inp.previous_summary,
         "language": language_label(inp.language)},
        offline_context={"topic": inp.topic, "context": inp.context, "mode": inp.mode,
                         "duration_seconds": inp.duration_seconds})
    if inp.language and not result.usage.offline:
        # a model was asked to write in this language: the plan carries it (its closing question follows,
        # rules/interview/closing.py). The offline double writes English only: its plan says nothing (English)
        result.output.language = inp.language
    return result


@PLANNER.offline
def _offline_plan(req: offline.OfflineRequest):
    c = req.context
    if "topic" not in c:
        return None
    return default_plan(c["topic"], c.get("context", ""), c.get("mode", "adaptive"), int(c.get("duration_seconds", 840)))

