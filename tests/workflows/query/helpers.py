"""Shared helpers for the query pipeline's workflow tests: a notes folder with known entries, builders for
scripted agent answers, and a starter. Every test scripts the agents whose answers it asserts on."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from activities.query.storage import StorageRepository
from client.query.paths import notes_dir_for_worker
from models.query.parts import Entry
from models.query.workflow import OFFLINE_ANSWER_LABEL, QueryRequest
from workflows.query.workflow import QueryWorkflow

TODAY = date(2026, 1, 16)

# Two weeks of a fitness log (the same facts as apps/fitness/sample_notes), with parsed data.
NOTES: list[tuple[str, str, str, dict[str, Any]]] = [
    ("2026-01-05", "07:30", "Bench 185x5 for 3 sets, felt strong. Slept 8 hours.",
     {"strength": {"exercises": [{"name": "bench press", "weight": 185, "sets": 3, "reps": 5}]}}),
    ("2026-01-06", "18:00", "Easy run 5k in 28 minutes, pace 5:36/km.",
     {"running": {"runs": [{"distance_km": 5, "duration_min": 28}]}}),
    ("2026-01-07", "07:30", "Squat 225x5x3. Slept 7 hrs. Dinner: chicken and rice, 45g protein.",
     {"strength": {"exercises": [{"name": "back squat", "weight": 225, "sets": 3, "reps": 5}]}}),
    ("2026-01-08", "21:00", "Rest day. Stressful day at work.", {}),
    ("2026-01-09", "07:30", "Bench 85x5 but felt heavy, only got 2 sets. Slept 5 hours, late night deadline.",
     {"strength": {"exercises": [{"name": "bench press", "weight": 85, "sets": 2, "reps": 5}]}}),
    ("2026-01-12", "07:30", "Bench 175x5x3, still heavy. Slept 5.5 hours.",
     {"strength": {"exercises": [{"name": "bench press", "weight": 175, "sets": 3, "reps": 5}]}}),
    ("2026-01-14", "18:00", "Tempo run 6k, pace 5:05/km, felt good.", {"running": {"runs": [{"distance_km": 6}]}}),
]


def seed_notes(root: Path) -> StorageRepository:
    repo = StorageRepository(root)
    for day, hhmm, text, data in NOTES:
        d = date.fromisoformat(day)
        h, m = (int(x) for x in hhmm.split(":"))
        repo.save_entry(Entry(id="", date=d, timestamp=datetime(d.year, d.month, d.day, h, m, tzinfo=UTC),
                              raw_content=text, domain_data=data, tags=sorted(data)))
    return repo


def route(kind: str, domains: list[str] | None = None, **kw: Any) -> dict[str, Any]:
    return {"input_type": kind, "confidence": 0.9, "selected_domains": domains or [],
            "domain_selection_reasoning": "scripted", "reasoning": "scripted", **kw}


def plan(query: str, *, action: str = "retrieve", instructions: list[dict] | None = None, qtype: str = "insight",
         subs: list[dict] | None = None, strategy: str = "coupled", order: list[int] | None = None,
         **kw: Any) -> dict[str, Any]:
    return {"original_query": query, "query_type": qtype, "sub_queries": subs or [{"id": 1, "question": query}],
            "dependencies": [], "execution_strategy": strategy, "execution_order": order or [],
            "retrieval_instructions": instructions if instructions is not None else
            [{"tool": "date_range", "start": "2026-01-05", "end": "2026-01-15"}],
            "gaps_status": {}, "next_action": action, "reasoning": "scripted", **kw}


def finding(claim: str, *evidence: str) -> dict[str, Any]:
    return {"claim": claim, "evidence": list(evidence), "confidence": "high"}


def gap(desc: str, kind: str = "temporal", severity: str = "critical", **kw: Any) -> dict[str, Any]:
    return {"description": desc, "gap_type": kind, "severity": severity, **kw}


def analysis(verdict: str = "sufficient", findings: list[dict] | None = None, gaps: list[dict] | None = None,
             patterns: list[str] | None = None) -> dict[str, Any]:
    return {"query_intent": "scripted", "findings": findings or [], "patterns_identified": patterns or [],
            "gaps_identified": gaps or [], "verdict": verdict, "verdict_reasoning": "scripted"}


def answer(text: str, evidence: list[str] | None = None, **kw: Any) -> dict[str, Any]:
    return {"response": text, "key_points": [text[:40]], "evidence_cited": evidence or [], "confidence": "high", **kw}


def evaluation(*failing: str, feedback: str = "") -> dict[str, Any]:
    dims = [{"dimension": d, "verdict": "fail" if d in failing else "pass", "reasoning": "scripted",
             "issues": [f"{d} issue: {feedback}"] if d in failing else []}
            for d in ("accuracy", "relevance", "safety", "completeness")]
    fb = [{"issue": feedback, "suggestion": "look further back"}] if failing and feedback else []
    return {"dimensions": dims, "overall_verdict": "fail" if failing else "pass", "feedback": fb,
            "recommendation": "retry_with_more_context" if failing else "accept"}


def no_update() -> dict[str, Any]:
    return {"should_update": False, "updates": [], "insights_captured": []}


async def start(env, queue: str, text: str, notes: Path, **kw: Any):  # noqa: ANN001, ANN201
    req = QueryRequest(text=text, app_id=kw.pop("app_id", "fitness"), notes_dir=notes_dir_for_worker(str(notes)),
                       today=kw.pop("today", TODAY), **kw)
    return await env.client.start_workflow(QueryWorkflow.run, req, id=f"notes-test-{uuid.uuid4().hex[:8]}",
                                           task_queue=queue)


def recording(name: str) -> str | None:
    """Record tests/histories/NAME.json only when asked (COLLOQUY_RECORD_HISTORIES=1) or when it is missing,
    so the committed history stays the one test_replay.py checks new code against."""
    import os

    from tests.conftest import HISTORIES

    if os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1" or not (HISTORIES / f"{name}.json").exists():
        return name
    return None


def unlabelled(response: str) -> str:
    """The answer without its offline label (every answer the offline test double produced carries it)."""
    assert response.startswith(OFFLINE_ANSWER_LABEL + " "), response[:80]
    return response[len(OFFLINE_ANSWER_LABEL) + 1:]
