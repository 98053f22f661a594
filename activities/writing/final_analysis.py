"""Final analysis (orchestrator-task `final-analysis`): reviews every final audit, scores, determines."""

from __future__ import annotations

from temporalio.exceptions import ApplicationError

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once
from activities.llm import offline
from activities.writing.common import base_variables, persona_text, save_output
from models.writing.workflow import FinalAnalysis, TaskResult, WritingTaskInput

FINAL_ANALYSIS = AgentSpec("writing_final_analysis", "writing/final_analysis.md", FinalAnalysis, tier="high",
                           role="auditor", policy="long_agent",
                           description="Reviews all final audits and makes the final determination")


def render_analysis(analysis: FinalAnalysis) -> str:
    lines = ["# Final analysis", "", f"**Determination:** {analysis.determination} · "
             f"score {analysis.final_score:g}/10", "", analysis.summary, ""]
    lines += [f"- {s}" for s in analysis.suggestions]
    return "\n".join(lines) + "\n"


@FINAL_ANALYSIS.activity
@completed_once
async def writing_final_analysis(inp: WritingTaskInput) -> TaskResult:
    persona = persona_text(inp.persona, inp.persona_file, inp.persona_text)
    variables, docs = base_variables(inp, persona)
    audits = [t for _, k, t in docs if k == "final_audit"]
    if not audits:
        raise ApplicationError(f"{inp.state}: no final audits to analyse", type="ValidationError", non_retryable=True)
    result = await FINAL_ANALYSIS.run(variables, model=inp.model,
                                      offline_context={"audits": len(audits), "auditors": variables["auditor_list"]})
    return await save_output(inp, render_analysis(result.output), "analysis", result.usage, analysis=result.output)


@FINAL_ANALYSIS.offline
def _offline_analysis(req: offline.OfflineRequest) -> dict:
    return {"summary": f"Reviewed {req.context.get('audits', 0)} final audit(s) from "
                       f"{req.context.get('auditors') or 'the auditors'}; the post is ready.",
            "suggestions": ["Add one more sensory detail."], "final_score": 8.0, "determination": "ready"}

