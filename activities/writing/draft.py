"""Draft writer (fan-out state `draft`): one activity call per writer model, each draft its own artifact."""

from __future__ import annotations

from pydantic import BaseModel
from temporalio.exceptions import ApplicationError

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once
from activities.llm import offline
from activities.writing.common import base_variables, persona_text, save_output, story_context
from activities.writing.prompts import preview
from models.writing.workflow import TaskResult, WritingTaskInput


class DraftText(BaseModel):  # free-text agent (run_text); the spec names a model class all the same
    text: str


DRAFT = AgentSpec("writing_draft", "writing/draft.md", DraftText, tier="medium", role="writer",
                  policy="long_agent", free_text=True, max_tokens=1536,
                  description="Writes one draft of the post from the story (one call per writer model)")


@DRAFT.activity
@completed_once
async def writing_draft(inp: WritingTaskInput) -> TaskResult:
    persona = persona_text(inp.persona, inp.persona_file, inp.persona_text)
    variables, _ = base_variables(inp, persona)
    text, usage = await DRAFT.run_text(variables, model=inp.model,
                                       offline_context={"model": inp.model, "story": story_context(variables["story"]),
                                                        "guidance": inp.guidance, "visit": inp.visit})
    if not str(text).strip():
        raise ApplicationError(f"{inp.model} returned an empty draft", type="InvalidLLMOutput")
    return await save_output(inp, str(text), "draft", usage)


@DRAFT.offline
def _offline_draft(req: offline.OfflineRequest) -> str:
    """Deterministic demo draft: the story's own sentences, re-ordered hook first, labelled by model."""
    story = str(req.context.get("story") or "")
    sentences = [s.strip() for s in story.replace("\n", " ").split(".") if s.strip()]
    hook = sentences[-1] if sentences else "The story starts here"
    body = ". ".join(sentences[:6]) or preview(story, 200)
    note = f" (revised: {preview(str(req.context['guidance']), 80)})" if req.context.get("guidance") else ""
    return f"{hook}.\n\n{body}.\n\nDraft {req.context.get('visit', 1)} by {req.context.get('model')}{note}."

