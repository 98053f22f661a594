"""Interview pipeline: the payloads of its activities (model calls, transcripts, exports, archives).

They pass between the workflow and its workers; the public contract that clients use is models/interview/.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from models.common import (
    ArtifactRef,
    UsageTotals,
)
from models.interview.analysis import AnalysisSummary, FollowUpAnalysis, SectionArtifact
from models.interview.entries import AssistantQuery, TranscriptEntry, WindowLine
from models.interview.names import DEFAULT_DURATION_SECONDS, Mode, Phase, Style
from models.interview.notes import NotesState, OrchestratorDecision, ResearchItem
from models.interview.plan import PlanSnapshot
from models.interview.workflow import InterviewEvent


# ------------------------------------------------------------------------------------- activity inputs
class PlannerInput(BaseModel):
    topic: str
    context: str = ""
    duration_seconds: int = DEFAULT_DURATION_SECONDS
    mode: Mode = "adaptive"
    follow_up_topic: str | None = None
    previous_summary: str = ""
    language: str | None = Field(default=None, max_length=35, description="The interview's language (BCP 47): the "
                                 "plan is written in it and carries it; None: not said (English)")


class NoteTakerInput(BaseModel):
    """What the NoteTaker needs: what was said since it last listened (with a few entries before, for context)
    and its notes so far as the bounded text it reads — never the whole notes again (the workflow merges)."""

    topic: str
    research_goal: str
    angle: str
    sections: list[dict[str, str]] = Field(default_factory=list, description="[{id, title}]")
    window: list[WindowLine]
    notes_text: str = Field(default="", description="The notes so far, as the prompt shows them (bounded)")
    notes: NotesState | None = Field(default=None, description="Inputs scheduled before notes_text: whole notes")
    current_section_id: str | None = None


class ResearcherInput(BaseModel):
    """What was said since the Researcher last looked (with a little context) and the topics already covered."""

    topic: str
    window: list[WindowLine]
    existing_topics: list[str] = Field(default_factory=list)
    recent_topics: list[str] = Field(default_factory=list, description="Researched < 300 s ago: do not repeat")


class OrchestratorInput(BaseModel):
    topic: str
    research_goal: str
    angle: str
    mode: Mode = "adaptive"
    plan_coverage: str
    window: list[WindowLine]
    notes_text: str = Field(default="", description="The notes so far, as the prompt shows them (bounded)")
    notes: NotesState | None = Field(default=None, description="Inputs scheduled before notes_text: whole notes")
    research: list[ResearchItem] = Field(default_factory=list, description="The most recent research items")
    elapsed_seconds: float
    target_seconds: float
    phase: Phase
    current_section_id: str | None = None
    current_section_title: str = ""
    section_seconds_remaining: float | None = None
    dimensions: dict[str, str] = Field(default_factory=dict, description="Structured mode: coverage flags")
    fallback: OrchestratorDecision | None = Field(default=None, description="What the engine would ask")
    follow_up_context: str = ""
    language: str | None = Field(default=None, max_length=35, description="The plan's language: the question is "
                                 "asked in it; None: English")


class TranscriptRefs(BaseModel):
    json_ref: ArtifactRef
    markdown_ref: ArtifactRef
    entries: int


class SaveTranscriptInput(BaseModel):
    workflow_id: str
    segments: list[ArtifactRef] = Field(default_factory=list)
    tail: list[TranscriptEntry] = Field(default_factory=list)
    previous: list[TranscriptEntry] = Field(default_factory=list, description="Earlier session (follow-ups)")
    name: str = "transcript"


class AnalysisInput(BaseModel):
    workflow_id: str
    plan: PlanSnapshot
    notes: NotesState
    transcript: ArtifactRef


class WriterInput(BaseModel):
    workflow_id: str
    plan: PlanSnapshot
    analysis: AnalysisSummary
    transcript: ArtifactRef
    style: Style = "standard"
    interviewee_name: str = "the interviewee"


class WriterOutput(BaseModel):
    essay: ArtifactRef
    title: str
    words: int
    quotes_verified: int = 0
    quotes_unverified: list[str] = Field(default_factory=list)
    # the grounding repair (rules/interview/essay_repair.py): the model's sentences, how many were kept, how many
    # were dropped for each reason, and whether the essay fell back to the interviewee's own sentences
    sentences_written: int = Field(default=0, ge=0, le=1_000_000)
    sentences_kept: int = Field(default=0, ge=0, le=1_000_000)
    sentences_dropped: dict[str, int] = Field(default_factory=dict, max_length=8)
    extractive: bool = False
    grounding_note: str = Field(default="", max_length=600)


class FollowUpInput(BaseModel):
    workflow_id: str
    plan: PlanSnapshot
    notes: NotesState
    transcript: ArtifactRef


class SectionSummaryInput(BaseModel):
    section_id: str
    title: str
    goal: str = ""
    entries: list[TranscriptEntry]
    archived: list[ArtifactRef] = Field(default_factory=list, description="Transcript parts archived by an earlier "
                                        "run that hold entries of this section (read by the activity)")


class AssistantInput(BaseModel):
    topic: str
    section_title: str = ""
    section_goal: str = ""
    query: AssistantQuery
    language: str | None = Field(default=None, max_length=35, description="The plan's language: the answer is "
                                 "written in it; None: English")


class SessionRecord(BaseModel):
    """What a later follow-up session needs from this one (artifact `<workflow id>/session.json`)."""

    workflow_id: str
    plan: PlanSnapshot
    notes: NotesState
    transcript: list[TranscriptEntry]
    follow_up: FollowUpAnalysis | None = None
    title: str = ""


class LoadSessionInput(BaseModel):
    workflow_id: str


class ExportInput(BaseModel):
    workflow_id: str
    status: str
    exit_reason: str
    plan: PlanSnapshot
    notes: NotesState
    sections: list[SectionArtifact]
    transcript: ArtifactRef
    event_segments: list[ArtifactRef] = Field(default_factory=list)
    events_tail: list[InterviewEvent] = Field(default_factory=list)
    activity_log: list[str] = Field(default_factory=list)
    activity_log_segments: list[ArtifactRef] = Field(default_factory=list)
    usage: UsageTotals = Field(default_factory=UsageTotals)
    follow_up: FollowUpAnalysis | None = None
    title: str = ""
    slow_decisions: int = Field(default=0, description="Fallbacks put in force because no decision came in time")


class ExportRefs(BaseModel):
    event_log: ArtifactRef
    evaluation_bundle: ArtifactRef
    replay_bundle: ArtifactRef
    section_summaries: ArtifactRef
    notes: ArtifactRef
    activity_log: ArtifactRef
    session_record: ArtifactRef


class ArchiveInput(BaseModel):
    workflow_id: str
    name: str
    lines: list[str]

