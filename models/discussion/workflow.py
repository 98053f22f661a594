"""Payloads of the team-discussion pipeline (seed 002). Durable contracts: add optional fields, never rename.

Large texts (every agent's contribution, round transcripts, the HTML report) live in the artifact store; these
payloads carry `ArtifactRef`s plus short excerpts, so the workflow history stays small however long the
discussion gets.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from models.common import MAX_ITEMS, ArtifactRef, IdStr, TextStr, UsageTotals
from models.status import COMPLETED

# ------------------------------------------------------------------------------------------- public names
# The workflow's contract: clients start it and talk to it by these names. Never change a value (running
# workflows and recorded histories depend on them).
WORKFLOW_TYPE = "DiscussionWorkflow"                       # DiscussionInput -> DiscussionResult
QUERY_PROGRESS = "progress"                                # -> DiscussionProgress

# The roles of the seed's team. The UI Creator's job (the HTML report) is done by a deterministic renderer.
ROLES = ("leader", "researcher", "ideation", "critic", "implementer", "moderator")
REQUIRED_ROLES = ("leader", "ideation")
LEVEL_NAMES = ("standard", "extended", "full")

MessageType = Literal["kickoff", "researcher", "ideation", "critic", "implementer", "synthesis", "validation",
                      "selection"]
Outcome = Literal["selected", "no_idea_met_threshold", "no_ideas", "unscored"]


class DiscussionInput(BaseModel):
    """What `colloquy discuss` (or `temporal workflow start`) sends. Checked by the workflow before any call."""

    topic: TextStr = Field(description="What the team should explore (1-2000 characters)")
    level: IdStr = Field(default="standard", description="standard | extended | full (seed 002 level table)")
    team: list[IdStr] = Field(default_factory=lambda: list(ROLES), max_length=MAX_ITEMS,
                              description=f"Roles taking part; leader and ideation are required. Known: {ROLES}")
    models: dict[IdStr, IdStr] = Field(default_factory=dict, max_length=MAX_ITEMS,
                                   description="Optional litellm model id per role, e.g. {'critic': 'openai/gpt-4o'}")
    html_report: bool = Field(default=False, description="Render a self-contained HTML report artifact")


class LevelRules(BaseModel):
    """One row of the seed's decision table."""

    level: str
    max_rounds: int
    min_ideas: int
    deep_dive: bool
    min_score_threshold: float


class Scores(BaseModel):
    """The moderator's five criteria, 0-10 each."""

    feasibility: float = Field(ge=0, le=10)
    innovation: float = Field(ge=0, le=10)
    impact: float = Field(ge=0, le=10)
    clarity: float = Field(ge=0, le=10)
    completeness: float = Field(ge=0, le=10)


class Idea(BaseModel):
    """An idea in the discussion's pool (ids I1, I2, ... in order of acceptance)."""

    id: str
    title: str
    description: str
    rationale: str = ""
    proposed_in_round: int
    refined_in_rounds: list[int] = Field(default_factory=list)
    scores: Scores | None = None
    overall: float | None = Field(default=None, description="Mean of the five criteria, 2 decimals")
    pros: list[str] = Field(default_factory=list)
    cons: list[str] = Field(default_factory=list)
    feedback: str = ""
    offline: bool = Field(default=False, description="the offline test double proposed, refined or scored it")


class MessageRef(BaseModel):
    """One contribution to the discussion (the seed's Message); the full text is the artifact `ref`."""

    id: str
    from_role: str
    to: str = "team"
    type: MessageType
    round: int = 0
    ref: ArtifactRef
    excerpt: str = ""
    at: datetime | None = None
    offline: bool = Field(default=False, description="the offline test double wrote it (the call's usage.offline)")


# ----------------------------------------------------------------------------------------- LLM outputs
class IdeaDraft(BaseModel):
    """One idea as the ideation specialist writes it."""

    title: str = Field(description="Short name of the idea")
    description: str = Field(description="What it is and how it works, 1-4 sentences")
    rationale: str = Field(default="", description="Why it is worth pursuing")
    refines: str | None = Field(default=None, description="Id of an existing idea (e.g. 'I2') this one refines")


class IdeationOutput(BaseModel):
    commentary: str = Field(default="", description="A short note on how these ideas build on the discussion")
    ideas: list[IdeaDraft] = Field(description="3-5 ideas")


class IdeaEvaluation(BaseModel):
    """The moderator's evaluation of one idea; the scores (the verdict) come last."""

    idea_id: str = Field(description="The idea's id as listed, e.g. 'I1'")
    pros: list[str] = Field(default_factory=list)
    cons: list[str] = Field(default_factory=list)
    feedback: str = ""
    feasibility: float = Field(ge=0, le=10)
    innovation: float = Field(ge=0, le=10)
    impact: float = Field(ge=0, le=10)
    clarity: float = Field(ge=0, le=10)
    completeness: float = Field(ge=0, le=10)


class ScoringOutput(BaseModel):
    summary: str = Field(default="", description="Overall evaluation of the idea set")
    evaluations: list[IdeaEvaluation]


class LeaderSelectionOutput(BaseModel):
    """The leader's final comment; the preference comes last. The score, not this, decides."""

    explanation: str
    preferred_idea_id: str | None = Field(default=None, description="Id of the idea the leader would pick")


# ----------------------------------------------------------------------------------- activity payloads
class TurnInput(BaseModel):
    """One agent turn: who speaks, what it sees (message refs + the idea pool), where its words go."""

    discussion_id: str = Field(description="Artifact scope (the workflow id)")
    topic: str
    role: str
    model: str | None = Field(default=None, description="litellm model id for this role (None: configured model)")
    team: list[str]
    round: int = 0
    max_rounds: int = 1
    min_ideas: int = 3
    mode: Literal["generate", "topup", "refine"] = "generate"
    messages: list[MessageRef] = Field(default_factory=list)
    ideas: list[Idea] = Field(default_factory=list)
    message_id: str = Field(description="Id (and artifact file stem) of the message this turn writes")


class TurnOutput(BaseModel):
    message: MessageRef


class IdeationTurn(BaseModel):
    message: MessageRef
    ideas: list[IdeaDraft]


class ScoringTurn(BaseModel):
    message: MessageRef
    evaluations: list[IdeaEvaluation]


class SelectionTurn(BaseModel):
    message: MessageRef
    preferred_idea_id: str | None = None
    explanation_excerpt: str = ""


class TranscriptInput(BaseModel):
    discussion_id: str
    name: str
    title: str
    messages: list[MessageRef]


# ------------------------------------------------------------------------------------------ decisions
class DiscussionEvent(BaseModel):
    """A line of the discussion's event log: agent failures skipped, shortfalls, warnings."""

    kind: Literal["agent_failed", "agent_skipped", "ideas_dropped", "idea_shortfall", "score_warning",
                  "report_failed", "transcript_failed", "selection_comment_failed"]
    phase: str
    round: int = 0
    role: str = ""
    message: str


class SelectionDecision(BaseModel):
    """Why the winner won: the score decides; the leader's comment is context."""

    idea_id: str | None
    overall: float | None = None
    threshold: float
    considered: list[str] = Field(default_factory=list, description="Ideas at or above the threshold, best first")
    tie_break: str | None = Field(default=None, description="How a tie on the overall score was broken")
    leader_preferred_idea_id: str | None = None
    leader_agrees: bool | None = None
    leader_comment_excerpt: str = ""
    reason: str = ""


class ReportInput(BaseModel):
    discussion_id: str
    topic: str
    rules: LevelRules
    team: list[str]
    models: dict[str, str] = Field(default_factory=dict)
    outcome: str
    outcome_detail: str
    ideas: list[Idea]
    selection: SelectionDecision | None
    messages: list[MessageRef]
    events: list[DiscussionEvent]
    usage: UsageTotals
    offline: bool = Field(default=False, description="the offline test double wrote some of the discussion")


MAX_PROGRESS_STEPS = 200


class DiscussionProgress(BaseModel):
    """What the `progress` query shows (CLI, Web UI)."""

    discussion_id: str
    topic: str
    level: str
    status: str = Field(description="The shared vocabulary (models/status.py): the run's ColloquyStatus")
    phase: str
    round: int
    max_rounds: int
    current_step: str = ""
    ideas: list[Idea] = Field(default_factory=list)
    messages: int = 0
    events: list[DiscussionEvent] = Field(default_factory=list)
    selected_idea_id: str | None = None
    usage: UsageTotals = Field(default_factory=UsageTotals)
    steps: list[str] = Field(default_factory=list, max_length=MAX_PROGRESS_STEPS,
                             description="Every step so far ('phase: step'), oldest first: a client that polls "
                             "late (a fast run) still prints each one")
    offline: bool = Field(default=False, description="the offline test double wrote some of the discussion")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def colloquy_status(self) -> str:
        """The same field name as every pipeline's status view: a discussion's `status` is already the shared word."""
        return self.status


class DiscussionResult(BaseModel):
    discussion_id: str
    topic: str
    rules: LevelRules
    team: list[str]
    models: dict[str, str] = Field(default_factory=dict)
    rounds_completed: int
    outcome: Outcome
    outcome_detail: str
    ideas: list[Idea]
    selected: Idea | None = None
    selection: SelectionDecision | None = None
    messages: list[MessageRef]
    round_transcripts: list[ArtifactRef] = Field(default_factory=list)
    transcript: ArtifactRef | None = None
    report: ArtifactRef | None = None
    events: list[DiscussionEvent] = Field(default_factory=list)
    usage: UsageTotals
    offline: bool = Field(default=False, description="the offline test double wrote some of the discussion")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def colloquy_status(self) -> str:
        """A discussion returns a result only when it completed (failures and cancels end the run instead)."""
        return COMPLETED
