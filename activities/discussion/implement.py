"""Phase 2 step 4, the Implementer: how would we actually build these ideas (only when ideas exist)."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.discussion.common import base_variables, offline_context, save_message
from activities.llm import offline
from models.common import AgentResult
from models.discussion.workflow import TurnInput, TurnOutput

IMPLEMENT = AgentSpec("discussion_implement", "discussion/implement.md", TurnOutput, tier="medium", role="coder",
                      policy="agent", free_text=True, max_tokens=700,
                      description="Implementer: practical approach for a round's ideas (seed 002 step 4)")


@IMPLEMENT.activity
async def discussion_implement(inp: TurnInput) -> AgentResult[TurnOutput]:
    text, usage = await IMPLEMENT.run_text(base_variables(inp), offline_context=offline_context(inp), model=inp.model,
                                           require_text=True)
    message = save_message(inp, "implementer", text, usage)
    return AgentResult[TurnOutput](output=TurnOutput(message=message), usage=usage)


@IMPLEMENT.offline
def _offline_implement(req: offline.OfflineRequest) -> str:
    lines = ["Practical approach:"]
    for n, idea in enumerate(req.context.get("ideas", []), start=1):
        lines.append(f"- {idea['id']} {idea['title']}: a {n + 1}-week pilot with one team, then measure.")
    return "\n".join(lines)

