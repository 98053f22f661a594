"""Phase 3, the Team Leader's final selection comment. Context only: the workflow selects by score."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.discussion.common import base_variables, excerpt, offline_context, save_message
from activities.llm import offline
from models.common import AgentResult, offline_labelled
from models.discussion.workflow import LeaderSelectionOutput, SelectionTurn, TurnInput

SELECT = AgentSpec("discussion_select", "discussion/select.md", LeaderSelectionOutput, tier="medium",
                   role="writer", policy="fast_agent",
                   description="Team Leader: final selection comment (the score decides)")


@SELECT.activity
async def discussion_select(inp: TurnInput) -> AgentResult[SelectionTurn]:
    result = await SELECT.run(base_variables(inp), offline_context=offline_context(inp),
                              model=inp.model)
    out, usage = result.output, result.usage
    pick = f"\n\nPreferred idea: {out.preferred_idea_id}" if out.preferred_idea_id else ""
    message = save_message(inp, "selection", out.explanation.strip() + pick, usage)
    return AgentResult[SelectionTurn](output=SelectionTurn(message=message, preferred_idea_id=out.preferred_idea_id,
                                                           explanation_excerpt=excerpt(offline_labelled(
                                                               out.explanation, usage.offline), 500)),
                                      usage=usage)


@SELECT.offline
def _offline_select(req: offline.OfflineRequest) -> dict[str, object]:
    ideas = req.context.get("ideas", [])
    scored = [i for i in ideas if i.get("overall") is not None]
    if not scored:
        if not ideas:
            return {"explanation": "No idea to choose from.", "preferred_idea_id": None}
        # nothing scored (no moderator in the team): the leader's choice decides — the first idea proposed
        first = ideas[0]
        return {"explanation": f"Nothing was scored; {first['title']} was proposed first and is the one to try.",
                "preferred_idea_id": first["id"]}
    best = max(scored, key=lambda i: i["overall"])
    return {"explanation": f"{best['title']} balances the criteria best ({best['overall']}/10).",
            "preferred_idea_id": best["id"]}

