"""Clarify → WAIT_USER: answered, declined, timed out, malformed updates rejected with clear errors, and a
wait that survives the worker (a closed terminal) being gone."""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from models.query.workflow import ClarifyAnswer
from tests.workflows.query.helpers import (
    analysis,
    answer,
    evaluation,
    finding,
    gap,
    no_update,
    plan,
    route,
    start,
    unlabelled,
)
from tests.workflows.query.waits import until_pending
from workflows.query.workflow import QueryWorkflow

Q = "Why did my bench feel heavy last week?"


def _script_until_clarify(offline) -> None:  # noqa: ANN001
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(Q), plan(Q, action="clarify"))
    offline.script("analyze_evidence", analysis("insufficient", [finding("heavy on Jan 9", "2026-01-09#1")],
                                                [gap("whether you were ill that week", "subjective")]))
    offline.script("clarify_gaps", {"questions": [{"question": "Were you ill that week?", "options": ["yes", "no"]},
                                                  {"question": "Did you train chest the day before?"}],
                                    "context_explanation": "Your notes do not say.",
                                    "fallback_action": "I will answer from your notes."})


async def test_declined_clarification_synthesizes_with_what_exists(ts_env, worker, offline, notes):
    _script_until_clarify(offline)
    offline.script("synthesize_answer", answer("Your bench was heavy on Jan 9 after 5 hours of sleep.",
                                               ["2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, Q, notes)
        await until_pending(handle)
        ack = await handle.execute_update(QueryWorkflow.clarify, ClarifyAnswer(decline=True))
        assert ack.declined
        result = await handle.result()
    assert result.path[result.path.index("WAIT_USER") + 1] == "SYNTHESIZE"
    assert result.partial
    assert "your answer to: Were you ill that week?" in result.gaps_disclosed
    assert "whether you were ill that week" in result.gaps_disclosed
    assert len(offline.calls("analyze_evidence")) == 1  # declined: no new analysis


async def test_unanswered_clarification_times_out_and_synthesizes(ts_env, worker, offline, notes):
    _script_until_clarify(offline)
    offline.script("synthesize_answer", answer("Heavy on Jan 9.", ["2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, Q, notes, clarification_timeout_s=3600)
        pending = await until_pending(handle)
        assert pending.deadline is not None
        result = await handle.result()  # the time-skipping server jumps over the hour
    assert result.path[result.path.index("WAIT_USER") + 1] == "SYNTHESIZE"
    assert result.partial
    assert any("no answer to the clarifying question(s) within 3600s" in w for w in result.warnings)
    with pytest.raises((WorkflowUpdateFailedError, RPCError)):  # the workflow is closed: nothing to answer
        await handle.execute_update(QueryWorkflow.clarify, ClarifyAnswer(answers={"q1": "too late"}))


async def test_malformed_clarify_updates_are_rejected_and_nothing_is_lost(ts_env, worker, offline, notes):
    _script_until_clarify(offline)
    offline.script("analyze_evidence", analysis("sufficient", [finding("ill that week", "your answer")]))
    offline.script("synthesize_answer", answer("You were ill that week.", ["2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, Q, notes)
        bad = [
            (ClarifyAnswer(answers={"q9": "x"}), "unknown question id(s) q9: the pending questions are q1, q2"),
            (ClarifyAnswer(), "no answers given"),
            (ClarifyAnswer(request_id="clarify-7", answers={"q1": "x"}), "'clarify-7' is not the pending one"),
            (ClarifyAnswer(answers={"q1": "yes"}, decline=True), "either answers or decline"),
            (ClarifyAnswer(answers={"q1": "   "}), "the answer to q1 is empty"),
            (ClarifyAnswer(answers={"q1": "x" * 5000}), "over the 4000 limit"),
        ]
        # Before anything is pending: a clear refusal.
        await until_pending(handle)
        for payload, message in bad:
            with pytest.raises(WorkflowUpdateFailedError) as info:
                await handle.execute_update(QueryWorkflow.clarify, payload)
            assert message in str(info.value.cause), (message, info.value.cause)
        # Still waiting, questions intact: a good answer afterwards is taken.
        pending = await handle.query(QueryWorkflow.pending_clarification)
        assert [q.id for q in pending.questions] == ["q1", "q2"]
        await handle.execute_update(QueryWorkflow.clarify,
                                    ClarifyAnswer(request_id=pending.request_id, answers={"q1": "yes, a cold"}))
        result = await handle.result()
    assert unlabelled(result.response) == "You were ill that week."
    assert "yes, a cold" in offline.calls("analyze_evidence")[1].messages[-1]["content"]


def test_validator_refuses_an_answer_when_nothing_is_pending():
    """The validator alone (no workflow running): the message a client sees when no question is pending."""
    with pytest.raises(ApplicationError, match="no clarification is pending") as info:
        QueryWorkflow()._validate_clarify({"answers": {"q1": "x"}})
    assert info.value.non_retryable and info.value.type == "InvalidInput"  # not "(type: ValueError, retryable: true)"


async def test_waiting_survives_the_worker_going_away(dev_env, worker, offline, notes):
    """A closed terminal (and even a stopped worker) leaves the workflow waiting durably in Temporal.
    On the dev server: it hands a stopped worker's sticky tasks to the next worker at once."""
    ts_env = dev_env
    _script_until_clarify(offline)
    offline.script("analyze_evidence", analysis("sufficient", [finding("no chest the day before", "answer")]))
    offline.script("synthesize_answer", answer("It was not chest fatigue.", []))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, Q, notes)
        await until_pending(handle)
    # No worker now. A new one (a new terminal, a restarted machine) picks the workflow up.
    async with worker(ts_env.client, queue):
        pending = await handle.query(QueryWorkflow.pending_clarification)
        assert pending is not None and pending.request_id == "clarify-1"
        await handle.execute_update(QueryWorkflow.clarify, ClarifyAnswer(answers={"q2": "no"}))
        result = await handle.result()
    assert unlabelled(result.response) == "It was not chest fatigue."
