"""Interview pipeline payloads: the public, durable contract of `InterviewWorkflow`.

Clients (CLI, rehearsal, voice front ends, the Temporal CLI) use these names. Keep them stable: add optional
fields with defaults, never rename or remove. Seeds: 000 (agents, data structures) and 003 (engine contract).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, Field, computed_field, field_validator

from models.common import (
    MAX_ITEMS,
    MAX_TEXT_CHARS,
    ArtifactRef,
    IdStr,
    LineStr,
    NameStr,
    TextStr,
    UsageTotals,
)
from models.status import interview_status

# ------------------------------------------------------------------------------------------- public names
WORKFLOW_TYPE = "InterviewWorkflow"
TASK_QUEUE = "colloquy"
SIGNAL_TRANSCRIPT_ENTRY = "transcript_entry"      # high-rate stream; bad entries are logged as ENTRY_REJECTED
UPDATE_SUBMIT_ENTRY = "submit_entry"              # validated; returns SubmitEntryResult or a clear error
SIGNAL_SESSION_CONTROL = "session_control"        # pause|resume|disconnect|reconnect|candidate_done|end
UPDATE_SESSION_CONTROL = "control_session"        # same payload, validated, returns SessionState
UPDATE_ASSISTANT_QUERY = "assistant_query"        # 003 §8 assistant channel: AssistantQuery -> AssistantAnswer
UPDATE_HEARTBEAT = "heartbeat"                    # presence: Heartbeat -> SessionState (no heartbeat for N s: PAUSED)
QUERY_SESSION_STATE = "session_state"             # -> SessionState (003 §9 UI contract)
QUERY_EVENT_LOG = "event_log"                     # (after_event_id: int = 0) -> EventLogPage
QUERY_TRANSCRIPT = "transcript"                   # -> TranscriptView
QUERY_NOTES = "notes"                             # -> NotesState
QUERY_PLAN = "plan"                               # -> PlanSnapshot | None

DEFAULT_DURATION_SECONDS = 840                    # 000: a 14-minute interview
DEFAULT_FOLLOW_UP_SECONDS = 360                   # 000: a 6-minute follow-up session
DEFAULT_PRESENCE_TIMEOUT_SECONDS = 20.0           # no interviewee heartbeat this long -> PAUSED (disconnect)
MAX_ENTRY_CHARS = 8000                            # longer entries are rejected (split them)
MIN_EVENTS_PER_RUN = 50                           # continue_as_new_after_events: fewer deadlocks a run
MAX_EVENTS_PER_RUN = 50_000                       # Temporal's own limit is 51,200 events
MIN_PRESENCE_TIMEOUT_SECONDS = 1.0                # presence_timeout_seconds: 0 (off) or at least this
MAX_CARRIED_BYTES = 1_536 * 1024                  # an input with carried state (under Temporal's 2 MB limit)

Mode = Literal["adaptive", "structured"]
Style = Literal["standard", "punchy", "reflective"]
Phase = Literal["opening", "deep_dive", "wrap_up"]
Status = Literal["NOT_STARTED", "PLANNING", "IN_PROGRESS", "PAUSED", "FINALIZING", "COMPLETED", "TERMINATED"]
SectionSubstate = Literal["SECTION_INTRO", "SECTION_QUESTION_ACTIVE", "SECTION_FOLLOWUP_ACTIVE", "SECTION_WRAPUP",
                          "SECTION_ENDED", "SECTION_PENDING"]
Actor = Literal["system", "interviewer_ai", "assistant_ai", "candidate", "interviewer", "client"]
ControlAction = Literal["pause", "resume", "disconnect", "reconnect", "candidate_done", "end"]
CONTROL_ACTIONS: tuple[str, ...] = ("pause", "resume", "disconnect", "reconnect", "candidate_done", "end")
SPEAKERS: tuple[str, ...] = ("interviewer", "interviewee")
# Accepted spellings of the two speakers (000 says "expert", 003 says "candidate").
SPEAKER_ALIASES: dict[str, str] = {"interviewer": "interviewer", "host": "interviewer",
                                   "interviewee": "interviewee", "expert": "interviewee",
                                   "candidate": "interviewee", "guest": "interviewee"}
ENTRY_KINDS: tuple[str, ...] = ("message", "code")

# 003 §3.2 event types (plus a few of ours, documented in docs/interview.md).
EVENT_TYPES: tuple[str, ...] = (
    "INTERVIEW_CREATED", "INTERVIEW_STARTED", "SECTION_STARTED", "PROMPT_PRESENTED", "CANDIDATE_MESSAGE",
    "FOLLOWUP_PRESENTED", "CANDIDATE_CODE_SUBMISSION", "ASSISTANT_QUERY", "ASSISTANT_RESPONSE",
    "SECTION_TIME_WARNING", "SECTION_ENDED", "INTERVIEW_COMPLETED", "INTERVIEW_TERMINATED",
    # ours
    "PLAN_READY", "INTERVIEWER_MESSAGE", "PHASE_CHANGED", "AI_REQUEST", "AI_RESPONSE", "AI_FAILED",
    "SESSION_PAUSED", "SESSION_RESUMED", "CANDIDATE_DONE_REQUESTED", "ENTRY_REJECTED", "CONTROL_REJECTED",
    "CLOSING_DETECTED", "COVERAGE_UPDATED", "CONTINUED_AS_NEW", "ARTIFACT_SAVED",
    "SCHEDULE_CHANGED",
)


# ------------------------------------------------------------------------------------------- plan (000)
class QuestionSnapshot(BaseModel):
    id: IdStr
    text: LineStr
    role: Literal["backbone", "followup"] = "backbone"
    priority: int = Field(default=2, ge=1, le=3, description="1 = must-hit, 2 = important, 3 = nice-to-have")
    notes_for_interviewer: LineStr = ""


class DimensionSpec(BaseModel):
    """003 §6.2: a required dimension of a section (structured mode)."""

    name: NameStr
    priority: int = Field(default=1, ge=1, le=3, description="1 = highest; ties keep schema order")
    keywords: list[NameStr] = Field(default_factory=list, max_length=MAX_ITEMS,
                                    description="Words whose mention counts as covering it")


class SectionSnapshot(BaseModel):
    id: IdStr
    title: NameStr
    importance: Literal["high", "medium", "low"] = "medium"
    goal: LineStr = ""
    duration_seconds: int | None = Field(default=None, description="None: a share of the interview by importance")
    questions: list[QuestionSnapshot] = Field(default_factory=list, max_length=MAX_ITEMS)
    # structured mode (003 §6)
    primary_prompt: LineStr | None = None
    required_dimensions: list[DimensionSpec] = Field(default_factory=list, max_length=MAX_ITEMS)
    followup_pool: dict[NameStr, Annotated[list[LineStr], Field(max_length=MAX_ITEMS)]] = Field(
        default_factory=dict, max_length=MAX_ITEMS, description="dimension -> questions")
    followup_cap: int = 2
    allowed_actions: list[IdStr] = Field(default_factory=lambda: ["chat", "submit", "ask_assistant"],
                                         max_length=MAX_ITEMS)


class PlanSnapshot(BaseModel):
    topic: NameStr
    research_goal: LineStr
    angle: LineStr
    sections: list[SectionSnapshot] = Field(max_length=MAX_ITEMS)
    schema_version: IdStr = "1"
    is_follow_up: bool = False
    previous_session_id: IdStr | None = None
    follow_up_context: TextStr = ""


# ------------------------------------------------------------------------------------------ input
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
    carried: InterviewState | None = Field(default=None, description="Internal: state carried by continue-as-new")

    MAX_BYTES: ClassVar[int] = MAX_CARRIED_BYTES   # the carried state rides in the input (rules/inputs.py)

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


# ------------------------------------------------------------------------------------- live entries
class TranscriptEntry(BaseModel):
    """One utterance (or code submission). Clients fill entry_id/speaker/text/kind/client_timestamp; the engine
    fills the rest (seq, received_at, section_id, late)."""

    entry_id: IdStr = Field(description="Client-chosen unique id; a repeated id is ignored (idempotency)")
    speaker: IdStr = Field(description="interviewer | interviewee (aliases: expert, candidate)")
    text: TextStr
    kind: IdStr = Field(default="message", description="message | code")
    client_timestamp: datetime | None = None
    seq: int = 0
    received_at: datetime | None = None
    elapsed_seconds: float | None = None
    section_id: IdStr | None = None
    late: bool = False
    session_id: IdStr | None = Field(default=None, description="Workflow id it was recorded in (merged transcripts)")
    reply_to_section_id: IdStr | None = Field(
        default=None, description="Client: the section whose question was on screen when this was typed (decides "
                                  "the late grace: a late answer counts for the previous section only if it "
                                  "answers that section's question)")
    client_id: str | None = Field(default=None, max_length=200,
                                  description="The sending client (with client_seq: entries land in the client's order)")
    client_seq: int | None = Field(default=None, ge=1, description="The client's own increasing number for its "
                                   "entries: one lower than an entry already recorded from it is refused (out of order)")
    audio: list[IdStr] | None = Field(default=None, max_length=60, description="A spoken answer: the recordings "
                                      "it was transcribed from (`audio-<interview id>/clip-<sha>.<ext>` in the "
                                      "artifact store, client/voice_room.py)")


class WindowLine(BaseModel):
    """One transcript entry as an agent reads it: who said what (code fenced). Live-agent inputs carry these,
    not whole entries — ids, clocks and client numbers are the engine's business, not the model's. A whole
    `TranscriptEntry` (an input scheduled before this type existed) parses as one."""

    speaker: str
    text: str
    kind: str = "message"


class SubmitEntryResult(BaseModel):
    entry: TranscriptEntry
    duplicate: bool = False
    status: str
    phase: str
    section_id: str | None = None
    next_question: str | None = None
    interviewer_instructions: str = ""


class SessionControl(BaseModel):
    action: IdStr = Field(description="pause | resume | disconnect | reconnect | candidate_done | end")
    reason: LineStr | None = None
    client_timestamp: datetime | None = None


class Heartbeat(BaseModel):
    """Presence (update `heartbeat`): a client that shows the session says it is still there."""

    client_id: str = Field(min_length=1, max_length=200, description="One id per open page / terminal")
    role: Literal["interviewee", "interviewer"] = "interviewee"
    seq: int = Field(default=0, ge=0, description="The client's heartbeat counter (for logs)")


class AssistantQuery(BaseModel):
    query_id: IdStr
    text: TextStr


class AssistantAnswer(BaseModel):
    query_id: str
    text: str
    flagged: bool = False
    flag_reason: str | None = None
    duplicate: bool = False


class TranscriptView(BaseModel):
    entries: list[TranscriptEntry]
    total_entries: int
    archived: list[ArtifactRef] = Field(default_factory=list, description="Older entries (continue-as-new)")


# -------------------------------------------------------------------------------------------- notes
class KeyIdea(BaseModel):
    title: str
    description: str = ""


class Story(BaseModel):
    title: str
    summary: str = ""
    impact: str = ""


class Claim(BaseModel):
    text: str
    confidence: Literal["low", "medium", "high"] = "medium"


class Gap(BaseModel):
    description: str
    suggested_followup: str = ""


class Contradiction(BaseModel):
    description: str
    first_quote: str = ""
    second_quote: str = ""
    suggested_clarification_question: str = ""


class SectionCoverage(BaseModel):
    id: str
    section_title: str = ""
    coverage_quality: Literal["none", "shallow", "adequate", "deep"] = "none"
    key_points_covered: list[str] = Field(default_factory=list)
    missing_aspects: list[str] = Field(default_factory=list)
    suggested_followup: str | None = None


class QuotableLine(BaseModel):
    text: str
    speaker: str = "expert"
    potential_use: Literal["hook", "section_header", "pull_quote", "conclusion", "tweet"] = "pull_quote"
    topic: str = ""
    strength: Literal["good", "great", "exceptional"] = "good"


class NotesState(BaseModel):
    key_ideas: list[KeyIdea] = Field(default_factory=list)
    stories: list[Story] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    gaps: list[Gap] = Field(default_factory=list)
    contradictions: list[Contradiction] = Field(default_factory=list)
    section_coverage: list[SectionCoverage] = Field(default_factory=list)
    quotable_lines: list[QuotableLine] = Field(default_factory=list)
    possible_titles: list[str] = Field(default_factory=list)


# ----------------------------------------------------------------------------------- research / decision
class ResearchItem(BaseModel):
    topic: str
    kind: str = "definition"
    summary: str
    how_to_use_in_question: str = ""
    priority: int = Field(default=2, ge=1, le=3)


class ResearchOutput(BaseModel):
    topics_considered: list[str] = Field(default_factory=list)
    items: list[ResearchItem] = Field(default_factory=list)


class NextQuestion(BaseModel):
    text: str
    target_section_id: str = ""
    source: Literal["plan", "gap", "contradiction", "research", "followup_pool", "system"] = "plan"
    source_question_id: str | None = None
    expected_answer_seconds: int = 60


class DimensionAssessment(BaseModel):
    dimension: str
    status: Literal["not_covered", "partially_covered", "covered"]


class OrchestratorDecision(BaseModel):
    phase: Phase
    next_question: NextQuestion
    interviewer_brief: str = ""
    coverage: list[DimensionAssessment] = Field(default_factory=list, description="Structured mode: 003 §6.2")


class DecisionRecord(BaseModel):
    """The decision in force, with how it was reached (for the UI and the audit trail)."""

    decision: OrchestratorDecision
    decided_at: datetime
    method: Literal["orchestrator", "fallback", "engine", "reused"] = "orchestrator"
    marked_question_id: str | None = None
    match_method: Literal["direct_id", "jaccard", "none"] = "none"
    section_id: str | None = Field(default=None, description="The section in force when the question was put in force")


# ---------------------------------------------------------------------------------------- post-session
class QuoteItem(BaseModel):
    text: str = Field(description="Exact words from the transcript")
    context: str = ""


class AnalysisSummary(BaseModel):
    research_goal: str = ""
    main_claims: list[str] = Field(default_factory=list)
    themes: list[str] = Field(default_factory=list)
    tensions: list[str] = Field(default_factory=list)
    quotes: list[QuoteItem] = Field(default_factory=list)
    suggested_title: str = ""


class FollowUpTopic(BaseModel):
    title: str
    description: str = ""
    suggested_questions: list[str] = Field(default_factory=list)


class FollowUpAnalysis(BaseModel):
    summary: str
    suggested_topics: list[FollowUpTopic] = Field(default_factory=list)
    unexplored_gaps: list[str] = Field(default_factory=list)
    strengthen_areas: list[str] = Field(default_factory=list)


class SectionSummary(BaseModel):
    """003 §7: the bounded context summary of one section (no facts absent from the transcript)."""

    section_id: str
    key_points: list[str] = Field(default_factory=list)
    quotes: list[str] = Field(default_factory=list, description="Exact interviewee words")
    open_threads: list[str] = Field(default_factory=list)


class SectionArtifact(BaseModel):
    section_id: str
    title: str
    started_at: datetime | None = None
    ended_at: datetime | None = None
    exit_reason: str | None = None
    entry_ids: list[str] = Field(default_factory=list)
    coverage_flags: dict[str, str] = Field(default_factory=dict)
    followups_asked: list[str] = Field(default_factory=list)
    summary: SectionSummary | None = None


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


CarriedState = InterviewState   # the old name of the same model


InterviewInput.model_rebuild()
