"""Interview pipeline: what the live agents write — NoteTaker's notes, the Researcher's items and the
Orchestrator's decision.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from models.interview.names import Phase


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
    rejected_question_reason: str | None = Field(default=None, max_length=200, description=(
        "Why the Orchestrator's proposal was not put in force and the fallback's was (it was not a question: "
        "rules/interview/question_text.py)"))
