"""One agent = one declaration: name, prompt file, output model, tier, policy kind, token budget, heartbeat.

    NOTE_TAKER = AgentSpec("interview_note_taker", "interview/note_taker.md", NotesState, tier="low",
                           policy="live_agent", description="Interview: extracts ideas ... live")

    @NOTE_TAKER.activity                      # the Temporal activity, named NOTE_TAKER.name
    async def interview_note_taker(inp: NoteTakerInput) -> AgentResult[NotesState]:
        return await NOTE_TAKER.run({"window": ..., "notes": ...}, offline_context={...})

    @NOTE_TAKER.offline                       # the offline test double's default answer, under the same name
    def _offline_notes(req: offline.OfflineRequest) -> NotesState: ...

The name is the activity type, the config key (`llm.agents.<name>`, `COLLOQUY_MODEL_<NAME>`) and the offline
responder's key; the policy kind (a key of rules/policies.py POLICIES) is what `workflows.calls.call_agent`
schedules the activity with, on the `<queue>-llm` task queue. Every call goes through `gateway.complete()` and
keeps heartbeating while the model works, so an activity the workflow cancelled stops its LLM call.

One naming rule for agent, module and prompt: an agent `<P>_<role>` of pipeline P lives in
`activities/<P>/<role>.py` (declaration, activities, fallback, offline responder; input/output models there
too unless they are contracts in `models/`) with its prompt in `prompts/<P>/<role>.md`. The query pipeline's agents keep their historical names
without a prefix (the name is the role: `route_input` is activities/query/route_input.py and
prompts/query/route_input.md), and so does the platform's own `model_check` (activities/platform/model_check.py,
prompts/platform/model_check.md). Names never change (they are activity types in recorded histories): a module or
prompt that does not fit is renamed instead. tests/unit/platform/test_agents.py checks the rule.

Registration is derived from the declarations: a pipeline's `activities/<pipeline>/__init__.py` imports its agent
modules and sets `LLM_ACTIVITIES = agent_activities(__name__)`, every activity declared with `@SPEC.activity` there.

Prompt files are Jinja2 templates in `prompts/` with a `[system]` part and a `[user]` part, loaded from the
`prompts` package (package data, through importlib: core/resources.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Generic, TypeVar

import jinja2
from pydantic import BaseModel
from temporalio import activity as temporal_activity
from temporalio.exceptions import ApplicationError

from activities.llm import gateway, offline
from activities.llm.config import Tier, config_for_call, register_agent
from models.common import AgentResult, LLMUsage
from rules.policies import POLICIES

Out = TypeVar("Out", bound=BaseModel)
F = TypeVar("F", bound=Callable[..., Any])

#: While a model works, the activity heartbeats this often (a cancelled activity learns of it from a heartbeat).
HEARTBEAT_EVERY_S = 5.0
#: The messages the latest agent call of this activity (its task's context) sent; writing saves them beside its
#: output (agent logs with prompt refs).
LAST_PROMPT: ContextVar[list[dict[str, str]] | None] = ContextVar("colloquy_last_prompt", default=None)
#: The attribute an agent activity carries: the AgentActivity that `call_agent` schedules it with.
AGENT_ATTR = "__colloquy_agent__"

_env = jinja2.Environment(
    loader=jinja2.PackageLoader("prompts", "."), undefined=jinja2.StrictUndefined,
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


def heartbeat(detail: str) -> None:
    """Heartbeat from inside an activity; a no-op outside one (unit tests call agents directly)."""
    try:
        temporal_activity.heartbeat(detail)
    except RuntimeError:
        pass


#: Every declared agent by name (filled at import, like the config's AGENT_REGISTRY).
AGENTS: dict[str, AgentSpec[Any]] = {}


@dataclass(frozen=True)
class AgentActivity:
    """What an agent activity is scheduled with: its agent and policy kind (LLM task queue)."""

    spec: AgentSpec[Any]
    policy: str


@dataclass(frozen=True)
class AgentSpec(Generic[Out]):
    """The one declaration of an agent. See the module docstring for the shape."""

    name: str
    prompt: str
    output_model: type[Out]
    tier: Tier = "medium"
    role: str = "writer"
    #: rules/policies.py kind the workflow schedules it with: live_agent | fast_agent | agent | long_agent
    policy: str = "agent"
    #: max_tokens of each call (None: sized to the output schema by the gateway, or its TEXT_BUDGET for free
    #: text); `llm.agents.<name>.max_tokens` in the config overrides it
    max_tokens: int | None = None
    #: the activity calls `run_text` (essays, drafts, turns): `output_model` only names the shape
    free_text: bool = False
    #: heartbeat this often while the model works (None: once, before the call)
    heartbeat_every_s: float | None = HEARTBEAT_EVERY_S
    description: str = ""
    _activity_fn: list[Callable[..., Any]] = field(default_factory=list, init=False, repr=False, compare=False)
    #: every activity declared with this agent, by activity name, in declaration order (its own and any further)
    _activities: dict[str, Callable[..., Any]] = field(default_factory=dict, init=False, repr=False,
                                                       compare=False)

    def __post_init__(self) -> None:
        if self.policy not in POLICIES or not self.policy.endswith("agent"):
            raise ValueError(f"agent {self.name}: policy {self.policy!r} is not an agent kind of rules/policies.py "
                             f"({', '.join(k for k in POLICIES if k.endswith('agent'))})")
        register_agent(self.name, tier=self.tier, role=self.role, description=self.description)
        AGENTS[self.name] = self

    # ------------------------------------------------------------------------------------ declaration
    def activity(self, fn: F | None = None, *, name: str | None = None,
                 policy: str | None = None) -> Any:
        """Decorator: `fn` becomes the Temporal activity named after the agent (`@SPEC.activity`).

        `@SPEC.activity(name="parse_log_batch", policy="long_agent")` declares a further activity that calls
        this agent several times (its own activity name and policy kind)."""
        kind = policy or self.policy
        if kind not in POLICIES:
            raise ValueError(f"agent {self.name}: unknown policy kind {kind!r}")

        def wrap(f: F) -> F:
            defined = temporal_activity.defn(name=name or self.name)(f)
            setattr(defined, AGENT_ATTR, AgentActivity(self, kind))
            if name is None or name == self.name:
                self._activity_fn[:] = [defined]
            self._activities[name or self.name] = defined
            return defined

        return wrap(fn) if fn is not None else wrap

    def offline(self, responder: Callable[[offline.OfflineRequest], Any]) -> Callable[[offline.OfflineRequest], Any]:
        """Decorator: the offline test double's deterministic default answer for this agent."""
        offline.register_responder(self.name, responder)
        return responder

    @property
    def activity_fn(self) -> Callable[..., Any]:
        if not self._activity_fn:
            raise LookupError(f"agent {self.name} has no activity: decorate one with @{self.name.upper()}.activity")
        return self._activity_fn[0]

    @property
    def activities(self) -> list[Callable[..., Any]]:
        """Every activity declared with `@SPEC.activity`: the agent's own and any further (`parse_log_batch`)."""
        return list(self._activities.values())

    # ------------------------------------------------------------------------------------------ calls
    async def run(self, variables: dict[str, Any], *, offline_context: dict[str, Any] | None = None,
                  model: str | None = None, temperature: float | None = None,
                  schema: dict[str, Any] | None = None) -> AgentResult[Out]:
        """Structured call: the validated output model plus usage. `schema`: this call's narrower JSON schema
        of the output model (what the model is constrained to; gateway.complete)."""
        output, usage = await self.complete(variables, self.output_model, offline_context=offline_context,
                                            model=model, temperature=temperature, schema=schema)
        assert isinstance(output, self.output_model)
        return AgentResult[self.output_model](output=output, usage=usage)  # type: ignore[name-defined]

    async def run_text(self, variables: dict[str, Any], *, offline_context: dict[str, Any] | None = None,
                       model: str | None = None, temperature: float | None = None,
                       require_text: bool = False) -> tuple[str, LLMUsage]:
        """Free-text call (essays, drafts, discussion turns): (text, usage). `require_text`: an empty answer is
        a retryable InvalidLLMOutput."""
        text, usage = await self.complete(variables, None, offline_context=offline_context, model=model,
                                          temperature=temperature)
        if require_text and not str(text).strip():
            raise ApplicationError(f"{self.name}: model {usage.model} returned an empty answer",
                                   type=gateway.INVALID_OUTPUT)
        return str(text), usage

    async def complete(self, variables: dict[str, Any], output_model: type[BaseModel] | None, *,
                       offline_context: dict[str, Any] | None = None, model: str | None = None,
                       model_of: str | None = None, temperature: float | None = None,
                       schema: dict[str, Any] | None = None) -> tuple[Any, LLMUsage]:
        """The one agent call path: render the prompt, force the per-call `model` if any (with this agent's
        role), call the gateway and heartbeat until it answers. `model_of`: use another agent's model."""
        return await self.call(render_prompt(self.prompt, variables), output_model,
                               offline_context=offline_context, model=model, model_of=model_of,
                               temperature=temperature, schema=schema)

    async def call(self, messages: list[dict[str, str]], output_model: type[BaseModel] | None, *,
                   offline_context: dict[str, Any] | None = None, model: str | None = None,
                   model_of: str | None = None, temperature: float | None = None,
                   schema: dict[str, Any] | None = None) -> tuple[Any, LLMUsage]:
        """`complete` with messages already built (the model check's representative prompts)."""
        LAST_PROMPT.set(messages)
        detail = f"{self.name}: calling {model or 'the configured model'}"
        config = config_for_call(self.name, model, role=self.role) if model else None
        call = asyncio.ensure_future(gateway.complete(
            self.name, messages, output_model, offline_context=offline_context, temperature=temperature,
            max_tokens=self.max_tokens, config=config, model_of=model_of, schema=schema))
        try:
            # keep heartbeating while the model works: an activity the workflow cancelled (a timed-out branch)
            # learns of its cancellation from a heartbeat response and stops paying for tokens. A call that
            # answers within heartbeat_every_s sends none (each one is a request to the server: at hundreds of
            # live sessions, two per call were a fair share of the server's work)
            while not call.done():
                await asyncio.wait({call}, timeout=self.heartbeat_every_s)
                if self.heartbeat_every_s is not None and not call.done():
                    heartbeat(detail)
            return call.result()
        finally:
            if not call.done():
                call.cancel()


def agent_activity(fn: Any) -> AgentActivity | None:
    """The agent declaration an activity function (or an AgentSpec) is scheduled with, if it is an agent."""
    if isinstance(fn, AgentSpec):
        return AgentActivity(fn, fn.policy)
    found = getattr(fn, AGENT_ATTR, None)
    return found if isinstance(found, AgentActivity) else None


def agent_activities(package: str) -> list[Any]:
    """Every activity declared through an AgentSpec in a module of `package` ("activities.query"), in declaration
    order: a pipeline's `LLM_ACTIVITIES`, what the LLM worker registers. Only modules already imported have
    declared theirs, so a pipeline's `__init__` imports its agent modules first (tests/unit/platform/test_agents.py
    checks that every declared agent is registered)."""
    prefix = f"{package}."
    return [fn for spec in AGENTS.values() for fn in spec.activities
            if fn.__module__ == package or fn.__module__.startswith(prefix)]
