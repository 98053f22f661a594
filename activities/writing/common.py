"""Shared plumbing of the writing agents: force a model per call, personas, reading sources, saving outputs.

Writer models are litellm model ids given per run (`--models a,b,c`). One agent activity serves every model:
the model is forced for that one call by handing the gateway a config whose agent override names it
(`gateway.complete(..., config=...)`), so the gateway's classification, re-ask, tracing and pricing all apply.

- a provider name (`local`, `ollama`, `offline`), in any profile: that provider, its model chosen by tier —
  for `ollama` the platform's GPU-aware NVML tiering with role writer (drafts) or auditor (audits);
- profile `offline`: the offline test double answers for every other model id (keyless demos and tests; the id
  is kept as the label, so usage and logs show which "model" wrote what);
- a full litellm id (`anthropic/claude-3-5-haiku-20241022`, `openai/gpt-4o-mini`, `ollama_chat/qwen2.5:7b`):
  the provider whose prefix matches, that exact model.
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel
from temporalio.exceptions import ApplicationError

from activities.agents.base import heartbeat, render_prompt
from activities.artifacts import store
from activities.llm import gateway
from activities.llm.config import AgentConfig, LLMConfig, current_config
from activities.writing.configs import PERSONA_DIR
from activities.writing.prompts import guidance_block, preview, prompt_sections, word_count
from models.common import ArtifactRef, LLMUsage
from models.writing import SourceDoc, TaskResult, WritingTaskInput

MAX_PERSONA_CHARS = 20_000
HEARTBEAT_EVERY_S = 5.0
# The prompt rendered by this activity's `complete` call, saved beside its output by `save_output` (agent logs).
_PROMPT: ContextVar[list[dict[str, Any]] | None] = ContextVar("writing_prompt", default=None)


def provider_for(model: str, cfg: LLMConfig) -> str:
    """The configured provider whose litellm prefix starts `model` (the default provider preferred)."""
    names = [cfg.default_provider] + [n for n in cfg.providers if n != cfg.default_provider]
    for name in names:
        prov = cfg.providers.get(name)
        if prov and model.startswith(prov.prefix):
            return name
    return cfg.default_provider


def llm_config_for(agent: str, model: str | None, role: str) -> LLMConfig:
    """The effective LLM config with `agent` forced to `model` (None: the tiered default) and `role`."""
    cfg = current_config()
    override = (cfg.agents.get(agent) or AgentConfig()).model_copy(update={"role": role})
    if model:
        if model in cfg.providers:  # an explicit provider name wins in any profile
            override = override.model_copy(update={"provider": model, "model": None})
        elif cfg.default_provider == "offline":
            override = override.model_copy(update={"provider": "offline", "model": model})
        else:
            override = override.model_copy(update={"provider": provider_for(model, cfg), "model": model})
    agents = dict(cfg.agents)
    agents[agent] = override
    return cfg.model_copy(update={"agents": agents})


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



async def complete(agent: str, template: str, variables: dict[str, Any], output_model: type[BaseModel] | None,
                   *, model: str | None, role: str, offline_context: dict[str, Any]) -> tuple[Any, LLMUsage]:
    messages = render_prompt(template, variables)
    _PROMPT.set(messages)
    detail = f"{agent}: calling {model or 'default model'}"
    heartbeat(detail)
    call = asyncio.ensure_future(gateway.complete(agent, messages, output_model, offline_context=offline_context,
                                                  config=llm_config_for(agent, model, role)))
    try:
        # keep heartbeating while the model works: a branch the workflow timed out learns of its
        # cancellation from a heartbeat response and stops paying for tokens
        while not call.done():
            await asyncio.wait({call}, timeout=HEARTBEAT_EVERY_S)
            heartbeat(detail)
        return call.result()
    finally:
        if not call.done():
            call.cancel()


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


def save_output(inp: WritingTaskInput, text: str, kind: str, usage: LLMUsage, content_type: str = "text/markdown",
                **structured: Any) -> TaskResult:
    """Each agent writes its own artifact (unique name per model/state/visit; atomic in the store)."""
    ref: ArtifactRef = store().put(inp.run_id, inp.output_name, text, content_type)
    messages = _PROMPT.get()
    prompt_ref = None
    if messages:
        prompt = "\n\n".join(f"## {m.get('role', 'user')}\n\n{m.get('content', '')}" for m in messages)
        prompt_ref = store().put(inp.run_id, f"{inp.output_name.rsplit('.', 1)[0]}.prompt.md", prompt + "\n")
    return TaskResult(output_ref=ref, kind=kind, word_count=word_count(text), preview=preview(text), usage=usage,
                      prompt_ref=prompt_ref, **structured)


def story_context(story: str, limit: int = 1200) -> str:
    return story[:limit]
