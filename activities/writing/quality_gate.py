"""Quality gate (state type `single`, §14): just an agent with a quality-gate persona; returns AuditResult."""

from __future__ import annotations

from temporalio import activity

from activities.agents.base import AgentSpec
from activities.llm import offline
from activities.writing.common import base_variables, complete, persona_text, save_output
from models.writing import AuditResult, TaskResult, WritingTaskInput

QUALITY_GATE = AgentSpec("writing_quality_gate", "writing/quality_gate.md", AuditResult, tier="medium",
                         role="auditor", description="Quality gate: score 1-10, proceed / retry (with guidance) / halt")


def render_review(state: str, review: AuditResult) -> str:
    lines = [f"# Quality gate {state}", "", f"**Decision:** {review.decision} · score {review.score}/10", "",
             review.feedback, ""]
    lines += [f"- [{i.severity}] {i.issue} → {i.fix}" for i in review.issues]
    if review.retry_guidance:
        lines += ["", f"**Retry guidance:** {review.retry_guidance}"]
    return "\n".join(lines) + "\n"


@activity.defn(name="writing_quality_gate")
async def writing_quality_gate(inp: WritingTaskInput) -> TaskResult:
    persona = persona_text(inp.persona, inp.persona_file, inp.persona_text)
    variables, docs = base_variables(inp, persona)
    review, usage = await complete(QUALITY_GATE.name, QUALITY_GATE.prompt, variables, AuditResult, model=inp.model,
                                   role="auditor", offline_context={"state": inp.state, "inputs": len(docs)})
    return save_output(inp, review.model_dump_json(indent=2), "review", usage, content_type="application/json",
                       gate=review)


def _offline_gate(req: offline.OfflineRequest) -> dict:
    return {"issues": [], "feedback": f"{req.context.get('inputs', 0)} input(s) meet the bar.", "retry_guidance": "",
            "score": 7, "decision": "proceed"}


offline.register_responder("writing_quality_gate", _offline_gate)
