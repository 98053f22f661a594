"""Bad input, LLM garbage, provider outages and storage failures: clear messages, and no data lost."""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowFailureError

from activities.llm.offline import Fault
from tests.workflows.query.helpers import (
    analysis,
    answer,
    evaluation,
    finding,
    no_update,
    plan,
    route,
    start,
    unlabelled,
)


async def _failure(handle) -> str:  # noqa: ANN001
    with pytest.raises(WorkflowFailureError) as info:
        await handle.result()
    cause = info.value.cause
    return getattr(cause, "message", str(cause))


async def test_empty_and_oversized_inputs_fail_clearly_and_store_nothing(ts_env, worker, offline, notes):
    async with worker(ts_env.client) as queue:
        empty = await _failure(await start(ts_env, queue, "   ", notes))
        huge = await _failure(await start(ts_env, queue, "x" * 20_001, notes))
    assert empty == "the input is empty: write a note or a question"
    assert "20001 characters, over the 20000 limit" in huge
    assert offline.calls() == []
    assert not (notes / "logs/raw/2026/01/2026-01-16.md").exists()


async def test_llm_garbage_is_reasked_then_retried_by_temporal(ts_env, worker, offline, notes):
    q = "Show me last week's workouts"
    offline.script("route_input", Fault(kind="invalid_json"), route("query", ["strength"]))  # one re-ask fixes it
    offline.script("plan_query", plan(q, qtype="simple"))
    # Garbage twice in one attempt → InvalidLLMOutput (retryable) → Temporal's second attempt succeeds.
    offline.script("analyze_evidence", Fault(kind="wrong_schema"), Fault(kind="invalid_json"),
                   analysis("sufficient", [finding("bench on Jan 5", "2026-01-05#1")]))
    offline.script("synthesize_answer", answer("Bench on Jan 5.", ["2026-01-05#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, q, notes)).result()
    assert unlabelled(result.response) == "Bench on Jan 5." and not result.partial
    assert len(offline.calls("analyze_evidence")) == 3
    assert result.usage.by_agent["route_input"].calls == 1


async def test_parser_outage_keeps_the_note_as_written(ts_env, worker, offline, notes):
    text = "Bench 200x1, new PR"
    offline.script("route_input", route("log", ["strength"]))
    offline.script("parse_log", *[Fault(kind="server_error")] * 4)  # every attempt of the "agent" policy
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, text, notes)).result()
    assert result.path == ["ROUTE", "BUILD_CONTEXT", "PARSE", "STORE", "OBSERVE", "COMPLETE"]
    assert "the Parser failed" in result.warnings[0] and "unavailable" in result.warnings[0]
    assert "Bench 200x1, new PR" in (notes / "logs/raw/2026/01/2026-01-16.md").read_text()
    assert len(offline.calls("parse_log")) == 4


async def test_permanent_provider_error_gives_a_partial_answer_with_the_reason(ts_env, worker, offline, notes):
    q = "Why did my bench feel heavy last week?"
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(q))
    offline.script("analyze_evidence", analysis("sufficient", [finding("heavy on Jan 9", "2026-01-09#1")]))
    offline.script("synthesize_answer", Fault(kind="auth"))
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, q, notes)).result()
    assert result.partial
    assert "authentication failed" in result.response and "synthesize step failed" in result.response
    assert len(offline.calls("synthesize_answer")) == 1  # non-retryable: not retried
    assert result.path[-3:] == ["SYNTHESIZE", "OBSERVE", "COMPLETE"]


async def test_unwritable_notes_directory_fails_fast_with_a_clear_message(ts_env, worker, offline, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the notes folder should be")
    offline.script("route_input", route("log", []))
    offline.script("parse_log", {"date": "2026-01-16", "timestamp": "2026-01-16T08:00:00Z", "domain_data": {}})
    async with worker(ts_env.client) as queue:
        message = await _failure(await start(ts_env, queue, "Rest day.", blocker / "notes"))
    assert message.startswith("STORE failed: cannot lock")
    assert "not a directory — check COLLOQUY_NOTES_DIR" in message


async def test_router_naming_unknown_domains_is_ignored_with_a_warning(ts_env, worker, offline, notes):
    q = "Show me last week's workouts"
    offline.script("route_input", route("query", ["strength", "yoga"]))
    offline.script("plan_query", plan(q, qtype="simple"))
    offline.script("analyze_evidence", analysis("sufficient", [finding("bench on Jan 5", "2026-01-05#1")]))
    offline.script("synthesize_answer", answer("Bench on Jan 5.", ["2026-01-05#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, q, notes)).result()
    assert result.domains_loaded == ["general_fitness", "strength"]
    assert "the Router named unknown domain(s) yoga; ignored" in result.warnings
