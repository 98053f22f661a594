"""Shared plumbing of the writing agents: personas, reading sources, saving outputs.

Writer models are litellm model ids given per run (`--models a,b,c`). One agent activity serves every model:
each call passes `model=inp.model` to its AgentSpec, which forces that model for the one call
(`activities.llm.config.config_for_call`), so the gateway's classification, re-ask, tracing and pricing all apply.

- a provider name (`local`, `ollama`, `offline`), in any profile: that provider, its model chosen by tier —
  for `ollama` the platform's GPU-aware NVML tiering with role writer (drafts) or auditor (audits);
- profile `offline`: the offline test double answers for every other model id (keyless demos and tests; the id
  is kept as the label, so usage and logs show which "model" wrote what);
- a full litellm id (`anthropic/claude-3-5-haiku-20241022`, `openai/gpt-4o-mini`, `ollama_chat/qwen2.5:7b`):
  the provider whose prefix matches, that exact model.
"""

from __future__ import annotations

import json
from typing import Any

from temporalio.exceptions import ApplicationError

from activities.agents.base import LAST_PROMPT
from activities.artifacts import put_patiently, store
from activities.llm import offline
from activities.writing.configs import PERSONA_DIR
from activities.writing.prompts import guidance_block, preview, prompt_sections, word_count
from models.common import ArtifactRef, LLMUsage
from models.writing.workflow import SourceDoc, TaskResult, WritingTaskInput

MAX_PERSONA_CHARS = 20_000


def persona_text(name: str, file: str | None = None, inline: str | None = None) -> str:
    """Inline persona text from the run input wins; else prompts/writing/personas/<file or name>.md."""
    if inline and inline.strip():
        return inline.strip()[:MAX_PERSONA_CHARS]
    filename = file or f"{name}.md"
    path = (PERSONA_DIR / filename).resolve()
    if not path.is_relative_to(PERSONA_DIR.resolve()) or not path.is_file():
        raise ApplicationError(f"persona {name!r}: file {filename} not found in {PERSONA_DIR}", type="ConfigError",
                               non_retryable=True)
    return path.read_text(encoding="utf-8").strip()


def read_sources(sources: list[SourceDoc]) -> list[tuple[str, str, str]]:
    """(model, kind, text) for every source, in order; the text read only now (the agents have finished)."""
    artifacts = store()
    return [(doc.model, doc.kind, artifacts.get(doc.ref)) for doc in sources]


def base_variables(inp: WritingTaskInput, role_persona: str) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
    docs = read_sources(inp.sources)
    story = store().get(inp.story)
    variables: dict[str, Any] = {
        "persona": role_persona, "story": story, "model": inp.model or "orchestrator", "state": inp.state,
        "guidance": guidance_block(inp.guidance),
        "previous_post": store().get(inp.previous_post) if inp.previous_post else "",
        **prompt_sections(docs),
    }
    return variables, docs


def labelled(text: str, content_type: str, usage: LLMUsage) -> str:
    """The artifact's text as saved: what the offline test double wrote says so (the call's `usage.offline`, set
    by the gateway) — markdown with the double's own label line (never on a heading's line), a JSON object with
    the double's own `_offline` key first. A real model's text is kept as it is."""
    if not usage.offline:
        return text
    if content_type == "application/json":
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            return json.dumps({"_offline": offline.OFFLINE_LABEL, **data}, indent=2, ensure_ascii=False)
    return offline.label_text(text)


async def save_output(inp: WritingTaskInput, text: str, kind: str, usage: LLMUsage,
                      content_type: str = "text/markdown", **structured: Any) -> TaskResult:
    """Each agent writes its own artifact (unique name per model/state/visit; atomic in the store), labelled when
    the offline test double wrote it (`labelled`), riding out an outage of the store (`put_patiently`): the model's
    answer is kept, not asked for again. The word count is the text's own."""
    words = word_count(text)
    text = labelled(text, content_type, usage)
    ref: ArtifactRef = await put_patiently(inp.run_id, inp.output_name, text, content_type)
    # the prompt this activity's agent call rendered (AgentSpec.complete), saved beside the output (agent logs)
    messages = LAST_PROMPT.get()
    prompt_ref = None
    if messages:
        prompt = "\n\n".join(f"## {m.get('role', 'user')}\n\n{m.get('content', '')}" for m in messages)
        prompt_ref = await put_patiently(inp.run_id, f"{inp.output_name.rsplit('.', 1)[0]}.prompt.md", prompt + "\n")
    return TaskResult(output_ref=ref, kind=kind, word_count=words, preview=preview(text), usage=usage,
                      prompt_ref=prompt_ref, **structured)


def story_context(story: str, limit: int = 1200) -> str:
    return story[:limit]
