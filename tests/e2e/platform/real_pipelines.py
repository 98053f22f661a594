"""The four pipelines end to end on a real model (issue 10): a rehearsed interview, a notes import then a question
answered after a clarification, a writing run with three model ids, a standard discussion.

Each `run_*` drives one pipeline through the in-process workers on the dev server (real clock) and returns a
`Run`: its result and every defect read from the run's own records (results, event logs, workflow histories):
an invalid-output failure anywhere (an InvalidLLMOutput attempt, an AI_FAILED event), a fallback plan, an agent
that failed and was skipped, an unscored outcome, a below-floor writing run because an output was invalid. A weak
answer is fine; an invalid one is a defect.

Used by test_pipelines_local.py (the `local` profile, in-process SmolLM2) and test_pipelines_http.py (the same
model behind llama-cpp-python's OpenAI-compatible server, `config` profile with `openai_compatible`).
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle

from tests.path_roots import path_roots

#: What an invalid output leaves in a history (the gateway's error type and message).
INVALID_MARKS = ("InvalidLLMOutput", "returned invalid output")
NOTES = {
    "2026-01-05.md": "Bench press 3x5 at 60 kg, felt strong. Slept 8 hours.\n",
    "2026-01-07.md": "Squat 3x5 at 80 kg. Knees a bit sore.\n",
    "2026-01-09.md": "Bench press 3x5 at 62.5 kg, felt heavy. Slept 5 hours.\n",
}
STORY = ("# The lighthouse keeper\n\nMara kept the light on the north rock for thirty years. Every night she climbed "
         "the hundred and twelve steps, trimmed the wick and watched the ships pass. One winter a storm cut the "
         "cable to the mainland and no supply boat came for six weeks. She rationed the oil, burned the furniture "
         "for heat and kept the lamp lit. When the boat finally came, the captain asked why she had not simply "
         "let it go dark for a few nights. She said the ships did not know about the storm on the cable.\n")


@dataclass
class Run:
    pipeline: str
    seconds: float = 0.0
    result: Any = None
    defects: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what happened, for the report (not defects)
    handles: list[WorkflowHandle] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)  # the interview's questions as the interviewee saw them
    essay: str = ""
    said: list[str] = field(default_factory=list)       # the interviewee's entries

    def line(self) -> str:
        return f"{self.pipeline}: {self.seconds:.0f} s, defects={self.defects or 'none'}; {'; '.join(self.notes)}"


def slow(text: str) -> bool:
    """A failure that says the model was too slow (a timed-out attempt or call), not that it answered badly."""
    low = text.lower()
    return any(mark in low for mark in ("timeout", "timed out", "no answer within", "no time left"))


async def attempt_failures(handle: WorkflowHandle) -> tuple[list[str], list[str]]:
    """(defects, notes) from the workflow's history.

    Defects: an invalid output (the last failure, or one that was retried) and a failure that is not about time.
    Notes: an attempt or call that ran out of time (retried, or answered by the fallback the workflow has for it).
    A person's machine is rarely idle: on a busy 2-core machine the 135M model sometimes writes past a live agent's
    45 s attempt, and the designed answers (a second attempt, the engine's fallback question or plan) are what a
    person gets; the run reports how often, and fails only on what a person would see broken (issue 41)."""
    history = await handle.fetch_history()
    defects: list[str] = []
    notes: list[str] = []
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
            notes.append(f"an attempt timed out (event {event.event_id})")
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
            failure = event.activity_task_failed_event_attributes.failure
            text = f"{failure.application_failure_info.type} {failure.message}"
            if any(mark in text for mark in INVALID_MARKS):
                defects.append(f"{handle.id}: {failure.message[:300]}")
            elif failure.HasField("timeout_failure_info") or slow(text):
                notes.append(f"failed slow: {failure.message[:160]}")
            else:
                defects.append(f"{handle.id}: {failure.message[:300]}")
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED and \
                event.activity_task_started_event_attributes.HasField("last_failure"):
            # an attempt that failed and was retried leaves no event of its own: the started event of the
            # attempt that followed carries it
            failure = event.activity_task_started_event_attributes.last_failure
            text = f"{failure.application_failure_info.type} {failure.message}"
            if any(mark in text for mark in INVALID_MARKS):
                defects.append(f"{handle.id}: {failure.message[:300]}")
            elif failure.HasField("timeout_failure_info") or slow(text):
                notes.append(f"retried after: {failure.message[:160]}")
    return defects, notes


async def check_histories(run: Run) -> None:
    for handle in run.handles:
        defects, notes = await attempt_failures(handle)
        run.defects += defects
        run.notes += notes


# ------------------------------------------------------------------------------------------------ interview
async def run_interview(client: Client, queue: str) -> Run:
    from client.interview.cli import (
        RehearsalOptions,
        TranscriptAnswers,
        fetch_essay,
        rehearse,
        start_interview,
    )
    from models.interview.entries import TranscriptView
    from models.interview.names import QUERY_EVENT_LOG, QUERY_TRANSCRIPT
    from models.interview.workflow import EventLogPage, InterviewInput
    from tests.e2e.interview.helpers import ANSWERS

    run = Run("interview rehearse")
    started = time.monotonic()
    inp = InterviewInput(topic="What on-call taught me", duration_seconds=900, cycle_seconds=5.0,
                         interviewee_name="Maya")
    handle = await start_interview(client, inp, f"real-interview-{uuid.uuid4().hex[:6]}", queue)
    run.handles.append(handle)
    report = await rehearse(client, handle.id, TranscriptAnswers(ANSWERS[:2]),
                            RehearsalOptions(fresh_question_timeout=300, start_timeout=600))
    ended = time.monotonic()
    result, essay, _ = await asyncio.wait_for(fetch_essay(handle, wait=True), 900)
    log = await handle.query(QUERY_EVENT_LOG, 0, result_type=EventLogPage)
    view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
    run.said = [e.text for e in view.entries if e.speaker == "interviewee"]
    run.seconds, run.result, run.essay = time.monotonic() - started, result, essay
    run.questions = list(report.questions)
    run.notes.append(f"{report.turns} turns, {len(report.questions)} questions, {result.usage.calls} calls, "
                     f"essay {len(essay)} chars {time.monotonic() - ended:.0f} s after the end")
    if result.status != "COMPLETED" or result.essay is None:
        run.defects.append(f"interview ended {result.status} ({result.exit_reason}), essay {result.essay}")
    for event in log.events:
        text = str(event.payload)
        if event.type == "AI_FAILED":
            error = f"AI_FAILED {event.payload.get('agent')}: {str(event.payload.get('error'))[:200]}"
            (run.notes if slow(error) else run.defects).append(error)
        elif "⚠️" in text or "Planner failed" in text:
            # the engine's designed degradation (its fallback plan or question): what it was, for the report
            run.notes.append(f"{event.type}: {text[:160]}")
    await check_histories(run)
    return run


# ---------------------------------------------------------------------------------------------------- notes
QUESTION = "Why did my bench press feel heavy on January 9?"
#: The Planner's decisions for the ask with a clarification: search, then ask the user, then answer. SmolLM2 never
#: chooses "clarify" itself (tried with four questions, November 2026), so only these decisions are scripted
#: (the offline double answers plan_query); the Router, Retriever, Analyzer, Clarifier (the questions the user
#: sees), Synthesizer, Evaluator and Observer are the real model.
CLARIFYING_PLANS = [
    {"original_query": QUESTION, "query_type": "insight", "next_action": "retrieve", "reasoning": "scripted",
     "retrieval_instructions": [{"tool": "date_range", "start": "2026-01-01", "end": "2026-01-12"}]},
    {"original_query": QUESTION, "query_type": "insight", "next_action": "clarify", "reasoning": "scripted",
     "clarify_questions": ["How did you sleep and feel in the days before January 9?"]},
    {"original_query": QUESTION, "query_type": "insight", "next_action": "synthesize", "reasoning": "scripted"},
]
ANSWER = "I slept badly and had a cold that week."


async def ask(client: Client, queue: str, notes: Path, run: Run) -> tuple[Any, int]:
    """One question through QueryWorkflow; every clarification it asks is answered. (result, questions asked)"""
    from client.query.cli import pending_clarification
    from models.query.workflow import UPDATE_CLARIFY, WORKFLOW_TYPE, ClarifyAnswer, QueryRequest, QueryResult

    handle = await client.start_workflow(
        WORKFLOW_TYPE, QueryRequest(text=QUESTION, app_id="fitness", notes_dir=notes.name, today=date(2026, 1, 12),
                                    clarification_timeout_s=900),
        id=f"real-ask-{uuid.uuid4().hex[:6]}", task_queue=queue, result_type=QueryResult)
    run.handles.append(handle)
    asked = 0
    task = asyncio.ensure_future(handle.result())
    while not task.done():
        await asyncio.wait({task}, timeout=0.5)
        pending = await pending_clarification(handle)
        if pending is not None and not task.done():
            run.notes.append(f"asked: {[q.question for q in pending.questions]}")
            await handle.execute_update(UPDATE_CLARIFY, ClarifyAnswer(
                request_id=pending.request_id, answers={q.id: ANSWER for q in pending.questions}))
            asked += 1
    result: QueryResult = await task
    run.notes.append(f"clarifications {asked}; path {'→'.join(result.path)}")
    if not result.response:
        run.defects.append(f"{handle.id}: no answer")
    for warning in result.warnings:
        if any(w in warning for w in ("failed", "invalid", "fallback", "no new question")):
            run.defects.append(f"{handle.id}: warning: {warning[:200]}")
    return result, asked


@contextmanager
def clarifying_planner(tmp: Path) -> Iterator[None]:
    """plan_query answered by the offline double, scripted with CLARIFYING_PLANS (every other agent unchanged)."""
    from activities.llm import offline
    from activities.llm.config import reset_config_cache

    path = tmp / "planner-offline.yaml"
    path.write_text("llm:\n  agents:\n    plan_query:\n      provider: offline\n")
    before = os.environ.get("COLLOQUY_CONFIG")
    os.environ["COLLOQUY_CONFIG"] = str(path)
    reset_config_cache()
    offline.script("plan_query", *CLARIFYING_PLANS)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("COLLOQUY_CONFIG", None)
        else:
            os.environ["COLLOQUY_CONFIG"] = before
        reset_config_cache()


async def run_notes(client: Client, queue: str, tmp: Path, with_clarification: bool = True) -> Run:
    """Import three notes, ask a question with the real model throughout, then ask it again with the Planner's
    decisions scripted to clarify (`clarifying_planner`) and answer the real Clarifier's question."""
    from client.query.cli import run_import

    run = Run("notes import + ask")
    started = time.monotonic()
    src, notes = tmp / "export", tmp / "notes"
    src.mkdir(parents=True, exist_ok=True)
    for name, text in NOTES.items():
        (src / name).write_text(text)
    with path_roots(tmp):   # the test's folder is the worker's notes root and import root (in-process worker)
        wf_id, imported = await run_import(client, src, "fitness", str(notes), queue, batch_size=10)
    run.handles.append(client.get_workflow_handle(wf_id))
    run.notes.append(f"import {imported.imported}/{imported.total}")
    if imported.imported != len(NOTES) or imported.failed:
        run.defects.append(f"import: {imported.imported}/{imported.total} imported, failed {imported.failed}")
    with path_roots(tmp):
        real, _ = await ask(client, queue, notes, run)
        clarified, asked = None, 0
        if with_clarification:
            with clarifying_planner(tmp):
                clarified, asked = await ask(client, queue, notes, run)
    run.seconds, run.result = time.monotonic() - started, (real, clarified, asked)
    await check_histories(run)
    return run


# -------------------------------------------------------------------------------------------------- writing
async def run_writing(client: Client, queue: str, models: list[str]) -> Run:
    from models.writing.workflow import WORKFLOW_TYPE, WritingInput, WritingResult

    run = Run("write")
    started = time.monotonic()
    handle = await client.start_workflow(
        WORKFLOW_TYPE, WritingInput(story_text=STORY, story_name="lighthouse", models=models),
        id=f"real-writing-{uuid.uuid4().hex[:6]}", task_queue=queue, result_type=WritingResult)
    run.handles.append(handle)
    result: WritingResult = await asyncio.wait_for(handle.result(), 1800)
    run.seconds, run.result = time.monotonic() - started, result
    run.notes.append(f"status {result.status}, score {result.final_score}, reason {result.reason}, "
                     f"{result.tokens} tokens")
    if result.status not in ("complete", "complete_below_floor") or result.final_post is None:
        run.defects.append(f"writing ended {result.status}: {result.reason}")
    await check_histories(run)
    return run


# ----------------------------------------------------------------------------------------------- discussion
async def run_discussion(client: Client, queue: str) -> Run:
    from models.discussion.workflow import WORKFLOW_TYPE, DiscussionInput, DiscussionResult

    run = Run("discuss standard")
    started = time.monotonic()
    handle = await client.start_workflow(
        WORKFLOW_TYPE, DiscussionInput(topic="How can a small town library get more teenagers to visit?",
                                       level="standard"),
        id=f"real-discussion-{uuid.uuid4().hex[:6]}", task_queue=queue, result_type=DiscussionResult)
    run.handles.append(handle)
    result: DiscussionResult = await asyncio.wait_for(handle.result(), 1800)
    run.seconds, run.result = time.monotonic() - started, result
    run.notes.append(f"outcome {result.outcome}, {len(result.ideas)} ideas, {result.usage.calls} calls")
    if result.outcome == "unscored":
        run.defects.append(f"unscored: {result.outcome_detail}")
    for event in result.events:
        if event.kind in ("agent_failed", "agent_skipped", "report_failed", "transcript_failed",
                          "selection_comment_failed", "score_warning"):
            run.defects.append(f"{event.kind} {event.phase}/{event.role}: {event.message[:200]}")
    await check_histories(run)
    return run


def timedelta_s(seconds: float) -> timedelta:
    return timedelta(seconds=seconds)


# ------------------------------------------------------------------ what "done" means, the same for every path
def expect_interview(run: Run) -> None:
    """What a person needs: the interview completes with questions that are questions and an essay whose quotes
    are the interviewee's own words (a slow call's fallback is fine: it is in the notes the test prints)."""
    from rules.interview.essay_checks import Speaker, measure
    from rules.interview.essay_repair import essay_sentences
    from rules.interview.question_text import is_askable

    print(f"\n{run.line()}")
    assert not run.defects, run.line()
    assert run.result.status == "COMPLETED" and run.result.essay is not None, run.line()
    assert run.questions, run.line()
    assert all(is_askable(q, closing=True)[0] for q in run.questions), (run.questions, run.line())
    figures = measure(essay_sentences(run.essay), Speaker.of(run.said, "Maya"))
    assert figures.quotes_verbatim_pct == 100.0, (figures, run.essay[:400])


def expect_notes(run: Run) -> None:
    print(f"\n{run.line()}")
    assert not run.defects, run.line()
    real, clarified, asked = run.result
    assert real.response and clarified.response, run.line()
    assert asked >= 1 and "WAIT_USER" in clarified.path, run.line()


def expect_writing(run: Run) -> None:
    print(f"\n{run.line()}")
    assert not run.defects, run.line()
    assert run.result.status in ("complete", "complete_below_floor") and not run.result.forced, run.line()


def expect_discussion(run: Run) -> None:
    print(f"\n{run.line()}")
    assert not run.defects, run.line()
    assert run.result.outcome in ("selected", "no_idea_met_threshold"), run.line()
    assert all(idea.overall is not None for idea in run.result.ideas), run.line()  # every idea scored
