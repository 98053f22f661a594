"""The one usage accumulator and the one search-attribute helper."""

from __future__ import annotations

import pytest

from core import search_attributes as sa
from models.common import LLMUsage, UsageTotals
from models.writing.workflow import Invocation
from rules.writing.accounting import run_totals


def _usage(agent: str, tin: int, tout: int, cost: float) -> LLMUsage:
    return LLMUsage(agent=agent, model="m", provider="offline", input_tokens=tin, output_tokens=tout, cost_usd=cost,
                    latency_ms=10)


def test_usage_totals_sum_per_run_and_per_agent_with_the_same_payload_shape():
    totals = UsageTotals().add_all([_usage("a", 1, 2, 0.1), _usage("b", 3, 4, 0.2), _usage("a", 5, 6, 0.000000001)])
    assert (totals.calls, totals.input_tokens, totals.output_tokens, totals.total_tokens) == (3, 9, 12, 21)
    assert totals.cost_usd == pytest.approx(0.3)
    assert totals.by_agent["a"].calls == 2 and totals.by_agent["a"].latency_ms == 20
    assert list(totals.model_dump()) == ["calls", "input_tokens", "output_tokens", "cost_usd", "by_agent"]
    assert list(totals.by_agent["a"].model_dump()) == ["calls", "input_tokens", "output_tokens", "cost_usd",
                                                       "latency_ms"]


def test_writing_totals_use_the_same_accumulator():
    from datetime import UTC, datetime

    invs = [Invocation(seq=n, state="draft", visit=1, task="draft", agent="writing_draft", model="m",
                       started_at=datetime(2025, 1, 1, tzinfo=UTC), duration_s=1.0,
                       status="success" if n else "failed", input_tokens=10, output_tokens=5, cost_usd=0.01)
            for n in range(3)]
    totals = run_totals(invs)
    assert (totals.invocations, totals.calls, totals.succeeded, totals.total_tokens) == (3, 3, 2, 45)
    assert totals.cost_usd == pytest.approx(0.03)


def test_search_attribute_updates_keep_the_given_order_and_skip_empty_values():
    got = sa.updates(pipeline="rehearsal", status="running", topic="x" * 300, phase=None)
    assert [u.key.name for u in got] == ["ColloquyPipeline", "ColloquyStatus", "ColloquyTopic"]
    assert [u.value for u in got] == ["rehearsal", "running", "x" * sa.MAX_TOPIC_CHARS]
    assert [u.key.name for u in sa.updates(status="done", pipeline="q")] == ["ColloquyStatus", "ColloquyPipeline"]
    with pytest.raises(TypeError, match="colour"):
        sa.updates(colour="red")
