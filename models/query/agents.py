"""Notes: what each agent of the ask and of note-taking takes and returns (seed 001 §11: Router, Planner, Retriever, Analyzer, Synthesizer, Evaluator, Clarifier, Parser, Observer). LLM output models keep the seed's field order; verdict-like fields come last."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from models.common import (
    ArtifactRef,
)
from models.query.parts import (
    ActiveDomainContext,
    DateRange,
    DependencyType,
    DomainInfo,
    Entry,
    EvaluationFeedback,
    Gap,
    InputType,
    LogField,
    QueryType,
    RetrievalAttempt,
    Verdict,
    _lower,
)

_Date = date  # for fields named `date` (the name would shadow the type in their own annotation)


# ------------------------------------------------------------------------------------------------ router
class RouterOutput(BaseModel):
    input_type: InputType
    confidence: float = Field(ge=0.0, le=1.0)
    selected_domains: list[str] = Field(default_factory=list)
    domain_selection_reasoning: str = ""
    log_portion: str | None = None
    query_portion: str | None = None
    correction_target: str | None = None
    reasoning: str = ""

    _norm = field_validator("input_type", mode="before")(_lower)


class RouteInput(BaseModel):
    raw_input: str
    session_context: str | None = None
    available_domains: list[DomainInfo]


# ----------------------------------------------------------------------------------------------- planner
class SubQuery(BaseModel):
    id: int
    question: str
    retrieval_strategy: str = "date_range"
    retrieval_params: dict[str, Any] = Field(default_factory=dict)


class RetrievalInstruction(BaseModel):
    """One storage tool call for the Retriever (seed §11.4 tools + the repository's glob)."""

    sub_query_id: int = 1
    tool: Literal["date_range", "keyword", "topic", "pattern"]
    start: date | None = None
    end: date | None = None
    keywords: list[str] = Field(default_factory=list)
    topic: str | None = None
    pattern: str | None = None
    match_all: bool = False
    purpose: str = ""

    _norm = field_validator("tool", mode="before")(_lower)


class PlannerOutput(BaseModel):
    original_query: str
    query_type: QueryType
    sub_queries: list[SubQuery] = Field(default_factory=list)
    dependencies: list[dict[str, Any]] = Field(default_factory=list)
    execution_strategy: DependencyType = DependencyType.COUPLED
    execution_order: list[int] = Field(default_factory=list)
    retrieval_instructions: list[RetrievalInstruction] = Field(default_factory=list)
    gaps_status: dict[str, dict[str, bool]] = Field(default_factory=dict)
    domain_expansion_request: list[str] | None = None
    expansion_reasoning: str | None = None
    next_action: Literal["retrieve", "expand_domain", "clarify", "synthesize"]
    clarify_questions: list[str] | None = None
    reasoning: str = ""

    _norm = field_validator("query_type", "execution_strategy", "next_action", mode="before")(_lower)


class PlanInput(BaseModel):
    query: str
    today: date
    domain_context: ActiveDomainContext
    retrieval_history: list[RetrievalAttempt] = Field(default_factory=list)
    gaps_from_analyzer: list[Gap] = Field(default_factory=list)
    evaluation_feedback: list[EvaluationFeedback] = Field(default_factory=list)
    gaps_status: dict[str, dict[str, bool]] = Field(default_factory=dict)
    user_responses: dict[str, str] = Field(default_factory=dict)
    global_context_summary: str | None = None
    clarification_allowed: bool = True


# --------------------------------------------------------------------------------------------- retriever
class RetrieveInput(BaseModel):
    scope: str = Field(description="Artifact scope (the workflow id)")
    label: str = Field(description="Names the artifact, e.g. 'retrieval-2-sq1'")
    instructions: list[RetrievalInstruction]
    vocabulary: dict[str, str] = Field(default_factory=dict)
    max_entries: int = 100
    attempt_start: int = 1
    notes_dir: str | None = None


class RetrieverOutput(BaseModel):
    """Entries go to the artifact store; history keeps the ref, ids and the attempt summaries."""

    entries_ref: ArtifactRef | None = None
    entry_ids: list[str] = Field(default_factory=list)
    retrieval_summary: list[RetrievalAttempt] = Field(default_factory=list)
    total_entries_found: int = 0
    date_range_covered: DateRange | None = None
    warnings: list[str] = Field(default_factory=list)
    truncated: bool = False


# ---------------------------------------------------------------------------------------------- analyzer
class Finding(BaseModel):
    claim: str
    evidence: list[str] = Field(default_factory=list)
    confidence: Literal["high", "medium", "low"] = "medium"

    _norm = field_validator("confidence", mode="before")(_lower)


class AnalyzerOutput(BaseModel):
    """VERDICT IS LAST."""

    query_intent: str
    findings: list[Finding] = Field(default_factory=list)
    patterns_identified: list[str] = Field(default_factory=list)
    gaps_identified: list[Gap] = Field(default_factory=list)
    verdict: Verdict
    verdict_reasoning: str = ""

    _norm = field_validator("verdict", mode="before")(_lower)


class AnalyzeInput(BaseModel):
    query: str
    query_type: QueryType
    sub_query_id: int | None = None
    entries_refs: list[ArtifactRef] = Field(default_factory=list)
    domain_context: ActiveDomainContext
    global_context: str | None = None
    retrieval_history: list[RetrievalAttempt] = Field(default_factory=list)
    user_responses: dict[str, str] = Field(default_factory=dict)
    prior_findings: list[Finding] = Field(default_factory=list, description="DEPENDENT: earlier sub-queries")
    entry_ids: list[str] | None = Field(default=None, description="Only these entries of the refs (a chunk)")
    chunk: str | None = Field(default=None, description="e.g. 'chunk 2 of 4 (entries 121-240 of 365)'")
    chunk_analyses: list[AnalyzerOutput] = Field(default_factory=list,
                                                 description="Reduce step: the chunks' analyses to combine")


# ------------------------------------------------------------------------------------------- synthesizer
class SynthesizerOutput(BaseModel):
    response: str
    key_points: list[str] = Field(default_factory=list)
    evidence_cited: list[str] = Field(default_factory=list)
    gaps_disclosed: list[str] = Field(default_factory=list)
    confidence: Literal["high", "medium", "low"] = "medium"

    _norm = field_validator("confidence", mode="before")(_lower)


class SynthesizeInput(BaseModel):
    query: str
    query_type: QueryType
    analysis: AnalyzerOutput
    vocabulary: dict[str, str] = Field(default_factory=dict)
    is_partial: bool = False
    unanswered_gaps: list[str] = Field(default_factory=list)
    evaluation_feedback: list[EvaluationFeedback] = Field(default_factory=list)
    user_responses: dict[str, str] = Field(default_factory=dict)
    response_style: Literal["concise", "detailed"] = "concise"
    entries_refs: list[ArtifactRef] = Field(default_factory=list, description="The entries the answer rests on: "
                                            "its quotes are checked against them (rules/grounding.py)")


# --------------------------------------------------------------------------------------------- evaluator
class EvaluationDimension(BaseModel):
    dimension: str
    verdict: Verdict
    reasoning: str = ""
    issues: list[str] = Field(default_factory=list)

    _norm = field_validator("dimension", "verdict", mode="before")(_lower)


class EvaluatorOutput(BaseModel):
    dimensions: list[EvaluationDimension]
    overall_verdict: Verdict
    feedback: list[EvaluationFeedback] = Field(default_factory=list)
    recommendation: Literal["accept", "retry_with_feedback", "retry_with_more_context", "give_partial"] = "accept"

    _norm = field_validator("overall_verdict", "recommendation", mode="before")(_lower)


class EvaluateInput(BaseModel):
    query: str
    response: str
    analysis: AnalyzerOutput
    entries_summary: str
    evaluation_rules: list[str]
    attempt_number: int = 1
    previous_feedback: list[EvaluationFeedback] = Field(default_factory=list)


# --------------------------------------------------------------------------------------------- clarifier
class ClarificationQuestion(BaseModel):
    question: str
    gap_addressed: str = ""
    options: list[str] | None = None
    required: bool = True


class ClarifierOutput(BaseModel):
    questions: list[ClarificationQuestion]
    context_explanation: str = ""
    fallback_action: str = ""


class ClarifyInput(BaseModel):
    original_query: str
    gaps: list[Gap]
    planner_questions: list[str] = Field(default_factory=list)
    vocabulary: dict[str, str] = Field(default_factory=dict)
    retrieval_history: list[RetrievalAttempt] = Field(default_factory=list)
    previous_clarifications: list[str] = Field(default_factory=list)


# ------------------------------------------------------------------------------------------------ parser
class ParserOutput(BaseModel):
    date: _Date | None = Field(default=None, description="Set by the Parser activity from the input's time")
    timestamp: datetime | None = None
    tags: list[str] = Field(default_factory=list)
    domain_data: dict[str, Any] = Field(default_factory=dict)
    raw_content: str = ""
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    extraction_notes: list[str] = Field(default_factory=list)
    uncertain_fields: list[str] = Field(default_factory=list)
    is_correction: bool = False
    target_entry_id: str | None = None
    correction_delta: dict[str, Any] | None = None


class ParseInput(BaseModel):
    raw_input: str
    timestamp: datetime
    domain_schemas: dict[str, dict[str, LogField]]
    vocabulary: dict[str, str] = Field(default_factory=dict)
    global_context: str | None = None
    recent_entries: list[Entry] = Field(default_factory=list)
    correction_mode: bool = False
    correction_target: str | None = None


# ---------------------------------------------------------------------------------------------- observer
class ContextUpdate(BaseModel):
    category: Literal["preference", "pattern", "fact", "insight"]
    key: str
    value: str
    confidence: Literal["certain", "likely", "tentative"] = "tentative"
    source: str = ""

    _norm = field_validator("confidence", mode="before")(_lower)

    @field_validator("category", mode="before")
    @classmethod
    def _singular(cls, value: Any) -> Any:
        """Models often write the section name ("Preferences", "facts"): accept it."""
        return value.strip().lower().removesuffix("s") if isinstance(value, str) else value


class ObserverOutput(BaseModel):
    should_update: bool
    updates: list[ContextUpdate] = Field(default_factory=list)
    insights_captured: list[str] = Field(default_factory=list)


class ObserveInput(BaseModel):
    trigger: Literal["post_query", "user_correction", "significant_log"]
    query: str | None = None
    analysis: AnalyzerOutput | None = None
    response: str | None = None
    correction: str | None = None
    what_was_corrected: str | None = None
    new_entry: Entry | None = None
    current_global_context: str = ""
    context_management_guidance: str = ""


