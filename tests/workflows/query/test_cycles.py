"""Each of the four cycles hits its limit and the workflow still finishes (no runaway), plus the retry limit's
partial answer and mid-flow domain expansion."""

from __future__ import annotations

from models.query.workflow import ClarifyAnswer
from tests.conftest import replay
from tests.workflows.query.helpers import (
    analysis,
    answer,
    evaluation,
    finding,
    gap,
    no_update,
    plan,
    recording,
    route,
    start,
    unlabelled,
)
from tests.workflows.query.waits import until_pending
from workflows.query.workflow import QueryWorkflow

Q = "Why did my bench feel heavy last week?"


async def test_analyze_plan_cycle_stops_at_its_limit_with_a_partial_answer(ts_env, worker, offline, notes):
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", *[plan(Q) for _ in range(3)])
    offline.script("analyze_evidence", *[analysis("insufficient", [finding("heavy on Jan 9", "2026-01-09#1")],
                                                  [gap("sleep data for Jan 8", "temporal")]) for _ in range(3)])
    offline.script("synthesize_answer", answer("Your bench was heavy on Jan 9.", ["2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, Q, notes)).result()
    assert result.attempts["analyze_replan"] == 2  # the limit
    assert len(offline.calls("analyze_evidence")) == 3
    assert result.path.count("PLAN") == 3
    assert result.partial and result.gaps_disclosed == ["sleep data for Jan 8"]
    assert unlabelled(result.response).startswith("Here's what I can tell you: Your bench was heavy on Jan 9.")
    assert "I would need:\n- sleep data for Jan 8" in result.response


async def test_evaluate_retry_limit_gives_partial_answer_stating_what_is_missing(ts_env, worker, offline, notes):
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", *[plan(Q) for _ in range(3)])
    offline.script("analyze_evidence", *[analysis("sufficient", [finding("heavy on Jan 9", "2026-01-09#1")],
                                                  [gap("how much you slept on Jan 8", "temporal", "nice_to_have")])
                                         for _ in range(3)])
    offline.script("synthesize_answer", *[answer(f"Draft {i}: stress made it heavy.") for i in range(3)],
                   answer("Your bench was heavy on Jan 9 (2 sets only).", ["2026-01-09#1"]))
    offline.script("evaluate_answer", *[evaluation("accuracy", feedback="no evidence that stress caused it")
                                        for _ in range(3)])
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, Q, notes)).result()
    assert result.attempts["evaluate_retry"] == 2 and result.attempts["evaluations"] == 3
    assert len(offline.calls("synthesize_answer")) == 4  # 3 evaluated drafts + the final partial answer
    assert result.path[-4:] == ["EVALUATE", "SYNTHESIZE", "OBSERVE", "COMPLETE"]
    assert result.partial
    assert result.gaps_disclosed == ["how much you slept on Jan 8 (nice to have)", "no evidence that stress caused it"]
    assert "I would need:\n- how much you slept on Jan 8 (nice to have)\n- no evidence that stress caused it" \
        in result.response
    # Each retry re-planned with the evaluator's feedback; the final synthesis was told it is partial.
    assert "no evidence that stress caused it" in offline.calls("plan_query")[1].messages[-1]["content"]
    assert "THIS IS A PARTIAL ANSWER" in offline.calls("synthesize_answer")[3].messages[0]["content"]


async def test_domain_expansion_cycle_stops_at_its_limit(ts_env, worker, offline, notes):
    offline.script("route_input", route("query", []))
    offline.script("plan_query", *[plan(Q) for _ in range(4)])
    outside = [("nutrition", "what was eaten"), ("running", "the run the day before"), ("strength", "bench load")]
    offline.script("analyze_evidence", *[
        analysis("insufficient", [], [gap(f"{what}: needs {dom} knowledge", "contextual",
                                          outside_current_expertise=True, suspected_domain=dom)])
        for dom, what in outside], analysis("sufficient", [finding("heavy on Jan 9", "2026-01-09#1")]))
    offline.script("synthesize_answer", answer("Heavy on Jan 9.", ["2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, Q, notes)
        result = await handle.result()
        view = await handle.query(QueryWorkflow.session_state)
    assert result.attempts["domain_expansion"] == 2
    assert view.domain_expansion_history == ["nutrition", "running"]
    assert result.domains_loaded == ["general_fitness", "running", "nutrition"]
    # The third request (strength) exceeded the limit: the workflow re-planned instead of expanding again.
    i = [n for n, s in enumerate(result.path) if s == "ANALYZE"][2]
    assert result.path[i + 1] == "PLAN"


async def test_planner_expands_domain_mid_flow_and_replans_with_its_expertise(ts_env, worker, offline, notes):
    q = "Did my protein intake affect my squat?"
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(q, action="expand_domain", domain_expansion_request=["nutrition"],
                                      expansion_reasoning="protein is nutrition"), plan(q))
    offline.script("analyze_evidence", analysis("sufficient", [finding("45g protein on Jan 7", "2026-01-07#1")]))
    offline.script("synthesize_answer", answer("On Jan 7 you had 45g protein at dinner.", ["2026-01-07#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, q, notes)).result()
    assert result.path[:6] == ["ROUTE", "BUILD_CONTEXT", "PLAN", "EXPAND_DOMAIN", "BUILD_CONTEXT", "PLAN"]
    assert result.domains_loaded == ["general_fitness", "strength", "nutrition"]
    second_plan = offline.calls("plan_query")[1].messages[0]["content"]
    assert "## Nutrition" in second_plan and "Low protein" in second_plan


async def test_clarification_cycle_asks_once_then_synthesizes(ts_env, worker, offline, notes):
    q = "What should I do today?"
    offline.script("route_input", route("query", ["strength"]))
    ask = plan(q, action="clarify", clarify_questions=["How do you feel?"])
    offline.script("plan_query", plan(q), ask, ask, ask)
    offline.script("analyze_evidence",
                   analysis("insufficient", [finding("heavy bench on Jan 12", "2026-01-12#1")],
                            [gap("how the user feels", "subjective")]),
                   analysis("insufficient", [finding("user is sore", "answer")], [gap("which muscles", "subjective")]))
    offline.script("clarify_gaps", {"questions": [{"question": "How do you feel?"}], "context_explanation": "x",
                                    "fallback_action": "y"})
    offline.script("synthesize_answer", answer("Rest today: you are sore.", ["2026-01-12#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, q, notes)
        await until_pending(handle)
        await handle.execute_update(QueryWorkflow.clarify, ClarifyAnswer(answers={"q1": "sore"}))
        result = await handle.result()
        await replay(handle, record_as=recording("query_clarify_replan"))
    assert result.attempts["clarification"] == 1
    assert len(offline.calls("clarify_gaps")) == 1
    # The answer re-planned and was analyzed; the next plan wanted to ask again; the cycle was spent, so the
    # workflow answered with what exists.
    i = result.path.index("WAIT_USER")
    assert result.path[i:i + 4] == ["WAIT_USER", "PLAN", "RETRIEVE", "ANALYZE"]
    assert result.path[-6:] == ["ANALYZE", "PLAN", "SYNTHESIZE", "EVALUATE", "OBSERVE", "COMPLETE"]
    assert "Asking the user is no longer possible" in offline.calls("plan_query")[2].messages[0]["content"]
    assert result.partial


async def test_failed_evaluation_expands_the_flagged_domain_before_retrying(ts_env, worker, offline, notes):
    """§5.4: when the Analyzer flagged a domain gap, the retry loads that domain first, then re-plans."""
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(Q), plan(Q))
    flagged = gap("what was eaten before the session", "contextual", "nice_to_have",
                  outside_current_expertise=True, suspected_domain="nutrition")
    offline.script("analyze_evidence", analysis("sufficient", [finding("heavy on Jan 9", "2026-01-09#1")], [flagged]),
                   analysis("sufficient", [finding("skipped breakfast Jan 12", "2026-01-12#1")]))
    offline.script("synthesize_answer", answer("Heavy because of food.", []),
                   answer("Heavy on Jan 9 after 5 hours of sleep.", ["2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation("accuracy", feedback="food claim has no evidence"), evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, Q, notes)).result()
    i = result.path.index("EVALUATE")
    assert result.path[i:i + 4] == ["EVALUATE", "EXPAND_DOMAIN", "BUILD_CONTEXT", "PLAN"]
    assert result.attempts["evaluate_retry"] == 1 and result.attempts["domain_expansion"] == 1
    assert "nutrition" in result.domains_loaded and not result.partial
    assert "Low protein" in offline.calls("plan_query")[1].messages[0]["content"]
