"""Phase 2 step 1, the Researcher: facts and context before creative work (only if in the team)."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.discussion.common import base_variables, offline_context, save_message, topic_words
from activities.llm import offline
from models.common import AgentResult
from models.discussion.workflow import TurnInput, TurnOutput

RESEARCH = AgentSpec("discussion_research", "discussion/research.md", TurnOutput, tier="medium", role="writer",
                     policy="agent", free_text=True, max_tokens=700,
                     description="Researcher: grounds each discussion round in facts (seed 002 step 1)")


@RESEARCH.activity
async def discussion_research(inp: TurnInput) -> AgentResult[TurnOutput]:
    text, usage = await RESEARCH.run_text(base_variables(inp), offline_context=offline_context(inp), model=inp.model,
                                          require_text=True)
    message = save_message(inp, "researcher", text, usage)
    return AgentResult[TurnOutput](output=TurnOutput(message=message), usage=usage)


@RESEARCH.offline
def _offline_research(req: offline.OfflineRequest) -> str:
    topic = topic_words(str(req.context.get("topic", "")))
    return (f"Research notes for round {req.context.get('round')}: the main constraints around {topic} are cost, "
            f"adoption and measurable outcomes; {len(req.context.get('ideas', []))} idea(s) are on the table.")

