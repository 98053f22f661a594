"""Phase 3, the Team Leader's final selection comment. Context only: the workflow selects by score."""

from __future__ import annotations

from temporalio import activity

from activities.agents.base import AgentSpec
from activities.discussion.common import ask, base_variables, excerpt, save_message
from activities.llm import offline
from models.common import AgentResult
from models.discussion import LeaderSelectionOutput, SelectionTurn, TurnInput

SELECT = AgentSpec("discussion_select", "discussion/selection.md", LeaderSelectionOutput, tier="medium",
                   role="writer", description="Team Leader: final selection comment (the score decides)")


@activity.defn(name="discussion_select")
async def discussion_select(inp: TurnInput) -> AgentResult[SelectionTurn]:
    out, usage = await ask(SELECT, inp, base_variables(inp), LeaderSelectionOutput)
    pick = f"\n\nPreferred idea: {out.preferred_idea_id}" if out.preferred_idea_id else ""
    message = save_message(inp, "selection", out.explanation.strip() + pick, usage)
    return AgentResult[SelectionTurn](output=SelectionTurn(message=message, preferred_idea_id=out.preferred_idea_id,
                                                           explanation_excerpt=excerpt(out.explanation, 500)),
                                      usage=usage)


def _offline_select(req: offline.OfflineRequest) -> dict[str, object]:
    scored = [i for i in req.context.get("ideas", []) if i.get("overall") is not None]
    if not scored:
        return {"explanation": "No scored idea to choose from.", "preferred_idea_id": None}
    best = max(scored, key=lambda i: i["overall"])
    return {"explanation": f"{best['title']} balances the criteria best ({best['overall']}/10).",
            "preferred_idea_id": best["id"]}


offline.register_responder(SELECT.name, _offline_select)
