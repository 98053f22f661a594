"""Payloads shared by every pipeline. These are durable contracts: add optional fields, never rename."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Generic, TypeVar

from pydantic import BaseModel, Field

T = TypeVar("T")

# Declared maxima of the doors (workflow inputs, signals, updates, HTTP bodies): every text and list a person or a
# page can send has one (tests/unit/platform/test_door_bounds.py checks every door model), and rules/inputs.py
# measures the whole encoded argument before any of it is used. Generous for real use, small for history.
MAX_ID_CHARS = 200           # ids, names of things, language codes, keys
MAX_NAME_CHARS = 1_000       # a title, a topic, a short label
MAX_LINE_CHARS = 4_000       # a reason, a goal, a note for the interviewer, one question
MAX_TEXT_CHARS = 64_000      # an answer, a query, a note (entries are further capped per interview)
MAX_DOC_CHARS = 500_000      # a whole document given at the start (a story, a context)
MAX_ITEMS = 200              # a list or mapping in an input (sections, questions, keywords, models, …)

IdStr = Annotated[str, Field(max_length=MAX_ID_CHARS)]
NameStr = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
LineStr = Annotated[str, Field(max_length=MAX_LINE_CHARS)]
TextStr = Annotated[str, Field(max_length=MAX_TEXT_CHARS)]
DocStr = Annotated[str, Field(max_length=MAX_DOC_CHARS)]


@dataclass(frozen=True)
class Carried:
    """`Annotated[...]` marker of the state a workflow carries into its next run (continue-as-new): written by the
    workflow's own model, so its input check (rules/inputs.py) does not walk it for unknown fields (a person's
    typo cannot be in it; a field an older version wrote is ignored) — at a study's scale that walk took seconds
    in the workflow sandbox. Its types are still validated."""


CARRIED = Carried()


@dataclass(frozen=True)
class Undecodable:
    """What the data converter (core/converter.py) hands a workflow for a payload it could not decode, instead of
    failing the workflow task: `reason` says why, in one line. rules/inputs.py refuses it like any bad input."""

    reason: str


# What every word the `offline` test double wrote carries wherever it is shown (artifacts, logs, tables, reports):
# = activities.llm.offline.OFFLINE_LABEL (a test checks). The gateway marks each call's result (`LLMUsage.offline`);
# everything built from a result carries that mark on and shows this label.
OFFLINE_LABEL = "[offline test double]"


def offline_labelled(text: str, offline: bool) -> str:
    """`text` with the offline label in front when the offline test double wrote it (never twice)."""
    if not offline or text.startswith(OFFLINE_LABEL):
        return text
    return f"{OFFLINE_LABEL} {text}" if text else OFFLINE_LABEL


class LLMUsage(BaseModel):
    """One LLM invocation as the gateway saw it (one per successful agent call). `offline`: the gateway's mark
    that the offline test double answered, not a model (activities/llm/gateway.py sets it from the resolved
    provider); every record built from this result carries it on."""

    agent: str
    model: str
    provider: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    queued_ms: float = Field(default=0.0, description="Waited for the model before the call: in the task queue "
                             "for an LLM worker slot, then in the worker for the provider (activities/llm/slots.py)")
    attempt: int = 1
    reasks: int = 0
    fallback_used: bool = False
    offline: bool = False
    context_window: int | None = None

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class TokenTotals(BaseModel):
    """Calls, tokens and cost summed: the one accumulator (a workflow's UsageTotals and its rows per agent, the
    writing pipeline's totals per model and state). Cost is kept rounded to 8 decimals."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def count(self, input_tokens: int, output_tokens: int, cost_usd: float) -> None:
        """One more call with these tokens and cost."""
        self.calls += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.cost_usd = round(self.cost_usd + cost_usd, 8)


class AgentTotals(TokenTotals):
    latency_ms: float = 0.0


class UsageTotals(TokenTotals):
    """Running totals kept in workflow state (small: one row per agent). `add(result.usage)` after each call."""

    by_agent: dict[IdStr, AgentTotals] = Field(default_factory=dict, max_length=1_000)

    def add(self, usage: LLMUsage) -> None:
        self.count(usage.input_tokens, usage.output_tokens, usage.cost_usd)
        row = self.by_agent.setdefault(usage.agent, AgentTotals())
        row.count(usage.input_tokens, usage.output_tokens, usage.cost_usd)
        row.latency_ms += usage.latency_ms

    def add_all(self, usages: Iterable[LLMUsage]) -> UsageTotals:
        for usage in usages:
            self.add(usage)
        return self


class AgentResult(BaseModel, Generic[T]):
    """What every agent activity returns: the validated output plus the usage record."""

    output: T
    usage: LLMUsage


class ArtifactRef(BaseModel):
    """A reference to a large text in the artifact store. Workflow history holds only these."""

    uri: LineStr
    name: NameStr
    sha256: IdStr
    size_bytes: int
    content_type: IdStr = "text/plain"
    created_at: datetime | None = None
    # Where a person opens it (e.g. `colloquy serve`'s essay URL when COLLOQUY_SERVE_URL is set), else None; the
    # uri is the store's (a file:// path on the worker's disk, or s3://), which a browser cannot open.
    url: LineStr | None = None


class PutArtifactInput(BaseModel):
    scope: str = Field(description="Usually the workflow id; groups a run's artifacts in one folder.")
    name: str = Field(description="File name inside the scope, e.g. 'essay.md'.")
    content: str
    content_type: str = "text/plain"


UsageTotals.model_rebuild()
