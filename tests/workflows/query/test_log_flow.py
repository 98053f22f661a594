"""LOG, BOTH and CORRECTION flows: what reaches the notes, what never does, and concurrent writers."""

from __future__ import annotations

import asyncio
import json

from activities.llm import offline as offline_provider
from models.query.parts import InputType
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


def _parsed(text: str, data: dict, **kw) -> dict:  # noqa: ANN003
    return {"date": "2026-01-16", "timestamp": "2026-01-16T08:00:00Z", "domain_data": data, "raw_content": text,
            "confidence": 0.8, **kw}


async def test_log_is_stored_raw_and_parsed_and_invented_values_are_dropped(ts_env, worker, offline, notes):
    text = "Bench 190x3, felt great!"
    offline.script("route_input", route("log", ["strength"]))
    # The model "invents" a set count and a body weight that the note never states, and a field off-schema.
    offline.script("parse_log", _parsed("Bench 190x3", {
        "strength": {"exercises": [{"name": "bench press", "weight": 190, "reps": 3, "sets": 5}], "mood": "great"},
        "general_fitness": {"perceived_effort": "great", "body_weight": 80}}, uncertain_fields=["strength.unit"]))
    offline.script("observe_context", {"should_update": True, "insights_captured": ["pr"], "updates": [
        {"category": "fact", "key": "bench_pr", "value": "190 x 3", "confidence": "certain", "source": "log"}]})
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, text, notes)).result()
    assert result.input_type == InputType.LOG
    assert result.path == ["ROUTE", "BUILD_CONTEXT", "PARSE", "STORE", "OBSERVE", "COMPLETE"]
    assert result.stored_entries[0].entry_id == "2026-01-16#1"
    raw = (notes / "logs/raw/2026/01/2026-01-16.md").read_text()
    assert "Bench 190x3, felt great!" in raw  # exactly what the user wrote, not the model's raw_content
    record = json.loads((notes / "logs/parsed/2026/01/2026-01-16.json").read_text())["entries"][0]
    assert record["domain_data"] == {"strength": {"exercises": [{"name": "bench press", "weight": 190, "reps": 3}]},
                                     "general_fitness": {"perceived_effort": "great"}}
    assert "strength.mood" in record["uncertain_fields"] and "strength.unit" in record["uncertain_fields"]
    assert "dropped strength.exercises[0].sets: not stated in the input" in record["extraction_notes"]
    assert "Please check:" in result.response
    assert "- bench_pr: 190 x 3 (certain)" in (notes / "global-context.md").read_text()
    assert "TRIGGER: significant_log" in offline.calls("observe_context")[0].messages[0]["content"]


async def test_both_stores_the_log_first_then_answers_using_it(ts_env, worker, offline, notes):
    text = "Tired today, 4 hours sleep. Why am I always tired?"
    q = "Why am I always tired?"
    offline.script("route_input", route("both", [], log_portion="Tired today, 4 hours sleep.", query_portion=q))
    offline.script("parse_log", _parsed("Tired today, 4 hours sleep.", {}))
    offline.script("plan_query", plan(q, instructions=[{"tool": "keyword", "keywords": ["slept", "sleep"]}]))
    offline.script("analyze_evidence", analysis("sufficient", [finding("4 hours of sleep today", "2026-01-16#1"),
                                                               finding("5 hours on Jan 9", "2026-01-09#1")]))
    offline.script("synthesize_answer", answer("Short nights: 4 hours today, 5 on Jan 9.",
                                               ["2026-01-16#1", "2026-01-09#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, text, notes)).result()
    assert result.input_type == InputType.BOTH
    assert result.path[:6] == ["ROUTE", "BUILD_CONTEXT", "PARSE", "STORE", "PLAN", "RETRIEVE"]
    assert unlabelled(result.response).startswith("Logged entry 2026-01-16#1")
    assert "Short nights" in result.response
    # The parser saw only the log portion; the query retrieval found the entry just stored.
    assert "Raw input: Tired today, 4 hours sleep." in offline.calls("parse_log")[0].messages[-1]["content"]
    assert "[2026-01-16#1]" in offline.calls("analyze_evidence")[0].messages[-1]["content"]


async def test_two_corrections_keep_the_whole_history(ts_env, worker, offline, notes):
    for text, weight in (("Actually that was 185 not 85", 185), ("Sorry, correction: it was 180", 180)):
        offline.script("route_input", route("correction", ["strength"], correction_target="Jan 9 bench"))
        offline.script("parse_log", _parsed(text, {}, is_correction=True, target_entry_id="2026-01-09#1",
                                            correction_delta={"strength": {"exercises": [
                                                {"name": "bench press", "weight": weight}]}}))
        offline.script("observe_context", no_update())
        async with worker(ts_env.client) as queue:
            result = await (await start(ts_env, queue, text, notes)).result()
        assert result.stored_entries[0].corrected
    raw = (notes / "logs/raw/2026/01/2026-01-09.md").read_text()
    assert raw.index("Bench 85x5") < raw.index("Actually that was 185 not 85") < raw.index("it was 180")
    record = json.loads((notes / "logs/parsed/2026/01/2026-01-09.json").read_text())["entries"][0]
    assert record["domain_data"]["strength"]["exercises"][0]["weight"] == 180
    assert [c["previous"]["strength"]["exercises"][0]["weight"] for c in record["corrections"]] == [85, 185]
    # Retrieval shows the entry with both corrections attached.
    from datetime import date

    from activities.query.storage import StorageRepository

    entry = StorageRepository(notes).get_entries_by_date_range(date(2026, 1, 9), date(2026, 1, 9))[0]
    assert entry.raw_content.startswith("Bench 85x5") and len(entry.corrections) == 2


async def test_correction_with_unknown_target_is_kept_as_a_flagged_note(ts_env, worker, offline, notes):
    text = "Actually the swim was 2k not 1k"  # no recent entry mentions 1k: nothing to ask about
    offline.script("route_input", route("correction", ["running"]))
    offline.script("parse_log", _parsed(text, {}, is_correction=True, target_entry_id="2025-12-31#4",
                                        correction_delta={"running": {"runs": [{"distance_km": 7}]}}))
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        result = await (await start(ts_env, queue, text, notes)).result()
    assert not result.stored_entries[0].corrected
    assert "not found" in result.warnings[0]
    raw = (notes / "logs/raw/2026/01/2026-01-16.md").read_text()
    assert "Actually the swim was 2k not 1k" in raw
    record = json.loads((notes / "logs/parsed/2026/01/2026-01-16.json").read_text())["entries"][0]
    assert "unresolved-correction" in record["tags"]


async def test_concurrent_logs_and_queries_on_the_same_notes(dev_env, worker, offline, notes):
    """Five logs and two queries at once on one notes folder: every write lands with a distinct id, and both
    queries read the same complete set of earlier entries. Answers derive from each request (order-free).
    Dev server (real clock): while a test awaits results, the time-skipping server can jump past the timeout
    of an activity that is really running (here: stores queued on the notes lock)."""
    ts_env = dev_env
    logs = [f"Plank {i} minutes." for i in range(1, 6)]
    q = "What did I log before today?"

    def route_by_text(req: offline_provider.OfflineRequest) -> dict:
        return route("query" if req.context["text"].endswith("?") else "log", [])

    offline.script("route_input", *[route_by_text] * 7)
    offline.script("parse_log", *[lambda req: _parsed(req.context["text"], {})] * 5)
    offline.script("plan_query", *[plan(q, qtype="simple", instructions=[
        {"tool": "date_range", "start": "2026-01-05", "end": "2026-01-15"}])] * 2)
    offline.script("analyze_evidence", *[lambda req: analysis("sufficient", [
        finding(e["text"], e["id"]) for e in req.context["entries"]])] * 2)
    offline.script("synthesize_answer", *[lambda req: answer(
        f"{len(req.context['findings'])} entries.", [ev for f in req.context["findings"] for ev in f["evidence"]])] * 2)
    offline.script("evaluate_answer", evaluation(), evaluation())
    offline.script("observe_context", no_update(), no_update())
    async with worker(ts_env.client) as queue:
        handles = await asyncio.gather(*(start(ts_env, queue, text, notes) for text in [*logs, q, q]))
        results = await asyncio.gather(*(h.result() for h in handles))
    ids = sorted(r.stored_entries[0].entry_id for r in results[:5])
    assert ids == [f"2026-01-16#{i}" for i in range(1, 6)]
    raw = (notes / "logs/raw/2026/01/2026-01-16.md").read_text()
    assert all(text in raw for text in logs)
    parsed = json.loads((notes / "logs/parsed/2026/01/2026-01-16.json").read_text())
    assert sorted(e["id"] for e in parsed["entries"]) == ids
    for query in results[5:]:
        assert query.entries_read == 7 and len(query.evidence_cited) == 7


async def test_notes_are_dated_on_the_users_clock(ts_env, worker, offline, notes):
    """A note written at 23:30 in UTC-8 is on the user's day, not tomorrow's UTC day."""
    from datetime import UTC, timedelta

    offline.script("route_input", route("log", []))
    offline.script("parse_log", _parsed("Late walk", {}))
    async with worker(ts_env.client) as queue:
        now = await ts_env.get_current_time()
        offset = -8 * 60
        handle = await start(ts_env, queue, "Late walk", notes, today=None, utc_offset_minutes=offset)
        result = await handle.result()
    local = now.astimezone(UTC) + timedelta(minutes=offset)
    stored = result.stored_entries[0]
    assert stored.entry_id.startswith(local.date().isoformat())
    raw = (notes / stored.raw_file).read_text()
    assert f"## {local:%H}:" in raw
