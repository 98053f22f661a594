"""Writing pipeline payloads (seed 004): the workflow config (a state machine as data), agent outputs, the run
record. Durable contracts: add optional fields with defaults, never rename.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from models.common import ArtifactRef, LLMUsage
from models.status import writing_status

StateType = Literal["initial", "fan-out", "single", "orchestrator-task", "human-approval", "terminal"]
Task = Literal["draft", "audit", "final_audit", "synthesize", "final_analysis", "quality_gate"]
RuleName = Literal["state_visit_limit", "cycle_detection", "transition_limit", "timeout", "cost_limit"]
RunStatus = Literal["running", "waiting_approval", "complete", "complete_below_floor", "halted", "failed", "forced"]
# Statuses of a run that ended with a post it may use (the floor status says the score was below the floor).
COMPLETE_STATUSES = ("complete", "complete_below_floor")

# ------------------------------------------------------------------------------------------- public names
# The workflow's contract: clients start it and talk to it by these names. Never change a value (running
# workflows and recorded histories depend on them).
WORKFLOW_TYPE = "WritingWorkflow"                          # WritingInput -> WritingResult
SIGNAL_APPROVAL = "approval"                               # ApprovalInput (fire and forget)
UPDATE_SUBMIT_APPROVAL = "submit_approval"                 # ApprovalInput -> ApprovalReceipt (validated)
UPDATE_AWAIT_APPROVAL_REQUEST = "await_approval_request"   # -> PendingApproval | None (None: the run ended)
QUERY_RUN_STATUS = "run_status"                            # -> StatusView
QUERY_OUTPUTS = "outputs"                                  # -> OutputsView

MAX_STORY_CHARS = 200_000
MAX_FEEDBACK_CHARS = 4_000
MAX_MODELS = 8


# ------------------------------------------------------------------------------------------------ config
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RuleConfig(_Strict):
    """One circuit-breaker rule (§13). `limit` defaults: visits 3, transitions 20, timeout 1800 s, cost $5.
    A rule with a `condition` (the seed's form, rules/writing/conditions.py) fires when the condition holds; its
    name is then free. Without one, the name must be a built-in rule (RuleName)."""

    name: str = Field(min_length=1, max_length=80)
    limit: float | None = None
    enabled: bool = True
    condition: str | None = Field(default=None, max_length=300, description="e.g. 'transition_count >= 20'")


class SafetyLimits(_Strict):
    """Hard limits: the orchestrator cannot override them."""

    max_transitions_hard: int = 50
    max_runtime_hard: float = 3600.0
    max_cost_hard: float = 10.0
    max_tokens_hard: int | None = Field(default=None, description="Hard token cap for the run (None: no cap)")


def _default_rules() -> list[RuleConfig]:
    return [RuleConfig(name=n) for n in ("state_visit_limit", "cycle_detection", "transition_limit", "timeout",
                                         "cost_limit")]


class CircuitBreakerConfig(_Strict):
    rules: list[RuleConfig] = Field(default_factory=_default_rules)
    safety_limits: SafetyLimits = Field(default_factory=SafetyLimits)


class Price(_Strict):
    """USD per 1,000 tokens."""

    input: float = 0.0
    output: float = 0.0


class ModelSettings(_Strict):
    """Per-model settings (seed `agents.<name>`): context window and an explicit price, both optional."""

    context_window: int | None = None
    cost_per_1k: Price | None = None


class OrchestratorConfig(_Strict):
    model: str | None = Field(default=None, description="litellm model id; default: the tiered model")
    persona: str = "orchestrator"


class RunSettings(_Strict):
    timeout_per_agent: float = Field(default=300.0, gt=0, description="Seconds one fan-out branch may take")
    default_context_window: int = 128_000
    preview_chars: int = 160
    retry_count: int = Field(default=2, ge=0, le=5, description="In-place retries of a single state whose call "
                             "failed transiently (after its activity policy), before its failure transition")
    score_floor: float | None = Field(default=None, ge=0, le=10, description="A run that completes with a final "
                                      "score below this ends complete_below_floor (no human approved it)")


class StateConfig(_Strict):
    type: StateType
    description: str = ""
    task: Task | None = None
    persona: str | None = None
    agents: list[str] | None = Field(default=None, description="fan-out: model ids; default = the run's models")
    agent: str | None = Field(default=None, description="single: a model id, or 'orchestrator'")
    input: list[str] = Field(default_factory=list, description="states whose latest outputs feed this state")
    next: str | None = Field(default=None, description="initial: the first state")
    transitions: dict[str, str] = Field(default_factory=dict)
    timeout_s: float | None = Field(default=None, gt=0, description="fan-out branch timeout / approval wait")
    prompt: str | None = None
    error: bool = False


class WorkflowConfig(_Strict):
    name: str = "default"
    description: str = ""
    orchestrator: OrchestratorConfig = Field(default_factory=OrchestratorConfig)
    personas: dict[str, str] = Field(default_factory=dict, description="persona name -> file in prompts/writing/personas")
    agents: dict[str, ModelSettings] = Field(default_factory=dict)
    states: dict[str, StateConfig]
    circuit_breaker: CircuitBreakerConfig = Field(default_factory=CircuitBreakerConfig)
    settings: RunSettings = Field(default_factory=RunSettings)


# ------------------------------------------------------------------------------------------- LLM outputs
class ReviewScores(BaseModel):
    """One auditor's scores for one text (1–10), reasoning before the numbers."""

    target: str = Field(description="The model whose text is reviewed, exactly as labelled in the prompt")
    feedback: str
    hook_score: int = Field(ge=1, le=10)
    specifics_score: int = Field(ge=1, le=10)
    voice_score: int = Field(ge=1, le=10)
    structure_score: int = Field(ge=1, le=10)
    overall_score: int = Field(ge=1, le=10)


class CrossAudit(BaseModel):
    reviews: list[ReviewScores] = Field(min_length=1)
    consensus: str = Field(description="What the drafts share and what is missing")


class FinalAudit(BaseModel):
    strengths: list[str] = Field(default_factory=list)
    issues: list[str] = Field(default_factory=list)
    feedback: str
    hook_score: int = Field(ge=1, le=10)
    specifics_score: int = Field(ge=1, le=10)
    voice_score: int = Field(ge=1, le=10)
    structure_score: int = Field(ge=1, le=10)
    overall_score: int = Field(ge=1, le=10)
    verdict: Literal["ready", "needs_work"]


class FinalAnalysis(BaseModel):
    summary: str
    suggestions: list[str] = Field(default_factory=list)
    final_score: float = Field(ge=1, le=10)
    determination: Literal["ready", "revise"]


class AuditIssue(BaseModel):
    severity: Literal["critical", "major", "minor"]
    issue: str
    fix: str


class AuditResult(BaseModel):
    """A quality gate's verdict (§14): decision last."""

    issues: list[AuditIssue] = Field(default_factory=list)
    feedback: str = ""
    retry_guidance: str = Field(default="", description="Specific instructions for the retried state")
    score: int = Field(ge=1, le=10)
    decision: Literal["proceed", "retry", "halt"]


class CircuitBreakerDecision(BaseModel):
    """The orchestrator's answer to a circuit break (§13): decision last."""

    reasoning: str
    use_output: str | None = Field(default=None, description="force_complete: output id to use, e.g. draft/modelA")
    retry_from: str | None = Field(default=None, description="retry_different: the state to retry from")
    retry_guidance: str | None = None
    decision: Literal["force_complete", "retry_different", "halt", "dump_context"]


# ------------------------------------------------------------------------------------- activity payloads
class SourceDoc(BaseModel):
    """An earlier output handed to an agent (by reference; the activity reads the text)."""

    state: str
    model: str
    kind: str
    ref: ArtifactRef


class WritingTaskInput(BaseModel):
    run_id: str
    state: str
    visit: int
    task: Task
    model: str | None = Field(default=None, description="litellm model id to force; None = tiered default")
    persona: str
    persona_file: str | None = None
    persona_text: str | None = None
    story: ArtifactRef
    sources: list[SourceDoc] = Field(default_factory=list)
    guidance: str | None = None
    previous_post: ArtifactRef | None = None
    output_name: str


class TaskResult(BaseModel):
    """What every writing agent activity returns (the text itself is in the artifact store)."""

    output_ref: ArtifactRef
    kind: str
    word_count: int = 0
    preview: str = ""
    usage: LLMUsage
    cross_audit: CrossAudit | None = None
    final_audit: FinalAudit | None = None
    analysis: FinalAnalysis | None = None
    gate: AuditResult | None = None
    prompt_ref: ArtifactRef | None = Field(default=None, description="The rendered prompt, as sent (agent logs)")


class BreakContext(BaseModel):
    state_visits: dict[str, int]
    transition_history: list[tuple[str, str]]
    transition_count: int
    elapsed_s: float
    total_cost_usd: float


class BreakInfo(BaseModel):
    rule: str
    message: str
    overridable: bool = True
    context: BreakContext


class ConsultInput(BaseModel):
    run_id: str
    model: str | None = None
    persona_text: str | None = None
    persona_file: str | None = None
    story: ArtifactRef
    brk: BreakInfo
    outputs: list[str] = Field(default_factory=list, description="'state/model: preview' lines")
    quality_scores: list[str] = Field(default_factory=list)
    states: list[str] = Field(default_factory=list)


class ConsultResult(BaseModel):
    decision: CircuitBreakerDecision
    usage: LLMUsage


# ------------------------------------------------------------------------------------------ run records
class AuditScoreRow(BaseModel):
    state: str
    kind: str = "audit"
    visit: int = 1
    auditor: str
    target: str
    overall: float
    hook: float | None = None
    specifics: float | None = None
    voice: float | None = None
    structure: float | None = None
    feedback: str = ""
    offline: bool = Field(default=False, description="the offline test double wrote these scores")


class AgentOutput(BaseModel):
    state: str
    model: str
    kind: str
    ref: ArtifactRef
    word_count: int = 0
    preview: str = ""
    visit: int = 1
    offline: bool = Field(default=False, description="the offline test double wrote it (the call's usage.offline)")


class Invocation(BaseModel):
    """One agent invocation (§6 TokenUsage + §7 agent log + §17 invocations row)."""

    seq: int
    state: str
    visit: int
    task: str
    agent: str
    model: str
    persona: str | None = None
    started_at: datetime
    duration_s: float = 0.0
    status: Literal["success", "failed", "timeout", "cancelled"]
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    context_window: int = 0
    context_used_pct: float = 0.0
    context_status: str = "healthy"
    output_ref: ArtifactRef | None = None
    output_name: str | None = None
    word_count: int = 0
    preview: str = ""
    attempt: int = 1
    fallback_used: bool = False
    guidance: str | None = None
    prompt_ref: ArtifactRef | None = None
    inputs: list[str] = Field(default_factory=list, description="artifact names the agent was given")
    session_tokens: int = Field(default=0, description="this model's cumulative tokens in the run (§6 session)")
    offline: bool = Field(default=False, description="the offline test double answered (the call's usage.offline)")

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def success(self) -> bool:
        return self.status == "success"


class StateLogEntry(BaseModel):
    ts: datetime
    event: str
    state: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class BreakerState(BaseModel):
    """The circuit breaker's counters (pure logic in rules/writing/breaker.py)."""

    state_visits: dict[str, int] = Field(default_factory=dict)
    transition_history: list[tuple[str, str]] = Field(default_factory=list)
    transition_count: int = 0
    total_cost_usd: float = 0.0
    # soft baselines: a rule the orchestrator answered is re-armed from here; hard limits never reset
    cycle_window_start: int = 0
    transition_baseline: int = 0
    elapsed_baseline_s: float = 0.0
    cost_baseline: float = 0.0
    consultations: int = 0
    total_tokens: int = 0
    # human-driven rounds (approval feedback) are counted apart: visits count again from this baseline
    visit_baseline: dict[str, int] = Field(default_factory=dict)
    human_rounds: int = 0


class PendingApproval(BaseModel):
    request_id: str
    state: str
    prompt: str
    post_ref: ArtifactRef | None = None
    post_text: str = ""
    since: datetime
    timeout_s: float | None = None


class ApprovalInput(BaseModel):
    """Signal `approval` / update `submit_approval`: approve | abort | feedback (with text)."""

    decision: str = Field(description="approve | abort | feedback")
    feedback: str | None = None
    request_id: str | None = Field(default=None, description="Optional: must match the pending request")


class ApprovalReceipt(BaseModel):
    request_id: str
    decision: str
    accepted: bool = True


class RunState(BaseModel):
    """Everything the workflow keeps (small): carried across continue-as-new."""

    run_id: str
    story_name: str
    story_ref: ArtifactRef | None = None
    models: list[str]
    config: WorkflowConfig | None = None
    current: str = "start"
    status: RunStatus = "running"
    started_at: datetime | None = None
    breaker: BreakerState = Field(default_factory=BreakerState)
    outputs: dict[str, list[AgentOutput]] = Field(default_factory=dict)
    invocations: list[Invocation] = Field(default_factory=list)
    state_log: list[StateLogEntry] = Field(default_factory=list)
    audit_scores: list[AuditScoreRow] = Field(default_factory=list)
    gate_scores: list[dict[str, Any]] = Field(default_factory=list)
    pending_guidance: dict[str, str] = Field(default_factory=dict)
    pending_previous_post: dict[str, ArtifactRef] = Field(default_factory=dict)
    human_feedback: list[str] = Field(default_factory=list)
    rejected_posts: list[str] = Field(default_factory=list, description="names of posts a human sent back")
    approved: bool = False
    shown_posts: list[str] = Field(default_factory=list, description="posts shown to the human reviewer")
    approved_posts: list[str] = Field(default_factory=list, description="posts a human approved, oldest first")
    approved_after: int = Field(default=0, description="invocations recorded when a human last approved")
    forced_output: AgentOutput | None = None
    reason: str | None = None
    final_score: float | None = None
    analysis_ref: ArtifactRef | None = None
    human_wait_s: float = 0.0
    executions: dict[str, int] = Field(default_factory=dict, description="runs per state (never reset)")
    continued: int = 0


class WritingInput(BaseModel):
    # the declared maximum story (MAX_STORY_CHARS, CJK at 3 bytes each) and the rest of the input must fit
    MAX_BYTES: ClassVar[int] = 1_536 * 1024
    story_text: str | None = Field(default=None, description="The story (markdown); or story_ref")
    story_ref: ArtifactRef | None = None
    story_name: str = Field(default="story", description="Used in ids, history and post_iterations")
    models: list[str] = Field(default_factory=list, description="Writer/auditor litellm model ids, fan-out width")
    personas: dict[str, str] = Field(default_factory=dict, description="persona name -> inline persona text")
    config: WorkflowConfig | None = None
    config_name: str = Field(default="default", description="configs/writing/<name>.yaml when config is None")
    continue_as_new_after: int | None = Field(default=None, ge=1, le=10_000, description="Transitions per run "
                                              "before continue-as-new (default: when Temporal suggests it)")
    carry: RunState | None = None


class StatusView(BaseModel):
    run_id: str
    story: str
    state: str
    status: RunStatus

    @computed_field  # type: ignore[prop-decorator]
    @property
    def colloquy_status(self) -> str:
        """`status` in the shared vocabulary (models/status.py): the run's ColloquyStatus search attribute."""
        return writing_status(self.status)
    models: list[str]
    visits: dict[str, int]
    transitions: list[tuple[str, str]]
    transition_count: int
    cost_usd: float
    tokens: int
    invocations: int
    pending_approval: PendingApproval | None = None
    last_event: StateLogEntry | None = None
    reason: str | None = None
    event_count: int = 0
    recent_events: list[StateLogEntry] = Field(default_factory=list, description="the last 20 state-log entries")
    offline: bool = Field(default=False, description="some output so far was written by the offline test double")


class OutputsView(BaseModel):
    outputs: dict[str, list[AgentOutput]]
    final_post: AgentOutput | None = None
    audit_scores: list[AuditScoreRow] = Field(default_factory=list)
    offline: bool = Field(default=False, description="some output was written by the offline test double")


class RunRecord(BaseModel):
    """Everything the log writer and history recorder need at the end of a run."""

    state: RunState
    finished_at: datetime
    final_post: AgentOutput | None = None
    forced: bool = False


class HistoryContext(BaseModel):
    """Earlier runs, for the run summary's 'Historical Context' section."""

    iteration: int = 1
    previous_best: float | None = None
    average_cost: float | None = None
    agent_averages: dict[str, float] = Field(default_factory=dict)


class RunArtifacts(BaseModel):
    refs: dict[str, ArtifactRef] = Field(default_factory=dict)


class WritingResult(BaseModel):
    run_id: str
    status: RunStatus

    @computed_field  # type: ignore[prop-decorator]
    @property
    def colloquy_status(self) -> str:
        """`status` in the shared vocabulary (completed, partial, halted): the run's final ColloquyStatus."""
        return writing_status(self.status)
    final_state: str
    reason: str | None = None
    forced: bool = False
    final_post: AgentOutput | None = None
    final_score: float | None = None
    cost_usd: float = 0.0
    tokens: int = 0
    transitions: list[tuple[str, str]] = Field(default_factory=list)
    artifacts: dict[str, ArtifactRef] = Field(default_factory=dict)
    history_recorded: bool = False
    offline: bool = Field(default=False, description="some output was written by the offline test double")
