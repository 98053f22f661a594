"""Synthesizer (orchestrator-task `synthesize`): combines the best of the drafts that exist, guided by the audits
that exist (dynamic prompt, §3), plus retry guidance / human feedback and the previous post when revising."""

from __future__ import annotations

from pydantic import BaseModel
from temporalio.exceptions import ApplicationError

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once
from activities.llm import offline
from activities.writing.common import base_variables, persona_text, save_output
from activities.writing.prompts import preview
from models.writing.workflow import TaskResult, WritingTaskInput


class PostText(BaseModel):
    text: str


SYNTHESIZE = AgentSpec("writing_synthesize", "writing/synthesize.md", PostText, tier="high", role="writer",
                       policy="long_agent", free_text=True, max_tokens=1536,
                       description="Synthesizes the final post from the available drafts and audits")


@SYNTHESIZE.activity
@completed_once
async def writing_synthesize(inp: WritingTaskInput) -> TaskResult:
    persona = persona_text(inp.persona, inp.persona_file, inp.persona_text)
    variables, docs = base_variables(inp, persona)
    drafts = [(m, t) for m, k, t in docs if k == "draft"]
    if not drafts:
        raise ApplicationError(f"{inp.state}: no drafts available to synthesize", type="ValidationError",
                               non_retryable=True)
    text, usage = await SYNTHESIZE.run_text(variables, model=inp.model, offline_context={
                                     "drafts": [m for m, _ in drafts], "openings": [preview(t, 90) for _, t in drafts],
                                     "guidance": inp.guidance, "visit": inp.visit})
    if not str(text).strip():
        raise ApplicationError("the synthesizer returned an empty post", type="InvalidLLMOutput")
    return await save_output(inp, str(text), "post", usage)


@SYNTHESIZE.offline
def _offline_synthesis(req: offline.OfflineRequest) -> str:
    drafts = req.context.get("drafts") or []
    openings = req.context.get("openings") or []
    lines = [f"Synthesis {req.context.get('visit', 1)} of the drafts from {', '.join(drafts)}."]
    lines += [f"From {m}: {o}" for m, o in zip(drafts, openings, strict=False)]
    if req.context.get("guidance"):
        lines.append(f"Revised for: {preview(str(req.context['guidance']), 120)}")
    return "\n\n".join(lines)

