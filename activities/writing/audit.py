"""Cross-audit: `writing_audit`, each model audits ALL available drafts (the final post's audit is
final_audit.py). Structured scores (1–10) feed the history DB's audit_scores."""

from __future__ import annotations

from temporalio.exceptions import ApplicationError

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once
from activities.llm import offline
from activities.llm.schema import json_schema_of, one_item_each
from activities.writing.common import base_variables, persona_text, save_output
from activities.writing.prompts import match_target
from models.writing.workflow import CrossAudit, ReviewScores, TaskResult, WritingTaskInput

AUDIT = AgentSpec("writing_audit", "writing/audit.md", CrossAudit, tier="medium", role="auditor",
                  policy="long_agent", description="Cross-audit: one model scores every available draft")


def render_cross_audit(model: str, audit: CrossAudit) -> str:
    lines = [f"# Audit by {model}", "", audit.consensus, ""]
    for r in audit.reviews:
        lines += [f"## Draft from {r.target}", "",
                  f"Overall {r.overall_score}/10 · hook {r.hook_score} · specifics {r.specifics_score} · "
                  f"voice {r.voice_score} · structure {r.structure_score}", "", r.feedback, ""]
    return "\n".join(lines)


@AUDIT.activity
@completed_once
async def writing_audit(inp: WritingTaskInput) -> TaskResult:
    persona = persona_text(inp.persona, inp.persona_file, inp.persona_text)
    variables, docs = base_variables(inp, persona)
    targets = [m for m, kind, _ in docs if kind == "draft"]
    if not targets:
        raise ApplicationError(f"{inp.state}: no drafts to audit", type="ValidationError", non_retryable=True)
    # one review per draft, each naming it: a small model left to name the drafts named none of them
    result = await AUDIT.run(variables, model=inp.model,
                             offline_context={"model": inp.model, "targets": targets,
                                              "lengths": [len(t.split()) for m, k, t in docs if k == "draft"]},
                             schema=one_item_each(json_schema_of(CrossAudit), "reviews", "target", targets))
    audit, usage = result.output, result.usage
    reviews: list[ReviewScores] = []
    for review in audit.reviews:  # never keep scores for a model that was not shown
        target = match_target(review.target, targets)
        if target is not None and target not in {r.target for r in reviews}:
            reviews.append(review.model_copy(update={"target": target}))
    audit.reviews = reviews
    if not audit.reviews:
        raise ApplicationError(f"{inp.model}: the audit named none of the drafts ({', '.join(targets)})",
                               type="InvalidLLMOutput")
    return await save_output(inp, render_cross_audit(inp.model or "auditor", audit), "audit", usage, cross_audit=audit)


def offline_score(seed: str, base: int = 6) -> int:
    """The offline auditors' score: deterministic 6..9 (7..10 from base 7) per seed."""
    return base + sum(map(ord, seed)) % 4  # deterministic 6..9


@AUDIT.offline
def _offline_audit(req: offline.OfflineRequest) -> dict:
    targets = list(req.context.get("targets") or [])
    reviews = []
    for target in targets:
        s = offline_score(f"{req.context.get('model')}:{target}")
        reviews.append({"target": target, "feedback": f"{target}: clear hook; add one concrete artifact.",
                        "hook_score": s, "specifics_score": max(1, s - 1), "voice_score": s,
                        "structure_score": s, "overall_score": s})
    return {"reviews": reviews, "consensus": f"Reviewed {len(targets)} draft(s): {', '.join(targets)}."}
