"""Synthesis: the researcher's summary of the reduced findings (numbers in, prose out; no quotes)."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.llm import offline
from models.common import AgentResult
from models.study.activities import SynthesisInput, SynthesisOutput

SYNTHESIS = AgentSpec("study_synthesis", "study/synthesis.md", SynthesisOutput, tier="high", policy="long_agent",
                      description="Study: writes the findings summary and what the plan missed")


@SYNTHESIS.activity
async def study_synthesis(inp: SynthesisInput) -> AgentResult[SynthesisOutput]:
    return await SYNTHESIS.run({"topic": inp.topic, "research_goal": inp.research_goal, "outline": inp.outline},
                               offline_context={"outline": inp.outline})


@SYNTHESIS.offline
def _offline_synthesis(req: offline.OfflineRequest) -> dict | None:
    if "outline" not in req.context:
        return None
    lines = str(req.context["outline"]).splitlines()
    themes = [line[2:] for line in lines if line.startswith("- theme ")][:3]
    summary = (f"{offline.OFFLINE_LABEL} {lines[0] if lines else ''}. Most raised: " + "; ".join(themes)
               if themes else f"{offline.OFFLINE_LABEL} {lines[0] if lines else 'no interviews'}.")
    return {"summary": summary, "plan_missed": []}
