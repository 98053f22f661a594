"""The worker's per-call savings keep behaviour (issue 40): the schema copy is a faithful deep copy, the shared
schema is never edited by a call, an in-process answer is priced at $0 without litellm's lookup, and with no
exporter no tracing interceptor is made."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from activities.llm import gateway, offline
from activities.llm.answers import free_of_charge
from activities.llm.schema import json_copy, shared_json_schema
from models.interview.notes import OrchestratorDecision

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=30)


@given(JSON)
def test_json_copy_is_an_independent_deep_copy(value):
    copied = json_copy(value)
    assert copied == copy.deepcopy(value)
    if isinstance(value, (dict, list)) and value:
        assert copied is not value
        if isinstance(copied, dict):
            copied.clear()
        else:
            copied.append("edited")
        assert value != copied


async def test_calls_leave_the_shared_schema_as_it_was(monkeypatch):
    monkeypatch.setenv("COLLOQUY_PROFILE", "offline")
    offline.reset()
    before = copy.deepcopy(shared_json_schema(OrchestratorDecision))
    for _ in range(3):
        await gateway.complete("interview_orchestrator", [{"role": "user", "content": "Go on."}], OrchestratorDecision)
    assert shared_json_schema(OrchestratorDecision) == before


async def test_an_offline_answer_is_priced_at_zero_by_stamp(monkeypatch):
    monkeypatch.setenv("COLLOQUY_PROFILE", "offline")
    offline.reset()
    import litellm.cost_calculator

    def no_lookup(*args, **kwargs):  # noqa: ANN002, ANN003
        raise AssertionError("litellm priced an in-process answer")

    monkeypatch.setattr(litellm.cost_calculator, "completion_cost", no_lookup)
    _, usage = await gateway.complete("interview_orchestrator", [{"role": "user", "content": "Go on."}],
                                      OrchestratorDecision)
    assert usage.cost_usd == 0.0


def test_free_of_charge_stamps_only_a_provider_configured_local():
    from activities.llm.answers import FREE_OF_CHARGE

    class Answer:
        def __init__(self) -> None:
            self._hidden_params: dict = {}

    assert free_of_charge(Answer(), {"metadata": {FREE_OF_CHARGE: True}})._hidden_params == {"response_cost": 0.0}
    assert free_of_charge(Answer(), {"metadata": {FREE_OF_CHARGE: False}})._hidden_params == {}
    assert free_of_charge(Answer(), None)._hidden_params == {}
    assert free_of_charge(object(), {"metadata": {FREE_OF_CHARGE: True}}) is not None


@pytest.mark.parametrize(("exporter", "expected"), [("none", 0), ("", 0)])
def test_no_exporter_no_interceptor(monkeypatch, exporter, expected):
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    from core import telemetry

    if isinstance(trace.get_tracer_provider(), TracerProvider):
        pytest.skip("an SDK tracer provider is already set in this process (an earlier test)")
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", exporter)
    monkeypatch.setattr(telemetry, "_configured", False)
    assert len(telemetry.tracing_interceptors()) == expected
    assert telemetry.configure_tracing() is None
