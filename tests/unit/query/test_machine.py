"""The state machine's edges, cycle counting and decisions (seed §5.2–5.4, §7.3, §7.5)."""

from __future__ import annotations

import pytest

from models.query.agents import AnalyzerOutput, PlannerOutput
from models.query.parts import Gap
from rules.query.machine import (
    LoopCounters,
    LoopLimits,
    State,
    TransitionError,
    clarifiable_gaps,
    decide_after_analyze,
    decide_after_evaluate,
    decide_after_plan,
    decide_after_wait,
    expansion_targets,
)

S = State


def _walk(*states: State, limits: LoopLimits | None = None) -> LoopCounters:
    c = LoopCounters()
    for s in states:
        c.enter(s, limits or LoopLimits())
    return c


def _plan(action: str, **kw) -> PlannerOutput:  # noqa: ANN003
    return PlannerOutput.model_validate(dict(original_query="q", query_type="insight", next_action=action, **kw))


def test_the_query_path_is_legal_and_an_illegal_edge_is_refused():
    c = _walk(S.ROUTE, S.BUILD_CONTEXT, S.PLAN, S.RETRIEVE, S.ANALYZE, S.SYNTHESIZE, S.EVALUATE, S.OBSERVE,
              S.COMPLETE)
    assert c.path[-1] == "COMPLETE"
    with pytest.raises(TransitionError, match="illegal transition ROUTE → PLAN"):
        _walk(S.ROUTE, S.PLAN)


def test_each_cycle_is_counted_and_refused_past_its_limit():
    limits = LoopLimits(analyze_replan=1)
    c = _walk(S.ROUTE, S.BUILD_CONTEXT, S.PLAN, S.RETRIEVE, S.ANALYZE, S.PLAN, limits=limits)
    assert c.counts["analyze_replan"] == 1 and c.left("analyze_replan", limits) == 0
    for s in (S.RETRIEVE, S.ANALYZE):
        c.enter(s, limits)
    with pytest.raises(TransitionError, match="analyze_replan over its limit 1"):
        c.enter(S.PLAN, limits)


def test_max_steps_stops_anything_that_slips_through():
    limits = LoopLimits(max_steps=3)
    with pytest.raises(TransitionError, match="more than 3 state visits"):
        _walk(S.ROUTE, S.BUILD_CONTEXT, S.PLAN, S.RETRIEVE, limits=limits)


def test_degraded_jump_only_to_the_cascade_targets():
    c = _walk(S.ROUTE, S.BUILD_CONTEXT, S.PLAN)
    c.enter(S.OBSERVE, LoopLimits(), degraded=True)
    with pytest.raises(TransitionError):
        _walk(S.ROUTE).enter(S.OBSERVE, LoopLimits(), degraded=True)


def test_always_search_before_asking():
    limits, c = LoopLimits(), _walk(S.ROUTE, S.BUILD_CONTEXT, S.PLAN)
    unsearched = [Gap(description="sleep", gap_type="temporal")]
    p = _plan("clarify", retrieval_instructions=[{"tool": "keyword", "keywords": ["sleep"]}])
    assert decide_after_plan(p, counters=c, limits=limits, expandable=[], gaps=unsearched,
                             has_analysis=True) == S.RETRIEVE
    searched = [Gap(description="sleep", gap_type="temporal", searched=True)]
    assert decide_after_plan(p, counters=c, limits=limits, expandable=[], gaps=searched,
                             has_analysis=True) == S.CLARIFY


def test_plan_decisions_fall_back_when_a_cycle_is_spent_or_pointless():
    limits = LoopLimits(domain_expansion=0, clarification=0)
    c = _walk(S.ROUTE, S.BUILD_CONTEXT, S.PLAN)
    assert decide_after_plan(_plan("expand_domain"), counters=c, limits=limits, expandable=["x"], gaps=[],
                             has_analysis=False) == S.RETRIEVE
    assert decide_after_plan(_plan("clarify"), counters=c, limits=limits, expandable=[], gaps=[],
                             has_analysis=True) == S.SYNTHESIZE
    assert decide_after_plan(_plan("synthesize"), counters=c, limits=LoopLimits(), expandable=[], gaps=[],
                             has_analysis=False) == S.RETRIEVE  # nothing analyzed yet: search first
    assert decide_after_plan(_plan("expand_domain"), counters=c, limits=LoopLimits(), expandable=[], gaps=[],
                             has_analysis=False) == S.RETRIEVE  # nothing to add: no no-op expansion


def test_analyze_decisions():
    limits = LoopLimits()
    c = _walk(S.ROUTE, S.BUILD_CONTEXT, S.PLAN, S.RETRIEVE, S.ANALYZE)
    ok = AnalyzerOutput(query_intent="q", verdict="SUFFICIENT")
    bad = AnalyzerOutput(query_intent="q", verdict="insufficient")
    assert decide_after_analyze(ok, counters=c, limits=limits, expandable=["running"]) == S.SYNTHESIZE
    assert decide_after_analyze(bad, counters=c, limits=limits, expandable=["running"]) == S.EXPAND_DOMAIN
    assert decide_after_analyze(bad, counters=c, limits=limits, expandable=[]) == S.PLAN
    c.counts["analyze_replan"] = 2
    assert decide_after_analyze(bad, counters=c, limits=limits, expandable=[]) == S.SYNTHESIZE


def test_evaluate_decisions_expand_first_then_retry_then_partial():
    limits = LoopLimits()
    c = _walk(S.ROUTE, S.BUILD_CONTEXT, S.PLAN, S.RETRIEVE, S.ANALYZE, S.SYNTHESIZE, S.EVALUATE)
    assert decide_after_evaluate(True, counters=c, limits=limits, expandable=[]) == S.OBSERVE
    assert decide_after_evaluate(False, counters=c, limits=limits, expandable=["nutrition"]) == S.EXPAND_DOMAIN
    assert c.counts["evaluate_retry"] == 1  # the retry that goes through the expansion is counted
    assert decide_after_evaluate(False, counters=c, limits=limits, expandable=[]) == S.PLAN
    c.counts["evaluate_retry"] = 2
    assert decide_after_evaluate(False, counters=c, limits=limits, expandable=[]) == S.SYNTHESIZE


def test_wait_and_gap_helpers():
    assert decide_after_wait(True) == S.ANALYZE and decide_after_wait(False) == S.SYNTHESIZE
    gaps = [Gap(description="a", gap_type="subjective"), Gap(description="b", gap_type="temporal"),
            Gap(description="c", gap_type="topical", searched=True, found=False)]
    assert [g.description for g in clarifiable_gaps(gaps)] == ["a", "c"]
    assert expansion_targets(["running", "yoga", "strength", "running"], ["strength"],
                             ["strength", "running"]) == ["running"]
