"""Phase 2 step 2, the Ideation Specialist: 3-5 structured ideas as JSON (plus top-up and deep-dive turns)."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.discussion.common import base_variables, offline_context, save_message, topic_words
from activities.llm import offline
from models.common import AgentResult
from models.discussion.workflow import IdeationOutput, IdeationTurn, TurnInput
from rules.discussion.levels import MAX_IDEAS_PER_ANSWER
from rules.discussion.rounds import ideation_instruction

IDEATE = AgentSpec("discussion_ideate", "discussion/ideate.md", IdeationOutput, tier="medium", role="writer",
                   policy="agent",
                   description="Ideation Specialist: generates and refines 3-5 JSON ideas (seed 002 step 2)")


def render_ideas(out: IdeationOutput) -> str:
    lines = [out.commentary.strip(), ""] if out.commentary.strip() else []
    for n, idea in enumerate(out.ideas, start=1):
        refines = f" (refines {idea.refines})" if idea.refines else ""
        lines.append(f"{n}. **{idea.title}**{refines} - {idea.description}")
        if idea.rationale:
            lines.append(f"   Why: {idea.rationale}")
    return "\n".join(lines) if lines else "(no ideas)"


@IDEATE.activity
async def discussion_ideate(inp: TurnInput) -> AgentResult[IdeationTurn]:
    needed = max(inp.min_ideas - len(inp.ideas), 1) if inp.mode == "topup" else inp.min_ideas
    variables = base_variables(inp) | {"instruction": ideation_instruction(inp.round, inp.mode, needed),
                                       "needed": needed, "mode": inp.mode,
                                       "at_least": min(max(needed, 1), MAX_IDEAS_PER_ANSWER)}
    result = await IDEATE.run(variables, offline_context=offline_context(inp, needed=needed),
                              model=inp.model)
    out, usage = result.output, result.usage
    message = save_message(inp, "ideation", render_ideas(out), usage)
    return AgentResult[IdeationTurn](output=IdeationTurn(message=message, ideas=out.ideas), usage=usage)


_ANGLES = ["Pilot program", "Community platform", "Automation toolkit", "Partnership network",
           "Open data dashboard", "Incentive scheme", "Training academy", "Mobile assistant", "Peer review circle",
           "Challenge prize", "Shared services hub", "Feedback loop", "Mentoring scheme", "Simulation lab",
           "Volunteer corps", "Micro-grant fund", "Knowledge base", "Field kit", "Ambassador network",
           "Living lab"]


@IDEATE.offline
def _offline_ideate(req: offline.OfflineRequest) -> dict[str, object]:
    ctx = req.context
    topic = topic_words(str(ctx.get("topic", "")), 5)
    existing = ctx.get("ideas", [])
    if ctx.get("mode") == "refine":
        return {"commentary": "Refined after the critique.",
                "ideas": [{"title": i["title"], "refines": i["id"],
                           "description": f"{i['description']} Refined: start small and add incentives."}
                          for i in existing[:2]]}
    count = int(ctx.get("needed") or ctx.get("min_ideas") or 3)
    start = len(existing)
    ideas = [{"title": f"{_ANGLES[(start + k) % len(_ANGLES)]} for {topic}",
              "description": f"A {_ANGLES[(start + k) % len(_ANGLES)].lower()} that tackles {topic} directly.",
              "rationale": "Cheap to try and easy to measure."} for k in range(min(max(count, 3), 5))]
    return {"commentary": f"Round {ctx.get('round')} ideas.", "ideas": ideas}

