"""Phase 1, the Team Leader's kickoff: frame the topic and give each member a focus (required step)."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.discussion.common import (
    ROLE_TITLES,
    base_variables,
    offline_context,
    save_message,
    topic_words,
)
from activities.llm import offline
from models.common import AgentResult
from models.discussion.workflow import TurnInput, TurnOutput

KICKOFF = AgentSpec("discussion_kickoff", "discussion/kickoff.md", TurnOutput, tier="medium", role="writer",
                    policy="agent", free_text=True, max_tokens=700,
                    description="Team Leader: frames the discussion and assigns focus areas (seed 002 phase 1)")


@KICKOFF.activity
async def discussion_kickoff(inp: TurnInput) -> AgentResult[TurnOutput]:
    text, usage = await KICKOFF.run_text(base_variables(inp), offline_context=offline_context(inp), model=inp.model,
                                         require_text=True)
    message = save_message(inp, "kickoff", text, usage)
    return AgentResult[TurnOutput](output=TurnOutput(message=message), usage=usage)


@KICKOFF.offline
def _offline_kickoff(req: offline.OfflineRequest) -> str:
    topic = topic_words(str(req.context.get("topic", "")))
    lines = [f"Kickoff: we explore {topic}. Direction for each member:"]
    for role in req.context.get("team", []):
        if role != "leader":
            lines.append(f"- {ROLE_TITLES.get(role, role)}: look at {topic} from the {role} angle.")
    return "\n".join(lines)

