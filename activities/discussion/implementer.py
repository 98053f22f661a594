"""Phase 2 step 4, the Implementer: how would we actually build these ideas (only when ideas exist)."""

from __future__ import annotations

from temporalio import activity

from activities.agents.base import AgentSpec
from activities.discussion.common import ask, base_variables, save_message
from activities.llm import offline
from models.common import AgentResult
from models.discussion import TurnInput, TurnOutput

IMPLEMENT = AgentSpec("discussion_implement", "discussion/implementer.md", TurnOutput, tier="medium", role="coder",
                      description="Implementer: practical approach for a round's ideas (seed 002 step 4)")


@activity.defn(name="discussion_implement")
async def discussion_implement(inp: TurnInput) -> AgentResult[TurnOutput]:
    text, usage = await ask(IMPLEMENT, inp, base_variables(inp), None)
    message = save_message(inp, "implementer", text, usage)
    return AgentResult[TurnOutput](output=TurnOutput(message=message), usage=usage)


def _offline_implement(req: offline.OfflineRequest) -> str:
    lines = ["Practical approach:"]
    for n, idea in enumerate(req.context.get("ideas", []), start=1):
        lines.append(f"- {idea['id']} {idea['title']}: a {n + 1}-week pilot with one team, then measure.")
    return "\n".join(lines)


offline.register_responder(IMPLEMENT.name, _offline_implement)
