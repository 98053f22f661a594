"""Coverage tracking (✓ ASKED / ○ NOT ASKED, Jaccard > 0.6), fallback decisions (P1 > P2 > P3, then the
generic closing), deterministic 003 follow-up selection, plan serialisation and decision encoding."""

import json

import pytest
from pydantic import ValidationError

from models.interview.notes import NextQuestion, OrchestratorDecision
from models.interview.plan import DimensionSpec, PlanSnapshot, QuestionSnapshot, SectionSnapshot
from rules.interview import coverage
from rules.interview.decisions import GENERIC_CLOSING_QUESTION, fallback_decision, select_followup
from rules.interview.plan import default_plan, normalize_plan


def plan() -> PlanSnapshot:
    return PlanSnapshot(topic="t", research_goal="g", angle="a", sections=[
        SectionSnapshot(id="s1", title="Opening", importance="high", questions=[
            QuestionSnapshot(id="q1", text="What got you into distributed systems?", priority=2),
            QuestionSnapshot(id="q2", text="Tell me about a major failure you lived through", priority=1)]),
        SectionSnapshot(id="s2", title="Depth", importance="low", questions=[
            QuestionSnapshot(id="q3", text="How do you measure reliability today?", priority=1),
            QuestionSnapshot(id="q4", text="What would you never do again?", priority=3)]),
    ])


def test_plan_coverage_lines_in_the_seed_format():
    text = coverage.plan_coverage_text(plan(), {"q2"})
    assert "### s1: Opening [1/2 asked, high importance]" in text
    assert "✓ ASKED [id: q2] [P1] Tell me about a major failure you lived through" in text
    assert "○ NOT ASKED [id: q1] [P2] What got you into distributed systems?" in text
    assert coverage.coverage_summary(plan(), set()) == ["Opening [0/2 asked, high importance]",
                                                        "Depth [0/2 asked, low importance]"]


def test_direct_id_wins_then_jaccard_above_0_6_on_unasked_questions_only():
    p = plan()
    assert coverage.resolve_asked_question("q3", "whatever", p, set()) == ("q3", "direct_id")
    assert coverage.resolve_asked_question("not-an-id", "How do you measure reliability these days?", p, set()) \
        == ("q3", "jaccard")
    assert coverage.resolve_asked_question(None, "How do you measure reliability these days?", p, {"q3"}) \
        == (None, "none")
    assert coverage.find_matching_question_id("Completely unrelated question about lunch", p, set()) is None


def test_jaccard_threshold_is_strictly_greater_than_0_6():
    p = PlanSnapshot(topic="t", research_goal="g", angle="a", sections=[SectionSnapshot(id="s", title="s", questions=[
        QuestionSnapshot(id="x", text="a b c d e")])])
    assert coverage.find_matching_question_id("a b c f g", p, set()) is None       # 3/7
    assert coverage.find_matching_question_id("a b c d f", p, set()) == "x"        # 4/6


def test_fallback_picks_first_unasked_p1_then_p2_then_p3_then_generic_closing():
    p = plan()
    d = fallback_decision(p, set(), "opening")
    assert (d.next_question.source_question_id, d.phase, d.next_question.source) == ("q2", "opening", "plan")
    assert fallback_decision(p, {"q2"}, "deep_dive").next_question.source_question_id == "q3"
    assert fallback_decision(p, {"q2", "q3"}, "deep_dive").next_question.source_question_id == "q1"
    assert fallback_decision(p, {"q1", "q2", "q3"}, "wrap_up").next_question.source_question_id == "q4"
    closing = fallback_decision(p, {"q1", "q2", "q3", "q4"}, "wrap_up")
    assert closing.next_question.text == GENERIC_CLOSING_QUESTION and closing.next_question.source == "gap"


def structured_section() -> SectionSnapshot:
    return SectionSnapshot(id="design", title="Design", followup_cap=3, required_dimensions=[
        DimensionSpec(name="metrics", priority=2, keywords=["latency", "p99"]),
        DimensionSpec(name="constraints", priority=1, keywords=["budget", "deadline", "headcount"]),
        DimensionSpec(name="failure_modes", priority=2, keywords=["outage", "failover"])],
        followup_pool={"metrics": ["M1", "M2"], "constraints": ["C1"], "failure_modes": ["F1"]})


def test_followups_uncovered_first_by_priority_then_schema_order_then_partial():
    s = structured_section()
    flags = {"metrics": "not_covered", "constraints": "not_covered", "failure_modes": "not_covered"}
    assert select_followup(s, flags, [], 3) == ("constraints", "C1")
    assert select_followup(s, flags, ["C1"], 2) == ("metrics", "M1")
    flags2 = {"metrics": "partially_covered", "constraints": "covered", "failure_modes": "not_covered"}
    assert select_followup(s, flags2, [], 3) == ("failure_modes", "F1")
    assert select_followup(s, flags2, ["F1"], 3) == ("metrics", "M1")


def test_followups_stop_at_budget_coverage_or_empty_pools():
    s = structured_section()
    flags = {"metrics": "not_covered", "constraints": "covered", "failure_modes": "covered"}
    assert select_followup(s, flags, [], 0) is None
    assert select_followup(s, {k: "covered" for k in flags}, [], 3) is None
    assert select_followup(s, flags, ["M1", "M2"], 3) is None


def test_followup_selection_is_deterministic():
    s = structured_section()
    flags = {"metrics": "partially_covered", "constraints": "not_covered", "failure_modes": "partially_covered"}
    runs = {tuple(select_followup(s, flags, [], 2) or ()) for _ in range(20)}
    assert runs == {("constraints", "C1")}


def test_coverage_flags_only_rise_and_keywords_assess():
    s = structured_section()
    flags = coverage.initial_flags(s)
    assessed = coverage.keyword_assessment(s, "Our p99 latency target drove the budget")
    assert assessed == {"metrics": "covered", "constraints": "partially_covered"}
    flags = coverage.merge_flags(flags, assessed, {"constraints": "covered", "unknown": "covered"})
    assert flags == {"metrics": "covered", "constraints": "covered", "failure_modes": "not_covered"}
    assert coverage.merge_flags(flags, {"metrics": "not_covered"})["metrics"] == "covered"
    assert not coverage.coverage_satisfied(flags)
    assert coverage.coverage_satisfied({k: "covered" for k in flags})
    assert not coverage.coverage_satisfied({})


def test_plan_snapshot_round_trips_through_json():
    p = default_plan("Database migrations", "at a bank", "structured", 840)
    again = PlanSnapshot.model_validate_json(p.model_dump_json())
    assert again == p
    assert all(q.priority in (1, 2, 3) for s in p.sections for q in s.questions)
    assert sum(s.duration_seconds or 0 for s in p.sections) == 840
    assert [s.followup_cap for s in p.sections] == [3, 4, 2, 1]
    assert all(set(s.followup_pool) == {d.name for d in s.required_dimensions} for s in p.sections)


def test_normalize_plan_makes_ids_unique_and_clamps_priorities():
    raw = PlanSnapshot(topic="t", research_goal="g", angle="a", sections=[
        SectionSnapshot(id="x", title="A", questions=[QuestionSnapshot(id="q", text="1"), QuestionSnapshot(id="q", text="2")]),
        SectionSnapshot(id="x", title="B", questions=[QuestionSnapshot(id="", text="3")])])
    p = normalize_plan(raw, "adaptive")
    assert [s.id for s in p.sections] == ["x", "s2"]
    assert [q.id for s in p.sections for q in s.questions] == ["q", "x-q2", "s2-q1"]
    with pytest.raises(ValidationError):
        QuestionSnapshot(id="q", text="t", priority=4)


def test_orchestrator_decision_encoding():
    d = OrchestratorDecision(phase="deep_dive", next_question=NextQuestion(
        text="You mentioned X?", target_section_id="s1", source="gap", expected_answer_seconds=90),
        interviewer_brief="gently")
    data = json.loads(d.model_dump_json())
    assert data["phase"] == "deep_dive" and data["next_question"]["source_question_id"] is None
    assert OrchestratorDecision.model_validate(data) == d
    for bad in ({"phase": "middle"}, {"source": "whim"}):
        payload = {"phase": "opening", "next_question": {"text": "q"}} | ({"phase": bad["phase"]} if "phase" in bad else {})
        if "source" in bad:
            payload["next_question"]["source"] = bad["source"]
        with pytest.raises(ValidationError):
            OrchestratorDecision.model_validate(payload)
