"""Phase 3, the Moderator: scores every idea on five 0-10 criteria, with pros, cons and feedback."""

from __future__ import annotations

import hashlib

from activities.agents.base import AgentSpec
from activities.discussion.common import base_variables, offline_context, save_message
from activities.llm import offline
from activities.llm.schema import json_schema_of, one_item_each
from models.common import AgentResult
from models.discussion.workflow import ScoringOutput, ScoringTurn, TurnInput
from rules.discussion.scoring import CRITERIA

SCORE = AgentSpec("discussion_score", "discussion/score.md", ScoringOutput, tier="medium", role="auditor",
                  policy="agent",
                  description="Moderator: final validation, five 0-10 criteria per idea (seed 002 phase 3)")


def render_scores(out: ScoringOutput) -> str:
    lines = [out.summary.strip(), ""] if out.summary.strip() else []
    lines.append("| idea | " + " | ".join(CRITERIA) + " |")
    lines.append("|---" * (len(CRITERIA) + 1) + "|")
    for ev in out.evaluations:
        lines.append(f"| {ev.idea_id} | " + " | ".join(f"{getattr(ev, c):g}" for c in CRITERIA) + " |")
    for ev in out.evaluations:
        lines.append(f"\n**{ev.idea_id}** pros: {'; '.join(ev.pros) or '-'}; cons: {'; '.join(ev.cons) or '-'}. "
                     f"{ev.feedback}")
    return "\n".join(lines)


def scoring_schema(idea_ids: list[str]) -> dict[str, object]:
    """ScoringOutput's schema for this call: one evaluation per listed idea, in order, each naming its idea.

    Sent as the grammar where the server takes a schema (the `local` model, llama.cpp's server): a small model
    left to choose the ids and the count scored two of four ideas and left the rest unscored."""
    return one_item_each(json_schema_of(ScoringOutput), "evaluations", "idea_id", idea_ids)


@SCORE.activity
async def discussion_score(inp: TurnInput) -> AgentResult[ScoringTurn]:
    schema = scoring_schema([i.id for i in inp.ideas]) if inp.ideas else None
    result = await SCORE.run(base_variables(inp), offline_context=offline_context(inp),
                             model=inp.model, schema=schema)
    out, usage = result.output, result.usage
    message = save_message(inp, "validation", render_scores(out), usage)
    return AgentResult[ScoringTurn](output=ScoringTurn(message=message, evaluations=out.evaluations), usage=usage)


@SCORE.offline
def _offline_score(req: offline.OfflineRequest) -> dict[str, object]:
    evaluations = []
    for idea in req.context.get("ideas", []):
        digest = hashlib.sha256(idea["title"].encode()).digest()
        scores = {c: float(5 + digest[n] % 5) for n, c in enumerate(CRITERIA)}
        evaluations.append({"idea_id": idea["id"], "pros": [f"clear focus on {idea['title'].lower()}"],
                            "cons": ["needs an owner"], "feedback": "Pilot it first.", **scores})
    return {"summary": f"{len(evaluations)} idea(s) evaluated.", "evaluations": evaluations}

