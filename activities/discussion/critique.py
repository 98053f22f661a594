"""Phase 2 step 3, the Critic: challenge the ideas' assumptions (only when ideas exist)."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.discussion.common import base_variables, offline_context, save_message
from activities.llm import offline
from models.common import AgentResult
from models.discussion.workflow import TurnInput, TurnOutput

CRITIQUE = AgentSpec("discussion_critique", "discussion/critique.md", TurnOutput, tier="medium", role="auditor",
                     policy="agent", free_text=True, max_tokens=700,
                     description="Critic: stress-tests the ideas of a discussion round (seed 002 step 3)")


@CRITIQUE.activity
async def discussion_critique(inp: TurnInput) -> AgentResult[TurnOutput]:
    text, usage = await CRITIQUE.run_text(base_variables(inp), offline_context=offline_context(inp), model=inp.model,
                                          require_text=True)
    message = save_message(inp, "critic", text, usage)
    return AgentResult[TurnOutput](output=TurnOutput(message=message), usage=usage)


@CRITIQUE.offline
def _offline_critique(req: offline.OfflineRequest) -> str:
    lines = ["What could go wrong:"]
    for idea in req.context.get("ideas", []):
        lines.append(f"- {idea['id']} {idea['title']}: assumes people will adopt it without incentives.")
    return "\n".join(lines)

