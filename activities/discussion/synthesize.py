"""Phase 2 step 5, the Team Leader's synthesis of a round (and, in the final round, the strongest ideas)."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.discussion.common import base_variables, offline_context, save_message
from activities.llm import offline
from models.common import AgentResult
from models.discussion.workflow import TurnInput, TurnOutput

SYNTHESIZE = AgentSpec("discussion_synthesize", "discussion/synthesize.md", TurnOutput, tier="medium",
                       role="writer", policy="agent", free_text=True, max_tokens=700,
                       description="Team Leader: synthesizes each round (seed 002 step 5)")


@SYNTHESIZE.activity
async def discussion_synthesize(inp: TurnInput) -> AgentResult[TurnOutput]:
    text, usage = await SYNTHESIZE.run_text(base_variables(inp), offline_context=offline_context(inp), model=inp.model,
                                            require_text=True)
    message = save_message(inp, "synthesis", text, usage)
    return AgentResult[TurnOutput](output=TurnOutput(message=message), usage=usage)


@SYNTHESIZE.offline
def _offline_synthesize(req: offline.OfflineRequest) -> str:
    ideas = req.context.get("ideas", [])
    final = req.context.get("round", 0) >= req.context.get("max_rounds", 1)
    listed = ", ".join(f"{i['id']} {i['title']}" for i in ideas) or "no ideas yet"
    nxt = "These are the strongest ideas." if final else "Next round: sharpen them against the critique."
    return f"Round {req.context.get('round')} synthesis: {listed}. {nxt}"

