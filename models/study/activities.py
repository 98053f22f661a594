"""Study pipeline: the payloads of its activities (plan translation, interview lookups, digests, theme merges, synthesis, publishing); the public contract is models/study/workflow.py."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from models.common import ArtifactRef
from models.interview.plan import PlanSnapshot
from models.study.workflow import (
    MAX_CORRECTIONS,
    Correction,
    Depth,
    FindingQuote,
    Findings,
)


# --------------------------------------------------------------------------------------- activity io
class TranslatePlanInput(BaseModel):
    plan: PlanSnapshot
    language: str
    source_language: str = "en"


class TranslatedPlan(BaseModel):
    plan: PlanSnapshot
    translated: bool
    note: str = ""


class LookupInput(BaseModel):
    interview_ids: list[str]


class InterviewLookup(BaseModel):
    interview_id: str
    state: Literal["running", "finished", "failed", "missing"]
    session_status: str | None = None
    paused_reason: str | None = None
    paused_seconds: float | None = None
    exit_reason: str | None = None
    transcript: ArtifactRef | None = None
    answers: int = 0
    length_seconds: float | None = None
    error: str | None = None


class QuestionDepth(BaseModel):
    question_id: str
    asked: bool = False
    answered: bool = False
    depth: Depth = "none"


class DigestQuote(BaseModel):
    text: str = Field(description="Exact words of the participant, in their language")
    translation: str | None = Field(default=None, description="In the analysis language (None: same language)")
    entry_id: str | None = None
    corrected: bool = Field(default=False, description="Set by the activity: quoted from a corrected answer")


class DigestTheme(BaseModel):
    title: str = Field(description="Short theme label, in the analysis language")
    summary: str = ""
    stance: str = Field(default="", description="The participant's position on it, one short sentence")
    quotes: list[DigestQuote] = Field(default_factory=list)


class DigestDraft(BaseModel):
    """What the digest agent writes (the activity adds coverage and checks the quotes)."""

    themes: list[DigestTheme] = Field(default_factory=list)
    not_in_plan: list[str] = Field(default_factory=list, description="Topics raised that no plan question asks about")


class InterviewDigest(BaseModel):
    participant_id: str
    interview_id: str
    language: str
    answers: int = 0
    themes: list[DigestTheme] = Field(default_factory=list)
    not_in_plan: list[str] = Field(default_factory=list)
    coverage: list[QuestionDepth] = Field(default_factory=list)
    translation_note: str = ""
    flagged_quotes: list[FindingQuote] = Field(default_factory=list)


class DigestInput(BaseModel):
    study_id: str
    participant_id: str
    interview_id: str
    language: str
    analysis_language: str = "en"
    plan: PlanSnapshot = Field(description="The plan the participant was asked (their language)")
    source_plan: PlanSnapshot = Field(description="The study's plan (analysis language; same ids)")
    transcript: ArtifactRef
    corrections: list[Correction] = Field(default_factory=list, max_length=MAX_CORRECTIONS, description="The "
                                          "participant's corrections: each replaces its answer for the analysis")


class DigestSummary(BaseModel):
    participant_id: str
    digest: ArtifactRef
    themes: list[str] = Field(default_factory=list)
    coverage: list[QuestionDepth] = Field(default_factory=list)


class ThemeMergeInput(BaseModel):
    research_goal: str = ""
    catalogue: list[str] = Field(default_factory=list, description="Theme titles so far")
    titles: list[str] = Field(description="This batch's theme titles (from the digests)")


class ThemeMergeOutput(BaseModel):
    mapping: dict[str, str] = Field(default_factory=dict, description="batch title -> catalogue title (new or old)")


class ReduceInput(BaseModel):
    study_id: str
    topic: str
    research_goal: str = ""
    analysis_language: str = "en"
    plan: PlanSnapshot
    digests: list[ArtifactRef]
    mapping: dict[str, str] = Field(default_factory=dict)
    abandoned: int = 0
    transcripts: dict[str, ArtifactRef] = Field(default_factory=dict, description="participant id -> transcript")
    interviews: dict[str, str] = Field(default_factory=dict, description="participant id -> interview id")
    corrections: dict[str, list[Correction]] = Field(default_factory=dict, description="participant id -> their "
                                                     "corrections (quotes are checked against the corrected answers)")


class SynthesisInput(BaseModel):
    topic: str
    research_goal: str = ""
    outline: str = Field(description="Themes with counts, disagreements, coverage, missed topics (text)")


class SynthesisOutput(BaseModel):
    summary: str = ""
    plan_missed: list[str] = Field(default_factory=list)


class PublishInput(BaseModel):
    study_id: str
    findings: Findings
    corrections: dict[str, list[Correction]] = Field(default_factory=dict, description="participant id -> their "
                                                     "corrections (the report's transcripts show them)")


class EraseInput(BaseModel):
    """A withdrawn (or deleted) participant: everything Colloquy keeps of their words is erased."""

    study_id: str = Field(max_length=200)
    participant_id: str = Field(max_length=20)
    interview_id: str = Field(max_length=240)


class Erasure(BaseModel):
    """What an erasure did (counts only: nothing of the participant's words)."""

    executions: int = Field(default=0, description="Workflow executions deleted (every run of the interview)")
    artifacts: int = Field(default=0, description="Artifacts and audio objects deleted")
    key_destroyed: bool = Field(default=False, description="Their data key was destroyed (payload encryption on)")


class PurgeRunsInput(BaseModel):
    """The study's earlier runs, deleted after an erasure (their updates held a withdrawn participant's words)."""

    study_id: str = Field(max_length=200)
    keep_run_id: str = Field(max_length=100)
