"""Driving an InterviewWorkflow from a test: start it, speak at given (skipped) times, read its event log."""

from __future__ import annotations

import uuid

from temporalio.client import WorkflowHandle

from models.interview.entries import SessionControl, SubmitEntryResult, TranscriptEntry, TranscriptView
from models.interview.names import (
    QUERY_EVENT_LOG,
    QUERY_SESSION_STATE,
    QUERY_TRANSCRIPT,
    SIGNAL_SESSION_CONTROL,
    UPDATE_SESSION_CONTROL,
    UPDATE_SUBMIT_ENTRY,
)
from models.interview.workflow import EventLogPage, InterviewEvent, InterviewInput, SessionState
from rules.interview.session_base import ENGINE_CLIENT
from rules.text import workflow_id
from workflows.interview.workflow import InterviewWorkflow


async def start(env, queue: str, **fields) -> WorkflowHandle:
    inp = InterviewInput(**{"topic": "Running on-call for a payments team", **fields})
    return await env.client.start_workflow(InterviewWorkflow.run, inp, id=workflow_id("interview", inp.topic, uuid.uuid4().hex[:6]),
                                           task_queue=queue)


async def say(handle: WorkflowHandle, speaker: str, text: str, entry_id: str | None = None,
              kind: str = "message") -> SubmitEntryResult:
    entry = TranscriptEntry(entry_id=entry_id or uuid.uuid4().hex[:10], speaker=speaker, text=text, kind=kind)
    return await handle.execute_update(UPDATE_SUBMIT_ENTRY, entry, result_type=SubmitEntryResult)


async def control(handle: WorkflowHandle, action: str) -> SessionState:
    return await handle.execute_update(UPDATE_SESSION_CONTROL, SessionControl(action=action), result_type=SessionState)


async def signal_control(handle: WorkflowHandle, action: str) -> None:
    await handle.signal(SIGNAL_SESSION_CONTROL, SessionControl(action=action))


async def state(handle: WorkflowHandle) -> SessionState:
    return await handle.query(QUERY_SESSION_STATE, result_type=SessionState)


async def events(handle: WorkflowHandle, after: int = 0) -> list[InterviewEvent]:
    page = await handle.query(QUERY_EVENT_LOG, after, result_type=EventLogPage)
    return page.events


async def sent(handle: WorkflowHandle) -> list[TranscriptEntry]:
    """The transcript's entries that clients sent (not the questions the engine recorded itself)."""
    view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
    return [e for e in view.entries if e.client_id != ENGINE_CLIENT]


def engine_questions(entries) -> list:
    """The questions the engine recorded itself, from a transcript (entries or their JSON dicts)."""
    return [e for e in entries if (e.get("client_id") if isinstance(e, dict) else e.client_id) == ENGINE_CLIENT]


def of_type(evts: list[InterviewEvent], *types: str) -> list[InterviewEvent]:
    return [e for e in evts if e.type in types]


def structured_sections():
    """A three-section 003 schema (5 + 5 + 2 minutes) with required dimensions and follow-up pools."""
    from models.interview.plan import DimensionSpec, SectionSnapshot

    return [
        SectionSnapshot(id="design", title="System design", goal="Design a rate limiter", duration_seconds=300,
                        followup_cap=2, primary_prompt="Design a rate limiter for our public API.",
                        required_dimensions=[DimensionSpec(name="metrics", priority=1, keywords=["latency", "throughput"]),
                                             DimensionSpec(name="failure_modes", priority=2, keywords=["outage", "fallback"])],
                        followup_pool={"metrics": ["How would you measure whether it works?", "What latency budget would you set?"],
                                       "failure_modes": ["What happens when the counter store is down?"]}),
        SectionSnapshot(id="coding", title="Coding", goal="Implement the token bucket", duration_seconds=300,
                        followup_cap=1, primary_prompt="Implement a token bucket.",
                        allowed_actions=["chat", "code", "submit", "ask_assistant"],
                        required_dimensions=[DimensionSpec(name="correctness", keywords=["refill", "capacity"])],
                        followup_pool={"correctness": ["How do you refill tokens?"]}),
        SectionSnapshot(id="wrap", title="Wrap-up", goal="Reflect", duration_seconds=120, followup_cap=1,
                        primary_prompt="What would you improve with more time?",
                        required_dimensions=[DimensionSpec(name="reflection", keywords=["improve", "differently"])],
                        followup_pool={"reflection": ["What would you do differently?"]}),
    ]


def assessment(**flags) -> dict:
    """A scripted interviewer-AI answer (structured mode): coverage per dimension."""
    return {"phase": "opening", "next_question": {"text": "(engine picks)"}, "interviewer_brief": "Keep it crisp.",
            "coverage": [{"dimension": d, "status": s} for d, s in flags.items()]}


def adaptive_plan():
    """A small known plan (ids the tests can assert on)."""
    from models.interview.plan import PlanSnapshot, QuestionSnapshot, SectionSnapshot

    return PlanSnapshot(topic="Running on-call for a payments team", research_goal="Why on-call breaks teams",
                        angle="Pager fatigue is a design smell", sections=[
        SectionSnapshot(id="origins", title="Origins", importance="high", questions=[
            QuestionSnapshot(id="q-origin", text="How did you end up carrying the pager?", priority=2),
            QuestionSnapshot(id="q-worst", text="Tell me about the worst night you had on call", priority=1)]),
        SectionSnapshot(id="practice", title="Practice", importance="medium", questions=[
            QuestionSnapshot(id="q-measure", text="How do you measure whether an on-call rotation is healthy?",
                             priority=1),
            QuestionSnapshot(id="q-never", text="What would you never do again?", priority=3)]),
    ])


def decision(text: str, source: str = "plan", qid: str | None = None, phase: str = "opening",
             brief: str = "Ask it warmly.") -> dict:
    return {"phase": phase, "next_question": {"text": text, "source": source, "source_question_id": qid,
                                              "target_section_id": "origins"},
            "interviewer_brief": brief}
