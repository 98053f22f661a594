"""Seed 001 §17.C: the six example scenarios, each agent scripted, on the time-skipping server."""

from __future__ import annotations

import json

from models.query.parts import InputType
from models.query.workflow import QueryResult
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
)
from workflows.query.workflow import QueryWorkflow


async def test_simple_query_shows_last_weeks_workouts(ts_env, worker, offline, notes):
    q = "Show me last week's workouts"
    offline.script("route_input", route("query", ["strength", "running"]))
    offline.script("plan_query", plan(q, qtype="simple", instructions=[
        {"tool": "date_range", "start": "2026-01-05", "end": "2026-01-11"}]))
    offline.script("analyze_evidence", analysis("sufficient", [
        finding("bench 185x5x3 on Jan 5", "2026-01-05#1"), finding("5k easy run on Jan 6", "2026-01-06#1")]))
    offline.script("synthesize_answer", answer("Last week: bench on Jan 5, a 5k on Jan 6, squats on Jan 7.",
                                               ["2026-01-05#1", "2026-01-06#1", "2026-01-07#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, q, notes)
        result: QueryResult = await handle.result()
    assert result.input_type == InputType.QUERY
    assert result.path == ["ROUTE", "BUILD_CONTEXT", "PLAN", "RETRIEVE", "ANALYZE", "SYNTHESIZE", "EVALUATE",
                           "OBSERVE", "COMPLETE"]
    assert result.evidence_cited == ["2026-01-05#1", "2026-01-06#1", "2026-01-07#1"]
    assert not result.partial
    assert result.entries_read == 5  # Jan 5..9 (the range read every entry in scope)
    assert result.domains_loaded == ["general_fitness", "strength", "running"]
    # The Analyzer read the entries from the artifact store: its prompt holds every entry in scope.
    prompt = offline.calls("analyze_evidence")[0].messages[-1]["content"]
    assert "[2026-01-09#1]" in prompt and "[2026-01-12#1]" not in prompt
    # The Evaluator checked the combined rules of the base domains and the selected ones (§8.5).
    rules = offline.calls("evaluate_answer")[0].messages[0]["content"]
    assert "- Do not make claims without supporting data from the notes; cite entry dates." in rules
    assert "- Never recommend training through sharp pain" in rules
    assert "- Do not recommend increasing weight by more than 10%" in rules
    assert "- Do not recommend raising weekly distance by more than 10%." in rules
    assert "1200 kcal" not in rules  # nutrition was not selected
    # History holds artifact refs, not the entries.
    history = json.dumps((await handle.fetch_history()).to_json_dict())
    assert "late night deadline" not in history


async def test_insight_query_replans_once_then_answers_with_sleep_evidence(ts_env, worker, offline, notes):
    q = "Why did my bench feel heavy last week?"
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query",
                   plan(q, instructions=[{"tool": "keyword", "keywords": ["bench"], "start": "2026-01-05",
                                          "end": "2026-01-11"}]),
                   plan(q, instructions=[{"tool": "date_range", "start": "2026-01-02", "end": "2026-01-11",
                                          "purpose": "sleep and stress before the heavy session"}],
                        gaps_status={"sleep_before_jan_9": {"searched": True, "found": False}}))
    offline.script("analyze_evidence",
                   analysis("insufficient", [finding("bench felt heavy on Jan 9", "2026-01-09#1")],
                            [{"description": "sleep before Jan 9", "gap_type": "temporal", "severity": "critical"}]),
                   analysis("sufficient", [finding("bench felt heavy on Jan 9 after 5 hours of sleep", "2026-01-09#1"),
                                           finding("stressful day at work on Jan 8", "2026-01-08#1")],
                            patterns=["low sleep before heavy sessions"]))
    offline.script("synthesize_answer", answer("Your bench felt heavy on Jan 9: you slept 5 hours after a "
                                               "stressful day.", ["2026-01-08#1", "2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, q, notes)
        result = await handle.result()
        await replay(handle, record_as=recording("query_insight"))
    assert result.path[:8] == ["ROUTE", "BUILD_CONTEXT", "PLAN", "RETRIEVE", "ANALYZE", "PLAN", "RETRIEVE",
                               "ANALYZE"]
    assert result.attempts["analyze_replan"] == 1
    assert result.evidence_cited == ["2026-01-08#1", "2026-01-09#1"]
    # The re-plan saw the Analyzer's gap; the second analysis saw both retrievals (combined context).
    assert "sleep before Jan 9" in offline.calls("plan_query")[1].messages[-1]["content"]
    first, second = (c.messages[-1]["content"] for c in offline.calls("analyze_evidence"))
    assert "[2026-01-08#1]" not in first and "[2026-01-08#1]" in second


async def test_recommendation_asks_the_user_and_replans_with_the_answer(ts_env, worker, offline, notes):
    q = "What should I do today?"
    offline.script("route_input", route("query", ["strength", "running"]))
    offline.script("plan_query", plan(q, qtype="recommendation"),
                   plan(q, qtype="recommendation", action="clarify", clarify_questions=["How do you feel today?"]))
    offline.script("analyze_evidence",
                   analysis("insufficient", [finding("bench was heavy twice this week", "2026-01-12#1")],
                            [gap("how the user feels today", "subjective")]),
                   analysis("sufficient", [finding("the user feels rested", "user answer")]))
    offline.script("clarify_gaps", {"questions": [{"question": "How do you feel today?", "gap_addressed":
                                                   "how the user feels today", "options": ["tired", "rested"]}],
                                    "context_explanation": "Your notes cannot say how you feel now.",
                                    "fallback_action": "A general suggestion from your notes."})
    offline.script("synthesize_answer", answer("You feel rested: a tempo run fits today.", ["2026-01-14#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, q, notes)
        pending = await _pending(handle)
        assert pending.questions[0].id == "q1" and pending.questions[0].options == ["tired", "rested"]

        state = await handle.query(QueryWorkflow.session_state)
        assert state.state == "WAIT_USER" and state.waiting_for_user
        from models.query.workflow import ClarifyAnswer

        ack = await handle.execute_update(QueryWorkflow.clarify, ClarifyAnswer(answers={"q1": "rested, slept 8 hours"}))
        assert ack.accepted == ["q1"]
        result = await handle.result()
        await replay(handle, record_as=recording("query_clarify"))
    i = result.path.index("WAIT_USER")
    assert result.path[i - 1:i + 4] == ["CLARIFY", "WAIT_USER", "PLAN", "RETRIEVE", "ANALYZE"]
    assert not result.partial
    assert "rested, slept 8 hours" in offline.calls("plan_query")[2].messages[-1]["content"]
    assert "rested, slept 8 hours" in offline.calls("analyze_evidence")[1].messages[-1]["content"]
    # The answer is kept in today's notes (seed §3.2, 2.4).
    raw = (notes / "logs/raw/2026/01").glob("*.md")
    assert any("[clarification] How do you feel today? — rested, slept 8 hours" in p.read_text() for p in raw)


async def _pending(handle):  # noqa: ANN001, ANN202
    """Wait (through queries, not sleeps) until the workflow has a pending clarification."""
    from tests.workflows.query.waits import until_pending

    return await until_pending(handle)


async def test_multi_part_dependent_query_runs_sub_queries_in_order(ts_env, worker, offline, notes):
    q = "Why was I tired last week and what should I change?"
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(q, strategy="dependent", order=[1, 2], subs=[
        {"id": 1, "question": "Why was I tired last week?"}, {"id": 2, "question": "What should I change?"}],
        instructions=[{"sub_query_id": 1, "tool": "date_range", "start": "2026-01-05", "end": "2026-01-11"},
                      {"sub_query_id": 2, "tool": "keyword", "keywords": ["slept"]}],
        dependencies=[{"from": 1, "to": 2, "reason": "a fix needs the cause"}]))
    offline.script("analyze_evidence",
                   analysis("sufficient", [finding("5 hours of sleep on Jan 9", "2026-01-09#1")]),
                   analysis("sufficient", [finding("nights with 8 hours went well", "2026-01-05#1")]))
    offline.script("synthesize_answer", answer("You slept 5 hours before Jan 9; aim for 8 like on Jan 5.",
                                               ["2026-01-09#1", "2026-01-05#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, q, notes)).result()
    first, second = offline.calls("analyze_evidence")
    assert "Why was I tired last week?" in first.messages[-1]["content"]
    assert "5 hours of sleep on Jan 9" not in first.messages[-1]["content"]
    # DEPENDENT: the second sub-query sees the first one's findings.
    assert "5 hours of sleep on Jan 9" in second.messages[-1]["content"]
    assert result.evidence_cited == ["2026-01-09#1", "2026-01-05#1"]


async def test_correction_appends_and_upserts_without_losing_the_original(ts_env, worker, offline, notes):
    text = "Actually that was 185 not 85 pounds"
    offline.script("route_input", route("correction", ["strength"], correction_target="bench weight of Jan 9"))
    offline.script("parse_log", {"date": "2026-01-16", "timestamp": "2026-01-16T10:00:00Z", "domain_data": {},
                                 "raw_content": text, "confidence": 0.9, "is_correction": True,
                                 "target_entry_id": "2026-01-09#1",
                                 "correction_delta": {"strength": {"exercises": [{"name": "bench press",
                                                                                  "weight": 185}]}}})
    offline.script("observe_context", {"should_update": True, "insights_captured": ["unit"], "updates": [
        {"category": "preference", "key": "weight_unit", "value": "pounds", "confidence": "certain",
         "source": "correction"}]})
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, text, notes)).result()
    assert result.input_type == InputType.CORRECTION
    assert result.path == ["ROUTE", "BUILD_CONTEXT", "PARSE", "STORE", "OBSERVE", "COMPLETE"]
    assert result.stored_entries[0].entry_id == "2026-01-09#1" and result.stored_entries[0].corrected
    raw = (notes / "logs/raw/2026/01/2026-01-09.md").read_text()
    assert "Bench 85x5 but felt heavy" in raw  # the original text is never lost
    assert "[correction] → 2026-01-09#1\nActually that was 185 not 85 pounds" in raw
    parsed = json.loads((notes / "logs/parsed/2026/01/2026-01-09.json").read_text())["entries"][0]
    assert parsed["domain_data"]["strength"]["exercises"][0]["weight"] == 185
    assert parsed["corrections"][0]["previous"]["strength"]["exercises"][0]["weight"] == 85
    # The Parser saw the recent entries to find the target; the Observer ran with the correction trigger.
    assert "[2026-01-09#1]" in offline.calls("parse_log")[0].messages[-1]["content"]
    assert "TRIGGER: user_correction" in offline.calls("observe_context")[0].messages[0]["content"]
    assert "- weight_unit: pounds (certain)" in (notes / "global-context.md").read_text()


async def test_no_data_query_says_so_and_discloses_the_gap(ts_env, worker, offline, notes):
    q = "How's my swimming progress?"
    offline.script("route_input", route("query", []))
    offline.script("plan_query",
                   plan(q, instructions=[{"tool": "keyword", "keywords": ["swim", "swimming", "pool"]}]),
                   plan(q, action="synthesize", instructions=[],
                        gaps_status={"swimming": {"searched": True, "found": False}}))
    offline.script("analyze_evidence", analysis("insufficient", [], [
        gap("no swimming entries in the notes", "topical")]))
    offline.script("synthesize_answer", answer("You have not logged any swimming, so I cannot tell your progress.",
                                               gaps_disclosed=["no swimming entries in the notes"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, q, notes)).result()
    assert result.entries_read == 0 and result.evidence_cited == []
    assert result.partial
    assert "no swimming entries in the notes" in result.gaps_disclosed
    assert "To provide a more complete answer, I would need:" in result.response
    assert any(w.startswith("no entries found for the words swim") for w in result.warnings)
    # "Always search before asking": the second plan saw the empty search.
    assert "entries_found" in offline.calls("plan_query")[1].messages[-1]["content"]


async def test_large_scope_is_analyzed_in_parallel_chunks_then_combined(ts_env, worker, offline, notes):
    """Divide and conquer (§7.1): 7 entries with chunks of at most 3 → 3 chunk analyses + 1 combining call."""
    q = "How did my training go this month?"
    offline.script("route_input", route("query", ["strength", "running"]))
    offline.script("plan_query", plan(q, qtype="insight"))

    def by_chunk(req):  # noqa: ANN001, ANN202
        ids = [e["id"] for e in req.context["entries"]]
        if req.context.get("chunk_analyses"):
            return analysis("sufficient", [finding("bench dipped mid-month, runs steady", "2026-01-09#1")],
                            patterns=["low sleep before heavy bench"])
        return analysis("insufficient", [finding(f"read {len(ids)} entries", *ids)],
                        [gap("sleep before Jan 5", "temporal", "nice_to_have")])

    offline.script("analyze_evidence", *[by_chunk] * 4)
    offline.script("synthesize_answer", answer("Bench dipped mid-month after short nights; runs were steady.",
                                               ["2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, q, notes, analysis_chunk_size=3)).result()
    calls = offline.calls("analyze_evidence")
    assert len(calls) == 4
    chunk_prompts = [c.messages[-1]["content"] for c in calls[:3]]
    assert sorted(len(c.context["entries"]) for c in calls[:3]) == [1, 3, 3]
    assert all(p.count("\n[2026-01-") <= 3 for p in chunk_prompts)
    assert any("chunk 1 of 3 (entries 1-3 of 7, 2026-01-05 to 2026-01-07)" in c.messages[0]["content"]
               for c in calls[:3])
    combine = calls[3]
    assert "=== COMBINE ===" in combine.messages[0]["content"] and combine.context["entries"] == []
    assert "read 3 entries" in combine.messages[-1]["content"]
    assert result.attempts["analyze_replan"] == 0 and not result.partial  # the combined verdict decided
