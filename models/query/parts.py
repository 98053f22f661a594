"""Notes: the types the ask's payloads are built of (seed 001 §11): enums, domain modules, entries, gaps, feedback."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

_Date = date  # for fields named `date` (the name would shadow the type in their own annotation)


# ------------------------------------------------------------------------------------------------ enums
class InputType(StrEnum):
    LOG = "log"
    QUERY = "query"
    BOTH = "both"
    CORRECTION = "correction"


class QueryType(StrEnum):
    SIMPLE = "simple"
    INSIGHT = "insight"
    RECOMMENDATION = "recommendation"
    COMPARISON = "comparison"
    CORRECTION = "correction"


class DependencyType(StrEnum):
    INDEPENDENT = "independent"
    DEPENDENT = "dependent"
    COUPLED = "coupled"


class GapType(StrEnum):
    TEMPORAL = "temporal"
    TOPICAL = "topical"
    CONTEXTUAL = "contextual"
    SUBJECTIVE = "subjective"
    CLARIFICATION = "clarification"


class Verdict(StrEnum):
    SUFFICIENT = "sufficient"
    INSUFFICIENT = "insufficient"
    PASS = "pass"
    FAIL = "fail"


def _lower(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


# ----------------------------------------------------------------------------------------- domain types
class LogField(BaseModel):
    """One field of a domain's log schema (schemas are data: YAML, not Python classes)."""

    type: Literal["string", "number", "integer", "boolean", "list", "object"] = "string"
    description: str = ""
    items: dict[str, LogField] | None = Field(default=None, description="For a list of objects: its fields")


class DomainModule(BaseModel):
    """Seed §8.2 as data: description (Router), log_schema (Parser), vocabulary (Parser, Retriever),
    expertise (Planner, Analyzer), response_evaluation_rules (Evaluator), context_management_guidance (Observer)."""

    name: str
    description: str
    log_schema: dict[str, LogField] = Field(default_factory=dict)
    vocabulary: dict[str, str] = Field(default_factory=dict)
    expertise: str = ""
    response_evaluation_rules: list[str] = Field(default_factory=list)
    context_management_guidance: str = ""


class DomainCatalog(BaseModel):
    """An application's domains: a base domain (always applied) plus selectable ones."""

    app_id: str
    base: DomainModule
    domains: list[DomainModule] = Field(default_factory=list)

    def get(self, name: str) -> DomainModule | None:
        if name == self.base.name:
            return self.base
        return next((d for d in self.domains if d.name == name), None)


class DomainInfo(BaseModel):
    name: str
    description: str


class ActiveDomainContext(BaseModel):
    domains_loaded: list[str]
    vocabulary: dict[str, str]
    expertise: str
    evaluation_rules: list[str]
    context_guidance: str
    available_domains: list[DomainInfo] = Field(default_factory=list)


# ------------------------------------------------------------------------------------------ data types
class DateRange(BaseModel):
    start: date
    end: date
    description: str | None = None


class Entry(BaseModel):
    """One log entry as stored: raw markdown section + the parsed data of that section."""

    id: str = Field(description="YYYY-MM-DD#n (n-th entry of the day)")
    date: date
    timestamp: datetime
    raw_content: str
    domain_data: dict[str, Any] | None = None
    tags: list[str] = Field(default_factory=list)
    uncertain_fields: list[str] = Field(default_factory=list)
    extraction_notes: list[str] = Field(default_factory=list, description="The Parser's notes (what it dropped)")
    corrections: list[str] = Field(default_factory=list)
    source_file: str = ""
    source_key: str | None = Field(default=None, description="Idempotency key (workflow id, import file)")
    timed: bool = Field(default=True, description="False: the note states no time (stored as `## --:--`)")


class RetrievalAttempt(BaseModel):
    attempt_number: int
    strategy: str
    params: dict[str, Any] = Field(default_factory=dict)
    entries_found: int
    summary: str


class Gap(BaseModel):
    description: str
    gap_type: GapType
    severity: Literal["critical", "nice_to_have"] = "critical"
    searched: bool = False
    found: bool = False
    outside_current_expertise: bool = False
    suspected_domain: str | None = None

    _norm = field_validator("gap_type", "severity", mode="before")(_lower)


class EvaluationFeedback(BaseModel):
    issue: str
    suggestion: str
    affected_claim: str | None = None


