"""Interview pipeline: the public, durable contract of `InterviewWorkflow` — its input, the event log and
session state a UI reads, its result, and the state carried across continue-as-new.

Keep it stable: add optional fields with defaults, never rename or remove. Seeds: 000 (agents, data
structures) and 003 (engine contract).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, computed_field, field_validator

from models.common import (
    MAX_ITEMS,
    MAX_TEXT_CHARS,
    ArtifactRef,
    IdStr,
    NameStr,
    UsageTotals,
)
from models.interview.analysis import FollowUpAnalysis, SectionSummary
from models.interview.entries import AssistantAnswer, TranscriptEntry
from models.interview.names import (
    DEFAULT_ANSWER_PARTS_WAIT_SECONDS,
    DEFAULT_ANSWER_SETTLE_SECONDS,
    DEFAULT_DECISION_DEADLINE_SECONDS,
    DEFAULT_DURATION_SECONDS,
    DEFAULT_FOLLOW_UP_SECONDS,
    DEFAULT_PRESENCE_TIMEOUT_SECONDS,
    MAX_CARRIED_BYTES,
    MAX_ENTRY_CHARS,
    MAX_EVENTS_PER_RUN,
    MIN_EVENTS_PER_RUN,
    MIN_PRESENCE_TIMEOUT_SECONDS,
    Mode,
    Style,
)
from models.interview.notes import DecisionRecord, NotesState, ResearchItem
from models.interview.plan import PlanSnapshot, SectionSnapshot
from models.status import interview_status

# ------------------------------------------------------------------------------------------ input
_LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,3}$")


class InterviewInput(BaseModel):
    """The one typed input of InterviewWorkflow."""

    topic: str = Field(min_length=1, max_length=500)
    context: str = Field(default="", max_length=20000)
    duration_seconds: int = Field(default=DEFAULT_DURATION_SECONDS, ge=30, le=24 * 3600)
    mode: Mode = "adaptive"
    style: Style = "standard"
    sections: list[SectionSnapshot] | None = Field(default=None, max_length=MAX_ITEMS,
                                                   description="Explicit sections/schema: no planner")
    plan: PlanSnapshot | None = Field(default=None, description="A full plan: no planner call")
    previous_session_id: IdStr | None = Field(default=None, description="Follow-up of this earlier interview")
    follow_up_topic: NameStr | None = None
    language: IdStr | None = Field(default=None, description="The interview's language (BCP 47, e.g. 'ja'): the "
                                   "Planner writes the plan in it; a given plan's own `language` wins. None: English")
    cycle_seconds: float = Field(default=10.0, gt=0, description="Runs started before the quiet live cycle only: "
                                  "their cadence timer. The live loop now wakes on entries and arms a timer only "
                                  "when a decision expires (000: 30 s); kept so older runs and scripts still work")
    interviewee_name: NameStr = "the interviewee"
    candidate_id: IdStr | None = None
    write_essay: bool = True
    late_grace_seconds: float = Field(default=15.0, ge=0, le=3600, description="How long after a section ends "
                                      "an answer to its question still counts for it")
    warning_thresholds_seconds: list[int] = Field(default_factory=lambda: [120, 30], max_length=20)
    min_content_words: int = Field(default=15, ge=0, le=100_000,
                                   description="Minimum words before 'candidate done' is honoured")
    max_entry_chars: int = Field(default=MAX_ENTRY_CHARS, ge=1, le=MAX_TEXT_CHARS,
                                 description="The longest entry accepted (longer ones are refused: split them)")
    continue_as_new_after_events: int = Field(
        default=5000, ge=MIN_EVENTS_PER_RUN, le=MAX_EVENTS_PER_RUN,
        description="History events before continue-as-new (fewer would leave a run no room to do anything)")
    essay_on_termination: bool = False
    presence_timeout_seconds: float = Field(
        default=DEFAULT_PRESENCE_TIMEOUT_SECONDS, ge=0,
        description="No interviewee heartbeat for this long while IN_PROGRESS -> PAUSED (0 = presence off). "
                    "Presence starts with the first heartbeat: clients that never heartbeat are never paused")
    decision_deadline_seconds: float = Field(
        default=DEFAULT_DECISION_DEADLINE_SECONDS, ge=0, le=600,
        description="No Orchestrator decision this long after an answer: the plan's next question (000's fallback) "
                    "is put in force and the console shows 'model slow'; the late decision is dropped (0 = wait)")
    answer_settle_seconds: float = Field(
        default=DEFAULT_ANSWER_SETTLE_SECONDS, ge=0, le=60,
        description="An answer that may go on in parts (a part near max_entry_chars with no `parts` count, as "
                    "rooms opened before parts were numbered send them): the engine decides this long after the "
                    "last part (numbered parts: after the last one, or answer_parts_wait_seconds)")
    answer_parts_wait_seconds: float = Field(
        default=DEFAULT_ANSWER_PARTS_WAIT_SECONDS, ge=0, le=600,
        description="Numbered parts: how long the engine waits for the rest of an answer before deciding anyway")
    carried: InterviewState | None = Field(default=None, description="Internal: state carried by continue-as-new")

    MAX_BYTES: ClassVar[int] = MAX_CARRIED_BYTES   # the carried state rides in the input (rules/inputs.py)

    @field_validator("language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        value = (value or "").strip() or None
        if value is not None and not _LANGUAGE_TAG.match(value):
            raise ValueError(f"language {value!r} is not a language code like 'en', 'ja' or 'pt-BR'")
        return value

    @field_validator("presence_timeout_seconds")
    @classmethod
    def _presence_timeout(cls, value: float) -> float:
        if value != 0 and not MIN_PRESENCE_TIMEOUT_SECONDS <= value <= 24 * 3600:
            raise ValueError(f"must be 0 (presence off) or between {MIN_PRESENCE_TIMEOUT_SECONDS:g} and 86400 "
                             "seconds: a page heartbeats at most once a second")
        return value

    @field_validator("carried")
    @classmethod
    def _carried(cls, value: InterviewState | None) -> InterviewState | None:
        if value is not None and (value.started_at is None or value.plan is None
                                  or value.status in ("NOT_STARTED", "PLANNING")):
            raise ValueError("not the state of a started interview (with its plan and start time): `carried` is "
                             "written by continue-as-new only; leave it out to start an interview")
        return value

    @classmethod
    def for_follow_up(cls, previous_session_id: str, follow_up_topic: str, **fields: Any) -> InterviewInput:
        """A 6-minute follow-up of a finished interview (000 'Follow-Up Sessions')."""
        fields.setdefault("duration_seconds", DEFAULT_FOLLOW_UP_SECONDS)
        fields.setdefault("topic", follow_up_topic)
        return cls(previous_session_id=previous_session_id, follow_up_topic=follow_up_topic, **fields)


# --------------------------------------------------------------------------------------------- events / UI
class InterviewEvent(BaseModel):
    event_id: int
    timestamp: datetime = Field(description="Workflow time (server-authoritative)")
    actor: str
    type: str
    section_id: str | None = None
    payload: dict[str, Any] = Field(default_factory=dict)


class EventLogPage(BaseModel):
    events: list[InterviewEvent]
    last_event_id: int
    first_event_id_in_memory: int = 1
    archived: list[ArtifactRef] = Field(default_factory=list,
                                        description="Older events (JSON lines) moved out by continue-as-new")


class SectionStatus(BaseModel):
    id: str
    title: str
    goal: str = ""
    substate: str = "SECTION_PENDING"
    deadline: datetime | None = None
    seconds_remaining: float | None = None
    followup_budget_remaining: int | None = None
    asked: int = 0
    total_questions: int = 0
    importance: str = "medium"


class SessionState(BaseModel):
    """003 §9: everything a UI renders, at any moment. Times are as of `as_of` (the workflow time of the last
    processed event): UIs derive their clocks from the deadlines (003 §5.1)."""

    workflow_id: str
    topic: str
    mode: str
    status: str
    phase: str
    colloquy_status: str = Field(default="running", description="`status` in the shared vocabulary "
                                 "(models/status.py: running, paused, finalizing, completed, halted, failed): the "
                                 "run's ColloquyStatus search attribute")
    current_section: SectionStatus | None = None
    section_goal_text: str = ""
    seconds_remaining_in_section: float | None = None
    seconds_remaining_overall: float | None = None
    elapsed_seconds: float = 0.0
    duration_seconds: int
    upcoming_sections: list[str] = Field(default_factory=list)
    allowed_actions: list[str] = Field(default_factory=list)
    next_question: str | None = None
    interviewer_instructions: str = ""
    coverage_summary: list[str] = Field(default_factory=list)
    coverage_flags: dict[str, str] = Field(default_factory=dict)
    waiting_for: str = ""
    max_entry_chars: int = Field(default=MAX_ENTRY_CHARS, description="The longest entry the engine accepts")
    entries: int = 0
    last_event_id: int = 0
    exit_reason: str | None = None
    paused_since: datetime | None = None
    previous_session_id: str | None = None
    minimum_content_prompted: bool = False
    research_topics: list[str] = Field(default_factory=list)
    as_of: datetime | None = None
    ends_at: datetime | None = None
    asked_question_ids: list[str] = Field(default_factory=list)
    decision_method: str | None = Field(default=None, description="orchestrator | fallback | engine")
    usage: UsageTotals = Field(default_factory=UsageTotals)
    question_event_id: int = Field(default=0, description="Event that put next_question in force")
    question_entry_id: IdStr | None = Field(default=None, description="The entry the engine recorded for "
                                            "next_question; None on a run from before: a client records it, once")
    paused_reason: str | None = Field(default=None, description="pause (a person) | disconnect (presence/client)")
    presence_timeout_seconds: float = Field(default=0.0, description="0: presence off for this session")
    interviewee_seen_at: datetime | None = Field(default=None, description="Last interviewee heartbeat")
    model_slow: bool = Field(default=False, description="The question in force is the fallback's: no decision came "
                             "within decision_deadline_seconds of the answer (the console shows 'model slow')")
    slow_decisions: int = Field(default=0, description="How often this interview put the fallback in force "
                                "because the Orchestrator was slow")
    answer_in_parts: bool = Field(default=False, description="The last answer may go on in parts: the engine "
                                  "waits for them before deciding")


class InterviewResult(BaseModel):
    workflow_id: str
    status: Literal["COMPLETED", "TERMINATED"]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def colloquy_status(self) -> str:
        """`status` in the shared vocabulary (completed, halted): the run's final ColloquyStatus."""
        return interview_status(self.status)
    exit_reason: str
    title: str = ""
    essay: ArtifactRef | None = None
    analysis: ArtifactRef | None = None
    notes: ArtifactRef | None = None
    transcript: ArtifactRef | None = None
    event_log: ArtifactRef | None = None
    evaluation_bundle: ArtifactRef | None = None
    replay_bundle: ArtifactRef | None = None
    section_summaries: ArtifactRef | None = None
    follow_up: FollowUpAnalysis | None = None
    activity_log: ArtifactRef | None = None
    entries: int = 0
    previous_session_id: str | None = None
    usage: UsageTotals = Field(default_factory=UsageTotals)
    error: str | None = None


# ----------------------------------------------------------------------------------- carried (CAN)
class AnswerInProgress(BaseModel):
    """The last interviewee answer, as its parts arrive (rules/interview/answer_flow.py): which answer, where it
    was filed, how many parts came and how many it said it has."""

    answer_id: IdStr
    entry_id: IdStr = Field(description="The id of the last part received (`X`, then `X-2`, ... for old rooms)")
    section_id: str | None = None
    late: bool = False
    received: int = 1
    parts: int | None = None
    last_at: datetime
    last_chars: int = 0
    client_id: str | None = Field(default=None, max_length=200)


class SectionRuntime(BaseModel):
    """Engine bookkeeping per section (carried across continue-as-new)."""

    id: str
    duration_seconds: float = 0.0
    started_at: datetime | None = None
    deadline: datetime | None = None
    ended_at: datetime | None = None
    exit_reason: str | None = None
    substate: str = "SECTION_PENDING"
    warnings_sent: list[int] = Field(default_factory=list)
    followup_budget: int = 0
    followups_asked: list[str] = Field(default_factory=list)
    coverage_flags: dict[str, str] = Field(default_factory=dict)
    candidate_words: int = 0
    entry_ids: list[str] = Field(default_factory=list)
    min_content_prompted: bool = False
    awaiting_answer: bool = False
    summary: SectionSummary | None = None
    summary_due: datetime | None = Field(default=None, description="Ended by time: its summary waits for the late "
                                         "grace (late answers belong to it)")


class InterviewState(BaseModel):
    """The whole durable state of one interview session: held by `rules.interview.session.Session` while the
    run lives, and carried as this one model across continue-as-new. The field names are the wire format of
    `InterviewInput.carried` (formerly `CarriedState`): add fields with defaults, never rename."""

    plan: PlanSnapshot | None = None
    started_at: datetime | None = None
    ends_at: datetime | None = None
    status: str = "NOT_STARTED"
    phase: str = "opening"
    sections: list[SectionRuntime] = Field(default_factory=list)
    current_index: int = -1
    notes: NotesState = Field(default_factory=NotesState)
    research: list[ResearchItem] = Field(default_factory=list)
    researched_at: dict[str, datetime] = Field(default_factory=dict)
    asked_question_ids: list[str] = Field(default_factory=list)
    decision: DecisionRecord | None = None
    event_seq: int = Field(default=0, description="Id of the last event (written when carried)")
    events_tail: list[InterviewEvent] = Field(default_factory=list, description="Events kept in memory when carried")
    event_segments: list[ArtifactRef] = Field(default_factory=list)
    transcript_tail: list[TranscriptEntry] = Field(default_factory=list)
    transcript_segments: list[ArtifactRef] = Field(default_factory=list)
    transcript_count: int = 0
    seen_entry_ids: list[str] = Field(default_factory=list)
    assistant_answers: dict[str, AssistantAnswer] = Field(default_factory=dict)
    processed_seq: int = 0
    paused_since: datetime | None = None
    usage: UsageTotals = Field(default_factory=UsageTotals)
    previous_transcript: list[TranscriptEntry] = Field(default_factory=list)
    activity_log: list[str] = Field(default_factory=list)
    activity_log_segments: list[ArtifactRef] = Field(default_factory=list)
    grace_until: datetime | None = None
    exit_reason: str | None = None
    continued: int = 0
    question_event_id: int = Field(default=0, description="Event that put the decision's question in force")
    engine_asks: bool = Field(default=False, description="The engine records its questions (else clients echo)")
    paused_reason: str | None = None
    interviewee_seen_at: datetime | None = Field(default=None, description="Last interviewee heartbeat: "
                                                 "presence is on once set")
    interviewee_client: str | None = None
    presence_from: datetime | None = Field(default=None, description="Absence counts from here (a resume)")
    client_seqs: dict[str, int] = Field(default_factory=dict, description="Highest client_seq recorded per client_id")
    answered_questions: list[str] = Field(default_factory=list, description="Keys of the interviewer questions "
                                          "that got an answer (rules/interview/questions.py; the newest 500)")
    answer: AnswerInProgress | None = Field(default=None, description="The last answer, as its parts arrive")
    slow_decisions: int = Field(default=0, description="Fallbacks put in force because no decision came in time")
    model_slow: bool = Field(default=False, description="The question in force is a deadline fallback's")
    last_turn: TranscriptEntry | None = Field(default=None, description="The last entry that took a turn, when "
                                              "archiving left none in the tail (only later parts and late answers)")


CarriedState = InterviewState   # the old name of the same model


InterviewInput.model_rebuild()
