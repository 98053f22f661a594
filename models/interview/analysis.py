"""Interview pipeline: what the finishing agents write — analysis, follow-up topics, section summaries.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field, field_validator
from pydantic.json_schema import SkipJsonSchema


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
    # Set by the grounding check, never by the model: left out of the schema the model is given (a small model
    # filled `claims_dropped` with 4359107863460409 and the call was re-asked), and whatever a model writes there
    # anyway is read as 0 (the activity then counts).
    quotes_dropped: SkipJsonSchema[int] = Field(default=0, ge=0, le=10_000, description="Quotes dropped because they "
                                                "were not the interviewee's exact words")
    claims_dropped: SkipJsonSchema[int] = Field(default=0, ge=0, le=10_000, description="Claims and tensions dropped "
                                                "because the interviewee did not say them")

    @field_validator("quotes_dropped", "claims_dropped", mode="before")
    @classmethod
    def _a_count_or_nothing(cls, value: object) -> object:
        return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000 else 0


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
