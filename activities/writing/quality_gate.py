"""Quality gate (state type `single`, §14): just an agent with a quality-gate persona; returns AuditResult."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once
from activities.llm import offline
from activities.writing.common import base_variables, persona_text, save_output
from models.writing.workflow import AuditResult, TaskResult, WritingTaskInput

QUALITY_GATE = AgentSpec("writing_quality_gate", "writing/quality_gate.md", AuditResult, tier="medium",
                         role="auditor", policy="long_agent",
                         description="Quality gate: score 1-10, proceed / retry (with guidance) / halt")


@QUALITY_GATE.activity
@completed_once
async def writing_quality_gate(inp: WritingTaskInput) -> TaskResult:
    persona = persona_text(inp.persona, inp.persona_file, inp.persona_text)
    variables, docs = base_variables(inp, persona)
    result = await QUALITY_GATE.run(variables, model=inp.model,
                                    offline_context={"state": inp.state, "inputs": len(docs)})
    review = result.output
    return await save_output(inp, review.model_dump_json(indent=2), "review", result.usage,
                       content_type="application/json", gate=review)


@QUALITY_GATE.offline
def _offline_gate(req: offline.OfflineRequest) -> dict:
    return {"issues": [], "feedback": f"{req.context.get('inputs', 0)} input(s) meet the bar.", "retry_guidance": "",
            "score": 7, "decision": "proceed"}

