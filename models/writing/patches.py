"""WritingWorkflow's patch ids (see models/patches/__init__.py); the workflow asks each once (`_new`)."""

from __future__ import annotations

from datetime import date

from models.patches.registry import declare

_SHIPPED = date(2026, 11, 26)
_GATED = ("writing_gated_two_rejections", "writing_gated")


def _declare(id: str, pinned_by: tuple[str, ...], what: str) -> str:
    return declare("writing", id, pinned_by, _SHIPPED, what)


HUMAN = _declare("writing-human-decision-is-final", _GATED, "approval loops counted apart; no forced rejected post")
REJECT = _declare("writing-reject-needs-feedback", _GATED, "reject without text is refused, not an abort")
BUDGET = _declare("writing-budget-checked-per-call", _GATED, "hard cost/token limits after every fan-out call")
RETRY = _declare("writing-retry-is-not-a-revisit", _GATED, "in-place state retries; retry edges never make a cycle")
RULES = _declare("writing-breaker-rules-merge-defaults", _GATED,
                 "listed breaker rules override the defaults, the rest keep theirs")
STATUS = _declare("writing-early-failure-status", ("writing_gated", "writing_default"),
                  "failures before the first state show as failed")
SCORE = _declare("writing-final-score-and-floor", _GATED, "final score = last final-audit visit; score floor")
DUPES = _declare("writing-duplicate-models-refused", ("writing_gated_two_rejections",),
                 "the same model id twice fails the start, not folded")
PUBLISH = _declare("writing-human-publishes", _GATED + ("writing_gated_forced_unapproved",),
                   "in a config with human approval only an approved, synthesised and audited post completes; "
                   "a forced end is `forced` (not approved) with the last approved post")
AGENT_TIMEOUT = _declare("writing-agent-timeout-as-configured", _GATED + ("writing_default",),
                         "timeout_per_agent fires when configured (the recovery bound is not added)")
