"""One agent = a spec (name, prompt file, output model, tier) + one call through the gateway.

    NOTE_TAKER = AgentSpec("note_taker", "interview/note_taker.md", NotesUpdate, tier="low")

    @activity.defn(name="note_taker")
    async def note_taker(inp: NoteTakerInput) -> AgentResult[NotesUpdate]:
        return await NOTE_TAKER.run({"window": ..., "notes": ...}, offline_context={...})

Prompt files are Jinja2 templates in `prompts/` with a `[system]` part and a `[user]` part.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, TypeVar

import jinja2
from pydantic import BaseModel
from temporalio import activity

from activities.llm import gateway
from activities.llm.config import Tier, register_agent
from core.settings import PROMPTS_DIR
from models.common import AgentResult

Out = TypeVar("Out", bound=BaseModel)

_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(PROMPTS_DIR)), undefined=jinja2.StrictUndefined,
    trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False, autoescape=False,
)


@cache
def _template(name: str) -> jinja2.Template:
    return _env.get_template(name)


def render_prompt(template: str, variables: dict[str, Any]) -> list[dict[str, str]]:
    """Render a prompt file into chat messages. `[system]` / `[user]` lines start each part."""
    text = _template(template).render(**variables)
    parts: dict[str, list[str]] = {}
    current = "user"
    for line in text.splitlines():
        stripped = line.strip()
        if stripped in ("[system]", "[user]"):
            current = stripped[1:-1]
            continue
        parts.setdefault(current, []).append(line)
    messages = []
    for role in ("system", "user"):
        if role in parts and "\n".join(parts[role]).strip():
            messages.append({"role": role, "content": "\n".join(parts[role]).strip()})
    return messages


@dataclass(frozen=True)
class AgentSpec(Generic[Out]):
    name: str
    prompt: str
    output_model: type[Out]
    tier: Tier = "medium"
    role: str = "writer"
    description: str = ""

    def __post_init__(self) -> None:
        register_agent(self.name, tier=self.tier, role=self.role, description=self.description)

    async def run(self, variables: dict[str, Any], *, offline_context: dict[str, Any] | None = None,
                  temperature: float | None = None, max_tokens: int | None = None) -> AgentResult[Out]:
        messages = render_prompt(self.prompt, variables)
        heartbeat(f"{self.name}: calling model")
        output, usage = await gateway.complete(self.name, messages, self.output_model,
                                               offline_context=offline_context, temperature=temperature,
                                               max_tokens=max_tokens)
        assert isinstance(output, self.output_model)
        return AgentResult[self.output_model](output=output, usage=usage)  # type: ignore[name-defined]

    async def run_text(self, variables: dict[str, Any], *, offline_context: dict[str, Any] | None = None,
                       temperature: float | None = None, max_tokens: int | None = None):
        """For free-text agents (essays, drafts): returns (text, usage)."""
        messages = render_prompt(self.prompt, variables)
        heartbeat(f"{self.name}: calling model")
        return await gateway.complete(self.name, messages, None, offline_context=offline_context,
                                      temperature=temperature, max_tokens=max_tokens)


def heartbeat(detail: str) -> None:
    """Heartbeat from inside an activity; a no-op outside one (unit tests call agents directly)."""
    try:
        activity.heartbeat(detail)
    except RuntimeError:
        pass
