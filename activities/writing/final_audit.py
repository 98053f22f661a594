"""Final audit: `writing_final_audit`, each model audits the final post. Structured scores (1–10) feed the
history DB's audit_scores."""

from __future__ import annotations

from temporalio.exceptions import ApplicationError

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once
from activities.llm import offline
from activities.writing.audit import offline_score
from activities.writing.common import base_variables, persona_text, save_output
from models.writing.workflow import FinalAudit, TaskResult, WritingTaskInput

FINAL_AUDIT = AgentSpec("writing_final_audit", "writing/final_audit.md", FinalAudit, tier="medium", role="auditor",
                        policy="long_agent", description="Final audit: one model scores the synthesized post")


def render_final_audit(model: str, audit: FinalAudit) -> str:
    lines = [f"# Final audit by {model}", "", f"**Verdict:** {audit.verdict} · overall {audit.overall_score}/10 · "
             f"hook {audit.hook_score} · specifics {audit.specifics_score} · voice {audit.voice_score} · "
             f"structure {audit.structure_score}", "", audit.feedback, ""]
    lines += [f"- strength: {s}" for s in audit.strengths] + [f"- issue: {i}" for i in audit.issues]
    return "\n".join(lines) + "\n"


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
    return await save_output(inp, render_final_audit(inp.model or "auditor", result.output), "final_audit", result.usage,
                       final_audit=result.output)


@FINAL_AUDIT.offline
def _offline_final_audit(req: offline.OfflineRequest) -> dict:
    s = offline_score(str(req.context.get("model")), 7)
    return {"strengths": ["concrete opening"], "issues": [], "feedback": "Ready with minor polish.",
            "hook_score": s, "specifics_score": s, "voice_score": s, "structure_score": s, "overall_score": s,
            "verdict": "ready"}
