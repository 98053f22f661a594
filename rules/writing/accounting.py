"""Token and cost accounting (§6): per-invocation cost, context-window health, totals by agent and by state."""

from __future__ import annotations

from collections.abc import Iterable

from models.common import LLMUsage, TokenTotals
from models.writing.workflow import Invocation, WorkflowConfig

# Context windows of a few well-known families, used only when the config does not say (seed agents.*).
KNOWN_WINDOWS = (("claude", 200_000), ("gemini", 1_000_000), ("gpt-4o", 128_000), ("gpt-4", 128_000),
                 ("llama3.1", 131_072), ("qwen2.5", 32_768), ("phi3", 4_096), ("smollm2", 8_192),
                 ("offline", 8_192))


def context_window_for(cfg: WorkflowConfig, model: str) -> int:
    settings = cfg.agents.get(model)
    if settings and settings.context_window:
        return settings.context_window
    lowered = model.lower()
    for family, window in KNOWN_WINDOWS:
        if family in lowered:
            return window
    return cfg.settings.default_context_window


def invocation_cost(cfg: WorkflowConfig, model: str, usage: LLMUsage) -> float:
    """The config's price (seed `cost_per_1k`) when it names one for this model, else the gateway's cost."""
    settings = cfg.agents.get(model)
    if settings and settings.cost_per_1k is not None:
        price = settings.cost_per_1k
        return round(usage.input_tokens / 1000 * price.input + usage.output_tokens / 1000 * price.output, 8)
    return round(usage.cost_usd, 8)


def context_status(percent: float) -> str:
    """§6 get_recommendation, as a status word."""
    if percent > 90:
        return "critical"
    if percent > 80:
        return "warning"
    if percent > 60:
        return "moderate"
    return "healthy"


RECOMMENDATION = {
    "critical": "Critical: Consider summarizing context or starting new session",
    "warning": "Warning: Context window filling up",
    "moderate": "Note: Context usage moderate",
    "healthy": "Healthy: Plenty of context remaining",
}


def context_use(used_tokens: int, window: int) -> tuple[float, str]:
    percent = round(100.0 * used_tokens / window, 2) if window else 0.0
    return percent, context_status(percent)


def session_context(invocations: Iterable[Invocation], model: str) -> tuple[int, int, float]:
    """§6 SessionTokens: one model's cumulative tokens over the run (its session) against its context window.
    Returns (tokens used, window, percent)."""
    invs = [i for i in invocations if i.model == model]
    used = sum(i.total_tokens for i in invs)
    window = max((i.context_window for i in invs), default=0)
    return used, window, round(100.0 * used / window, 2) if window else 0.0


class Totals(TokenTotals):
    """Totals over invocations (failed ones included, as calls): the platform's accumulator plus success,
    duration and the fullest context window."""

    succeeded: int = 0
    duration_s: float = 0.0
    max_context_pct: float = 0.0

    @property
    def invocations(self) -> int:
        return self.calls

    def add(self, inv: Invocation) -> None:
        self.count(inv.input_tokens, inv.output_tokens, inv.cost_usd)
        self.succeeded += 1 if inv.success else 0
        self.duration_s = round(self.duration_s + inv.duration_s, 3)
        self.max_context_pct = max(self.max_context_pct, inv.context_used_pct)


def run_totals(invocations: Iterable[Invocation]) -> Totals:
    totals = Totals()
    for inv in invocations:
        totals.add(inv)
    return totals


def totals_by(invocations: Iterable[Invocation], key: str) -> dict[str, Totals]:
    """Totals grouped by an Invocation attribute: 'model' (the seed's agent), 'state' or 'agent'."""
    groups: dict[str, Totals] = {}
    for inv in invocations:
        groups.setdefault(str(getattr(inv, key)), Totals()).add(inv)
    return groups


def offline_run(invocations: Iterable[Invocation]) -> bool:
    """Whether the offline test double answered any call of the run (each invocation carries its result's mark)."""
    return any(i.offline for i in invocations)
