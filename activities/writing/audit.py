"""Auditors: `writing_audit` (cross-audit: each model audits ALL available drafts) and `writing_final_audit`
(each model audits the final post). Structured scores (1–10) feed the history DB's audit_scores."""

from __future__ import annotations

from temporalio.exceptions import ApplicationError

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once
from activities.llm import offline
from activities.llm.schema import json_schema_of, one_item_each
from activities.writing.common import base_variables, persona_text, save_output
from activities.writing.prompts import match_target
from models.writing import CrossAudit, FinalAudit, ReviewScores, TaskResult, WritingTaskInput

AUDIT = AgentSpec("writing_audit", "writing/audit.md", CrossAudit, tier="medium", role="auditor",
                  policy="long_agent", description="Cross-audit: one model scores every available draft")
FINAL_AUDIT = AgentSpec("writing_final_audit", "writing/final_audit.md", FinalAudit, tier="medium", role="auditor",
                        policy="long_agent", description="Final audit: one model scores the synthesized post")


def render_cross_audit(model: str, audit: CrossAudit) -> str:
    lines = [f"# Audit by {model}", "", audit.consensus, ""]
    for r in audit.reviews:
        lines += [f"## Draft from {r.target}", "",
                  f"Overall {r.overall_score}/10 · hook {r.hook_score} · specifics {r.specifics_score} · "
                  f"voice {r.voice_score} · structure {r.structure_score}", "", r.feedback, ""]
    return "\n".join(lines)


def render_final_audit(model: str, audit: FinalAudit) -> str:
    lines = [f"# Final audit by {model}", "", f"**Verdict:** {audit.verdict} · overall {audit.overall_score}/10 · "
             f"hook {audit.hook_score} · specifics {audit.specifics_score} · voice {audit.voice_score} · "
             f"structure {audit.structure_score}", "", audit.feedback, ""]
    lines += [f"- strength: {s}" for s in audit.strengths] + [f"- issue: {i}" for i in audit.issues]
    return "\n".join(lines) + "\n"


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
    return save_output(inp, render_cross_audit(inp.model or "auditor", audit), "audit", usage, cross_audit=audit)


@FINAL_AUDIT.activity
@completed_once
async def writing_final_audit(inp: WritingTaskInput) -> TaskResult:
    persona = persona_text(inp.persona, inp.persona_file, inp.persona_text)
    variables, docs = base_variables(inp, persona)
    if not any(kind == "post" for _, kind, _ in docs):
        raise ApplicationError(f"{inp.state}: no final post to audit", type="ValidationError", non_retryable=True)
    post = next(t for _, k, t in docs if k == "post")
    result = await FINAL_AUDIT.run(variables, model=inp.model,
                                   offline_context={"model": inp.model, "words": len(post.split())})
    return save_output(inp, render_final_audit(inp.model or "auditor", result.output), "final_audit", result.usage,
                       final_audit=result.output)


def _score(seed: str, base: int = 6) -> int:
    return base + sum(map(ord, seed)) % 4  # deterministic 6..9


@AUDIT.offline
def _offline_audit(req: offline.OfflineRequest) -> dict:
    targets = list(req.context.get("targets") or [])
    reviews = []
    for target in targets:
        s = _score(f"{req.context.get('model')}:{target}")
        reviews.append({"target": target, "feedback": f"{target}: clear hook; add one concrete artifact.",
                        "hook_score": s, "specifics_score": max(1, s - 1), "voice_score": s,
                        "structure_score": s, "overall_score": s})
    return {"reviews": reviews, "consensus": f"Reviewed {len(targets)} draft(s): {', '.join(targets)}."}


@FINAL_AUDIT.offline
def _offline_final_audit(req: offline.OfflineRequest) -> dict:
    s = _score(str(req.context.get("model")), 7)
    return {"strengths": ["concrete opening"], "issues": [], "feedback": "Ready with minor polish.",
            "hook_score": s, "specifics_score": s, "voice_score": s, "structure_score": s, "overall_score": s,
            "verdict": "ready"}

