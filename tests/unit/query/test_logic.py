"""Domains combination, planning helpers, evaluator aggregation, parser guards."""

from __future__ import annotations

from models.query.agents import AnalyzerOutput, EvaluatorOutput, Finding, PlannerOutput
from models.query.parts import DomainCatalog, DomainModule, EvaluationFeedback, Gap, LogField
from rules.query.domains import combine_domains, domain_schemas, valid_selection
from rules.query.evaluation import aggregate_verdict, missing_items, partial_response
from rules.query.parsing import check_schema, deep_merge, drop_invented, split_both
from rules.query.planning import (
    execution_groups,
    expand_keywords,
    instructions_for,
    merge_analyses,
    merge_gaps_status,
)


def _catalog() -> DomainCatalog:
    base = DomainModule(name="general", description="base", vocabulary={"hrs": "hours"}, expertise="Base rules.",
                        response_evaluation_rules=["cite dates"], context_management_guidance="track sleep",
                        log_schema={"mood": LogField()})
    run = DomainModule(name="running", description="runs", vocabulary={"5k": "5 km", "hrs": "hours run"},
                       expertise="Build mileage slowly.", response_evaluation_rules=["cite dates", "<=10%"],
                       log_schema={"distance_km": LogField(type="number")})
    lift = DomainModule(name="strength", description="lifts", vocabulary={"bench": "bench press"},
                        expertise="Overload.", response_evaluation_rules=["no injured lifts"])
    return DomainCatalog(app_id="t", base=base, domains=[run, lift])


def test_combination_rules_of_section_8_5():
    ctx = combine_domains(_catalog(), ["running", "strength"])
    assert ctx.domains_loaded == ["general", "running", "strength"]
    assert ctx.vocabulary == {"hrs": "hours run", "5k": "5 km", "bench": "bench press"}  # merged, later wins
    assert ctx.expertise == "## General\nBase rules.\n\n## Running\nBuild mileage slowly.\n\n## Strength\nOverload."
    assert ctx.evaluation_rules == ["cite dates", "<=10%", "no injured lifts"]
    assert ctx.context_guidance == "## General\ntrack sleep"
    assert ctx.available_domains == []
    assert [d.name for d in combine_domains(_catalog(), []).available_domains] == ["running", "strength"]
    assert list(domain_schemas(_catalog(), ["general", "running", "strength"])) == ["general", "running"]


def test_router_selection_is_filtered_to_known_domains():
    assert valid_selection(_catalog(), ["Running", "yoga", "general", "running"]) == (["running"], ["yoga"])


def test_vocabulary_expansion_goes_both_ways():
    assert expand_keywords(["bench", "PR"], {"bench": "bench press", "pr": "personal record"}) == [
        "bench", "bench press", "pr", "personal record"]
    assert expand_keywords(["personal record"], {"pr": "personal record"}) == ["personal record", "pr"]


def _plan(strategy: str, n: int = 3, order: list[int] | None = None) -> PlannerOutput:
    return PlannerOutput.model_validate(dict(
        original_query="q", query_type="insight", next_action="retrieve", execution_strategy=strategy,
        execution_order=order or [], sub_queries=[{"id": i, "question": f"q{i}"} for i in range(1, n + 1)],
        retrieval_instructions=[{"sub_query_id": i, "tool": "keyword", "keywords": [f"k{i}"]}
                                for i in range(1, n + 1)]))


def test_execution_groups_follow_the_dependency_classification():
    assert [[s.id for s in g] for g in execution_groups(_plan("independent"))] == [[1, 2, 3]]
    assert [[s.id for s in g] for g in execution_groups(_plan("dependent", order=[2, 1]))] == [[2], [1], [3]]
    assert [[s.id for s in g] for g in execution_groups(_plan("coupled"))] == [[0]]
    assert [[s.id for s in g] for g in execution_groups(_plan("independent", n=1))] == [[0]]
    plan = _plan("independent")
    assert [i.keywords for i in instructions_for(plan, 2)] == [["k2"]]
    assert len(instructions_for(plan, 0)) == 3


def test_merged_analysis_is_sufficient_only_if_every_part_is():
    a = AnalyzerOutput(query_intent="a", findings=[Finding(claim="x")], verdict="sufficient")
    b = AnalyzerOutput(query_intent="b", gaps_identified=[Gap(description="g", gap_type="temporal")],
                       verdict="insufficient")
    merged = merge_analyses("q", [a, b])
    assert merged.verdict == "insufficient" and len(merged.findings) == 1 and len(merged.gaps_identified) == 1
    assert merge_gaps_status({"a": {"searched": True, "found": False}}, {"a": {"found": True}, "b": {}}) == {
        "a": {"searched": True, "found": True}, "b": {"searched": False, "found": False}}


def _dims(**verdicts: str) -> EvaluatorOutput:
    return EvaluatorOutput.model_validate(dict(
        dimensions=[{"dimension": d, "verdict": v, "issues": [f"{d} bad"] if v == "fail" else []}
                    for d, v in verdicts.items()], overall_verdict="pass"))


def test_any_failed_or_missing_dimension_fails_whatever_the_overall_verdict_says():
    ok, reasons = aggregate_verdict(_dims(accuracy="pass", relevance="pass", safety="pass", completeness="pass"))
    assert ok and reasons == []
    ok, reasons = aggregate_verdict(_dims(accuracy="pass", relevance="pass", safety="fail", completeness="pass"))
    assert not ok and reasons == ["safety: safety bad"]
    ok, reasons = aggregate_verdict(_dims(accuracy="pass", relevance="pass", safety="pass"))
    assert not ok and reasons == ["completeness: not evaluated"]


def test_partial_answer_states_exactly_what_is_missing():
    gaps = [Gap(description="nice", gap_type="temporal", severity="nice_to_have"),
            Gap(description="sleep on Jan 8", gap_type="temporal")]
    missing = missing_items(gaps, [EvaluationFeedback(issue="no evidence for stress", suggestion="s")],
                            ["Were you ill?"])
    assert missing == ["sleep on Jan 8", "nice (nice to have)", "no evidence for stress",
                       "your answer to: Were you ill?"]
    text = partial_response("Bench was heavy on Jan 9.", missing)
    assert text.startswith("Here's what I can tell you: Bench was heavy on Jan 9.")
    assert text.endswith("I would need:\n- sleep on Jan 8\n- nice (nice to have)\n- no evidence for stress\n"
                         "- your answer to: Were you ill?")


def test_parser_guards_never_keep_invented_values():
    raw = "Bench 185x5, slept 6 hrs"
    data = {"strength": {"exercises": [{"name": "bench press", "weight": 185, "reps": 5, "sets": 3}]},
            "general": {"mood": "happy", "sleep_hours": 6}}
    clean, dropped = drop_invented(data, raw, {"bench": "bench press", "hrs": "hours"})
    assert clean == {"strength": {"exercises": [{"name": "bench press", "weight": 185, "reps": 5}]},
                     "general": {"sleep_hours": 6}}
    assert dropped == ["strength.exercises[0].sets", "general.mood"]


def test_schema_check_removes_unknown_and_mistyped_fields():
    schemas = {"running": {"distance_km": LogField(type="number"), "splits": LogField(type="list")}}
    clean, problems = check_schema({"running": {"distance_km": "five", "splits": [1, 2], "hr": 150},
                                    "cooking": {"dish": "x"}}, schemas)
    assert clean == {"running": {"splits": [1, 2]}}
    assert problems == ["running.distance_km: expected number, got str", "running.hr: not in the schema",
                        "cooking: not a loaded domain"]


def test_correction_delta_merges_by_name_and_keeps_the_rest():
    base = {"exercises": [{"name": "bench press", "weight": 85, "reps": 5}, {"name": "squat", "weight": 200}]}
    merged = deep_merge(base, {"exercises": [{"name": "Bench Press", "weight": 185}]})
    assert merged == {"exercises": [{"name": "bench press", "weight": 185, "reps": 5},
                                    {"name": "squat", "weight": 200}]}


def test_both_split_puts_questions_in_the_query():
    assert split_both("Tired today, 4 hours sleep. Why am I always tired?") == (
        "Tired today, 4 hours sleep.", "Why am I always tired?")


def test_chunks_are_in_date_order_and_bounded():
    from rules.query.planning import chunk_ids

    ids = ["2026-01-02#10", "2026-01-02#2", "2026-01-01#1", "2026-01-03#1", "2026-01-02#2"]
    assert chunk_ids(ids, 2) == [["2026-01-01#1", "2026-01-02#2"], ["2026-01-02#10", "2026-01-03#1"]]
    assert chunk_ids([], 5) == [[]]


def test_llm_output_spellings_are_accepted():
    from models.query.agents import ContextUpdate, ParserOutput, RouterOutput

    assert ContextUpdate(category="Preferences", key="k", value="v", confidence="CERTAIN").category == "preference"
    assert RouterOutput(input_type="QUERY", confidence=0.5).input_type == "query"
    assert ParserOutput().date is None  # filled by the Parser activity from the input's time, not the model
