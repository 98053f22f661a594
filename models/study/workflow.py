"""Study pipeline payloads: the public, durable contract of `StudyWorkflow` (docs/study.md).

One research goal, one interview plan, many participants: each participant's link (an unguessable token; the
workflow holds only its SHA-256) starts one child `InterviewWorkflow` when it is opened; the study closes at its
quota of completed interviews or its close date, then analyses every interview (map: a digest per interview;
reduce: themes, quotes, disagreements, coverage) and writes the findings (markdown, JSON, HTML).
Keep these names stable: add optional fields with defaults, never rename or remove.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, ClassVar, Literal

from pydantic import AwareDatetime, BaseModel, Field, field_validator, model_validator

from models.common import CARRIED, MAX_ITEMS, ArtifactRef, IdStr, UsageTotals
from models.interview.plan import PlanSnapshot

# ------------------------------------------------------------------------------------------- public names
WORKFLOW_TYPE = "StudyWorkflow"
TASK_QUEUE = "colloquy"
UPDATE_ADD_PARTICIPANTS = "add_participants"      # AddParticipants -> list[ParticipantView]
UPDATE_REVOKE_PARTICIPANT = "revoke_participant"  # RevokeParticipant -> ParticipantView
UPDATE_OPEN_LINK = "open_link"                    # OpenLink -> OpenedLink (starts the child interview)
UPDATE_CLOSE = "close_study"                      # CloseStudy -> StudyProgress
QUERY_PROGRESS = "progress"                       # -> StudyProgress
QUERY_FINDINGS_DRAFT = "findings_draft"           # -> Findings (the draft while open, the final findings after)
QUERY_PARTICIPANTS = "participants"               # -> list[ParticipantView]
QUERY_LINK = "link"                               # (token_sha256: str) -> LinkView
UPDATE_REVIEW_PLAN = "review_plan"                # ReviewPlan -> PlanReview (edit or approve the plan)
UPDATE_MEMBER_CHECK = "member_check"              # MemberCheck -> MemberCheckView (a participant's read-back)
UPDATE_ERASE_PARTICIPANT = "erase_participant"    # EraseParticipant -> ParticipantView (the researcher's delete)
QUERY_PLAN_REVIEW = "plan_review"                 # -> PlanReview
QUERY_MEMBER_CHECK = "member_check_view"          # (token_sha256: str) -> MemberCheckView
QUERY_EXPORT = "export"                           # -> StudyExport (the ledger as the exports need it)

INTERVIEW_ID_SEPARATOR = "--"                     # a participant's interview: <study id>--<participant id>
DEFAULT_INTERVIEW_SECONDS = 600
MAX_INVITATIONS_PER_UPDATE = 1000

ParticipantStatus = Literal["invited", "started", "completed", "abandoned", "revoked", "withdrawn"]
StudyPhase = Literal["planning", "reviewing", "recruiting", "closing", "analysing", "done"]
MAX_CONSENT_CHARS = 8000
MAX_CORRECTIONS = 50
MAX_CORRECTION_CHARS = 5000
Depth = Literal["none", "shallow", "adequate", "deep"]
DEPTHS: tuple[str, ...] = ("none", "shallow", "adequate", "deep")
_LANG = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$")
_SHA = re.compile(r"^[0-9a-f]{64}$")
ConsentText = Annotated[str, Field(max_length=MAX_CONSENT_CHARS)]


def interview_id(study_id: str, participant_id: str) -> str:
    return f"{study_id}{INTERVIEW_ID_SEPARATOR}{participant_id}"


def check_language(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    value = value.strip()
    if not _LANG.match(value):
        raise ValueError(f"language {value!r} is not a language code like 'en', 'de' or 'pt-BR'")
    return value


# ------------------------------------------------------------------------------------------ input
class StudyInput(BaseModel):
    """The one typed input of StudyWorkflow. A quota, a close date, or both."""

    topic: str = Field(min_length=1, max_length=500)
    research_goal: str = Field(default="", max_length=5000)
    plan: PlanSnapshot | None = Field(default=None, description="The interview plan (None: the Planner writes it)")
    quota: int | None = Field(default=None, ge=1, le=1_000_000, description="Close after this many completed")
    close_at: AwareDatetime | None = Field(default=None, description="Close at this time (a workflow timer; "
                                           "with its time zone, e.g. 2026-12-01T18:00:00+01:00)")
    interview_seconds: int = Field(default=DEFAULT_INTERVIEW_SECONDS, ge=30, le=4 * 3600)
    default_language: IdStr = "en"
    analysis_language: IdStr = Field(default="en", description="The findings' language (translations beside quotes)")
    languages: list[IdStr] = Field(default_factory=list, max_length=MAX_ITEMS,
                                   description="Languages a participant may choose (empty: any)")
    cycle_seconds: float = Field(default=10.0, gt=0, description="The interviews' live cycle cadence")
    presence_timeout_seconds: float = Field(default=20.0, ge=0, le=24 * 3600)
    abandon_after_seconds: float = Field(default=600.0, gt=0, description="A participant disconnected this long is "
                                         "abandoned: the study ends the interview")
    min_answers: int = Field(default=2, ge=1, description="Fewer answers than this: the interview counts as abandoned")
    check_seconds: float = Field(default=5.0, gt=0, description="How often running interviews are looked up")
    theme_batch: int = Field(default=25, ge=1, le=500, description="Digests per theme-merge call (the reduce step)")
    write_essays: bool = Field(default=False, description="Each interview also writes its essay")
    consent: dict[IdStr, ConsentText] = Field(default_factory=dict, max_length=MAX_ITEMS, description="The consent text "
                                      "per language (empty: the built-in text, rules/study/consent.py)")
    review: bool = Field(default=False, description="The researcher reviews (edits, approves) the plan before "
                         "any link opens")
    continue_as_new_after_events: int = Field(default=2000, ge=100, le=50_000)
    carried: Annotated[StudyState | None, CARRIED] = Field(default=None, description="Internal: state carried by "
                                                         "continue-as-new")

    MAX_BYTES: ClassVar[int] = 1_536 * 1024   # the carried state rides in the input (rules/inputs.py)

    @field_validator("presence_timeout_seconds")
    @classmethod
    def _presence(cls, value: float) -> float:
        if value != 0 and value < 1:
            raise ValueError("must be 0 (presence off) or at least 1 second: a page heartbeats at most once a second")
        return value

    @field_validator("default_language", "analysis_language")
    @classmethod
    def _lang(cls, v: str) -> str:
        return check_language(v) or "en"

    @field_validator("languages")
    @classmethod
    def _langs(cls, v: list[str]) -> list[str]:
        return [x for x in (check_language(s) for s in v) if x]

    @field_validator("consent")
    @classmethod
    def _consent(cls, v: dict[str, str]) -> dict[str, str]:
        out = {}
        for lang, text in v.items():
            code = check_language(lang) or "en"
            if not text.strip():
                raise ValueError(f"the consent text for {code!r} is empty")
            out[code] = text.strip()
        return out

    @model_validator(mode="after")
    def _ends(self) -> StudyInput:
        if self.quota is None and self.close_at is None:
            raise ValueError("a study needs a quota, a close date (close_at), or both")
        return self


# ------------------------------------------------------------------------------------- participants
class Invitation(BaseModel):
    token_sha256: IdStr = Field(description="SHA-256 (hex) of the link's token: the token itself is never sent")
    language: IdStr | None = None

    @field_validator("token_sha256")
    @classmethod
    def _sha(cls, v: str) -> str:
        if not _SHA.match(v):
            raise ValueError("token_sha256 must be 64 lowercase hex characters (sha256 of the link token)")
        return v

    @field_validator("language")
    @classmethod
    def _lang(cls, v: str | None) -> str | None:
        return check_language(v)


class AddParticipants(BaseModel):
    invitations: list[Invitation] = Field(min_length=1, max_length=MAX_INVITATIONS_PER_UPDATE)


class RevokeParticipant(BaseModel):
    participant_id: str = Field(min_length=1, max_length=40)
    reason: str = Field(default="revoked by the researcher", max_length=500)


class EraseParticipant(BaseModel):
    """The researcher deletes a participant's data (they asked for it some other way than their page): as their
    own withdrawal, until the study closes (docs/study.md, "Erasure")."""

    participant_id: str = Field(min_length=1, max_length=40)


class CloseStudy(BaseModel):
    reason: str = Field(default="closed by the researcher", max_length=500)
    end_running: bool = Field(default=False, description="Also end the interviews still running (else they finish)")


class ConsentGiven(BaseModel):
    """What the participant agreed to: the consent text they were shown (its language and SHA-256)."""

    language: IdStr
    sha256: IdStr = Field(description="SHA-256 (hex) of the consent text shown")


class ConsentRecord(ConsentGiven):
    at: datetime


class OpenLink(BaseModel):
    token_sha256: IdStr
    language: IdStr | None = None
    consent: ConsentGiven | None = Field(default=None, description="Required: the participant ticked the consent "
                                         "box under this text (a link without it is refused)")

    @field_validator("token_sha256")
    @classmethod
    def _sha(cls, v: str) -> str:
        return Invitation._sha(v)

    @field_validator("language")
    @classmethod
    def _lang(cls, v: str | None) -> str | None:
        return check_language(v)


class OpenedLink(BaseModel):
    participant_id: str
    interview_id: str
    language: str
    new: bool = Field(description="False: the interview had been started by an earlier opening")


class LinkView(BaseModel):
    """What a link's page may say before anything starts (a query: no side effect)."""

    status: Literal["unknown", "invited", "started", "completed", "abandoned", "revoked", "closed", "withdrawn",
                    "not_open"]
    participant_id: str | None = None
    language: str | None = None
    interview_id: str | None = None
    topic: str = ""
    languages: list[str] = Field(default_factory=list)
    default_language: str = "en"
    interview_seconds: int = DEFAULT_INTERVIEW_SECONDS
    consent: dict[str, str] = Field(default_factory=dict, description="language -> consent text (the study's, or "
                                    "the built-in one)")
    study_open: bool = True
    close_at: datetime | None = None


class Participant(BaseModel):
    """One row of the study's ledger (carried by continue-as-new)."""

    participant_id: str
    token_sha256: str
    language: str | None = None
    status: ParticipantStatus = "invited"
    invited_at: datetime | None = None
    interview_id: str | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    length_seconds: float | None = None
    answers: int = 0
    exit_reason: str | None = None
    abandon_requested: bool = False
    start_pending: bool = Field(default=False, description="Its interview's start is asked but not confirmed yet: "
                                "a look-up that finds no such interview means 'not yet started'")
    missing_since: datetime | None = Field(default=None, description="When a look-up first found no such interview "
                                           "after its start was confirmed (abandoned only after a grace; a "
                                           "verdict by absence is revised if the interview turns up)")
    revoked_reason: str | None = None
    transcript: ArtifactRef | None = None
    digest: ArtifactRef | None = None
    themes: list[str] = Field(default_factory=list, description="Digest theme titles (for the draft and reduce)")
    digest_error: str | None = None
    consent: ConsentRecord | None = None
    corrections: list[Correction] = Field(default_factory=list, max_length=MAX_CORRECTIONS)
    checked_at: datetime | None = None
    withdrawn_at: datetime | None = None
    digested_corrections: int = Field(default=0, ge=0, le=MAX_CORRECTIONS, description="How many of the "
                                      "corrections its digest read (fewer than there are: the digest is redone on "
                                      "the corrected transcript before the analysis; patch study-corrections)")
    erase_pending: bool = Field(default=False, description="Withdrawn: their data is to be erased (patch "
                                "study-erasure; activities/study/erasure.py)")
    erased_at: datetime | None = Field(default=None, description="When their data was erased: the ledger keeps "
                                       "only that they took part and withdrew")


class Correction(BaseModel):
    """A participant's correction of one of their answers, kept beside the original (never overwriting it)."""

    entry_id: str = Field(min_length=1, max_length=80)
    text: str = Field(min_length=1, max_length=MAX_CORRECTION_CHARS)
    at: datetime | None = None


class MemberCheck(BaseModel):
    """A participant reads back their transcript: confirm it (checked), correct an answer, or withdraw."""

    token_sha256: IdStr
    action: Literal["checked", "correct", "withdraw"]
    entry_id: str | None = Field(default=None, max_length=80)
    text: str | None = Field(default=None, max_length=MAX_CORRECTION_CHARS)

    @field_validator("token_sha256")
    @classmethod
    def _sha(cls, v: str) -> str:
        return Invitation._sha(v)

    @model_validator(mode="after")
    def _fields(self) -> MemberCheck:
        if self.action == "correct" and not (self.entry_id and (self.text or "").strip()):
            raise ValueError("a correction needs the answer's entry_id and the corrected text")
        return self


class MemberCheckView(BaseModel):
    status: str
    participant_id: str | None = None
    language: str | None = None
    transcript: ArtifactRef | None = None
    corrections: list[Correction] = Field(default_factory=list)
    checked_at: datetime | None = None
    withdrawn_at: datetime | None = None
    study_open: bool = True


class ReviewPlan(BaseModel):
    action: Literal["edit", "approve"]
    plan: PlanSnapshot | None = Field(default=None, description="The edited plan (action edit)")


class PlanReview(BaseModel):
    review: bool = False
    approved: bool = False
    plan: PlanSnapshot | None = None
    edits: int = 0


class ParticipantView(BaseModel):
    participant_id: str
    language: str | None = None
    status: ParticipantStatus
    interview_id: str | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    length_seconds: float | None = None
    answers: int = 0
    exit_reason: str | None = None
    consented_at: datetime | None = None
    corrections: int = 0
    checked: bool = False
    withdrawn_at: datetime | None = None
    erased_at: datetime | None = Field(default=None, description="When a withdrawn participant's data was erased")


class ParticipantRecord(BaseModel):
    """One participant as the exports need them (withdrawn participants carry no transcript)."""

    participant_id: str
    language: str | None = None
    status: ParticipantStatus
    started_at: datetime | None = None
    ended_at: datetime | None = None
    length_seconds: float | None = None
    consent: ConsentRecord | None = None
    transcript: ArtifactRef | None = None
    corrections: list[Correction] = Field(default_factory=list)
    checked_at: datetime | None = None


class StudyExport(BaseModel):
    study_id: str
    topic: str
    consent: dict[str, str] = Field(default_factory=dict, description="language -> consent text")
    participants: list[ParticipantRecord] = Field(default_factory=list)


# ------------------------------------------------------------------------------------------ findings
class QuestionCoverage(BaseModel):
    question_id: str
    section_id: str = ""
    text: str = ""
    asked: int = 0
    answered: int = 0
    depth: dict[str, int] = Field(default_factory=lambda: {d: 0 for d in DEPTHS})
    interviews: int = 0


class FindingQuote(BaseModel):
    participant_id: str
    text: str = Field(description="Verbatim, in the participant's language")
    language: str | None = None
    translation: str | None = None
    translation_note: str = Field(default="", description="'' (same language), the translator, or why there is none")
    interview_id: str | None = None
    entry_id: str | None = None
    transcript: ArtifactRef | None = None
    verified: bool = False
    check: str = "unchecked"
    flag: str = ""
    corrected: bool = Field(default=False, description="Quoted from an answer the participant corrected when "
                            "they read it back: the text is their correction")


class Position(BaseModel):
    position: str
    participants: list[str] = Field(default_factory=list)
    count: int = 0


class Theme(BaseModel):
    title: str
    description: str = ""
    participants: list[str] = Field(default_factory=list)
    count: int = 0
    quotes: list[FindingQuote] = Field(default_factory=list)
    positions: list[Position] = Field(default_factory=list)


class Disagreement(BaseModel):
    theme: str
    positions: list[Position]


class MinorityView(BaseModel):
    theme: str
    position: str
    participants: list[str]
    count: int
    quote: FindingQuote | None = None


class Missed(BaseModel):
    topic: str
    participants: list[str] = Field(default_factory=list)
    count: int = 0


class MemberChecking(BaseModel):
    checked: int = Field(default=0, description="Participants who read back their transcript and confirmed it")
    corrected: int = Field(default=0, description="Participants who corrected at least one answer")
    withdrew: int = Field(default=0, description="Participants who withdrew after the interview (left out)")


class ConsentVersion(BaseModel):
    language: str
    sha256: str
    participants: int = 0


class Findings(BaseModel):
    study_id: str
    topic: str
    research_goal: str = ""
    status: Literal["draft", "final"] = "draft"
    analysis_language: str = "en"
    completed: int = 0
    abandoned: int = 0
    languages: dict[str, int] = Field(default_factory=dict)
    summary: str = ""
    themes: list[Theme] = Field(default_factory=list)
    disagreements: list[Disagreement] = Field(default_factory=list)
    minority_views: list[MinorityView] = Field(default_factory=list)
    coverage: list[QuestionCoverage] = Field(default_factory=list)
    plan_missed: list[Missed] = Field(default_factory=list)
    flagged_quotes: list[FindingQuote] = Field(default_factory=list)
    member_checking: MemberChecking = Field(default_factory=lambda: MemberChecking())
    consent: list[ConsentVersion] = Field(default_factory=list, description="The consent texts agreed to")
    notes: list[str] = Field(default_factory=list, description="Caveats: offline double, failed steps")
    as_of: datetime | None = None


class StudyProgress(BaseModel):
    study_id: str
    topic: str
    phase: str
    open: bool
    invited: int = 0
    started: int = 0
    running: int = 0
    completed: int = 0
    abandoned: int = 0
    revoked: int = 0
    withdrawn: int = 0
    quota: int | None = None
    close_at: datetime | None = None
    closed_reason: str | None = None
    median_length_seconds: float | None = None
    languages: dict[str, int] = Field(default_factory=dict)
    digests: int = 0
    continued: int = 0
    as_of: datetime | None = None
    outputs: StudyOutputs | None = None


class StudyOutputs(BaseModel):
    findings_json: ArtifactRef
    findings_md: ArtifactRef
    report_html: ArtifactRef
    quotes_verified: int = 0
    quotes_flagged: int = 0


class StudyResult(BaseModel):
    study_id: str
    status: Literal["completed", "partial"]
    completed: int
    abandoned: int
    invited: int
    revoked: int
    closed_reason: str
    outputs: StudyOutputs | None = None
    analysis_seconds: float = 0.0
    error: str | None = None
    usage: UsageTotals = Field(default_factory=UsageTotals)


# ------------------------------------------------------------------------------------------ carried
class StudyState(BaseModel):
    plan: PlanSnapshot | None = None
    plan_approved: bool = False
    plan_edits: int = 0
    created_at: datetime | None = None
    participants: list[Participant] = Field(default_factory=list)
    next_number: int = 1
    closed: bool = False
    closed_reason: str | None = None
    closed_at: datetime | None = None
    translations: dict[str, PlanSnapshot] = Field(default_factory=dict)
    translation_notes: dict[str, str] = Field(default_factory=dict)
    coverage: dict[str, QuestionCoverage] = Field(default_factory=dict, description="question id -> counts so far")
    continued: int = 0
    offline: bool = Field(default=False, description="An agent answered from the offline test double")
    usage: UsageTotals = Field(default_factory=UsageTotals)
    purge_runs: bool = Field(default=False, description="A withdrawn participant's corrections were in the runs "
                             "before this one: the new run deletes them (patch study-erasure)")



Participant.model_rebuild()
Findings.model_rebuild()
StudyInput.model_rebuild()
StudyProgress.model_rebuild()
