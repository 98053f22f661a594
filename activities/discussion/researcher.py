"""Phase 2 step 1, the Researcher: facts and context before creative work (only if in the team)."""

from __future__ import annotations

from temporalio import activity

from activities.agents.base import AgentSpec
from activities.discussion.common import ask, base_variables, save_message, topic_words
from activities.llm import offline
from models.common import AgentResult
from models.discussion import TurnInput, TurnOutput

RESEARCH = AgentSpec("discussion_research", "discussion/researcher.md", TurnOutput, tier="medium", role="writer",
                     description="Researcher: grounds each discussion round in facts (seed 002 step 1)")


@activity.defn(name="discussion_research")
async def discussion_research(inp: TurnInput) -> AgentResult[TurnOutput]:
    text, usage = await ask(RESEARCH, inp, base_variables(inp), None)
    message = save_message(inp, "researcher", text, usage)
    return AgentResult[TurnOutput](output=TurnOutput(message=message), usage=usage)


def _offline_research(req: offline.OfflineRequest) -> str:
    topic = topic_words(str(req.context.get("topic", "")))
    return (f"Research notes for round {req.context.get('round')}: the main constraints around {topic} are cost, "
            f"adoption and measurable outcomes; {len(req.context.get('ideas', []))} idea(s) are on the table.")


offline.register_responder(RESEARCH.name, _offline_research)
