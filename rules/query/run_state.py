"""One QueryWorkflow run's state, pure (no Temporal): what the run has learnt so far, step by step, and what it
reports from it — its status, its result, the `session_state` view, and the check of a clarification answer.
The workflow (`workflows/query/workflow.py`) holds one `QueryRun` and its steps change it; every decision about where to go
next is in `rules.query.machine`."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from models.common import ArtifactRef, LLMUsage, UsageTotals
from models.query.agents import AnalyzerOutput, ParserOutput, PlannerOutput, RouterOutput, SynthesizerOutput
from models.query.parts import (
    ActiveDomainContext,
    DomainCatalog,
    Entry,
    EvaluationFeedback,
    Gap,
    InputType,
    RetrievalAttempt,
)
from models.query.workflow import (
    MAX_ANSWER_CHARS,
    ClarifyAnswer,
    PendingClarification,
    QueryRequest,
    QueryResult,
    ReparseResult,
    SessionStateView,
    StoreEntryResult,
)
from models.status import query_status
from rules.query.evidence import checked_answer
from rules.query.machine import (
    LoopCounters,
    LoopLimits,
    State,
)
from rules.query.summaries import (
    describe_store,
    label_offline,
)


@dataclass
class QueryRun:
    """Everything one QueryWorkflow run knows (the `session_state` query and the result read it)."""

    req: QueryRequest | None = None
    limits: LoopLimits = field(default_factory=LoopLimits)
    counters: LoopCounters = field(default_factory=LoopCounters)
    state: State = State.ROUTE
    usage: UsageTotals = field(default_factory=UsageTotals)
    catalog: DomainCatalog | None = None
    route: RouterOutput | None = None
    input_type: InputType | None = None
    selected: list[str] = field(default_factory=list)
    expansion_history: list[str] = field(default_factory=list)
    ctx: ActiveDomainContext | None = None
    query_text: str = ""
    log_text: str = ""
    log_done: bool = False
    parsed: ParserOutput | None = None
    stored: list[StoreEntryResult] = field(default_factory=list)
    plan: PlannerOutput | None = None
    pending_expansion: list[str] = field(default_factory=list)
    gaps_status: dict[str, dict[str, bool]] = field(default_factory=dict)
    retrieval_history: list[RetrievalAttempt] = field(default_factory=list)
    refs: dict[int, list[ArtifactRef]] = field(default_factory=dict)
    ids_by_sub: dict[int, list[str]] = field(default_factory=dict)
    entry_ids: list[str] = field(default_factory=list)
    empty_period: bool = False   # the asked period held no notes (patch empty-period-stated)
    analysis: AnalyzerOutput | None = None
    gaps: list[Gap] = field(default_factory=list)
    draft: SynthesizerOutput | None = None
    feedback: list[EvaluationFeedback] = field(default_factory=list)
    evaluations: int = 0
    partial: bool = False
    final_partial: bool = False
    clarify_round: int = 0
    planner_questions: list[str] = field(default_factory=list)
    pending: PendingClarification | None = None
    answer: ClarifyAnswer | None = None
    user_responses: dict[str, str] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)
    declined: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    global_context: str = ""
    response: str = ""
    offline: bool = False               # an agent answer came from the offline test double: say so
    all_feedback: list[EvaluationFeedback] = field(default_factory=list)  # every evaluation's issues (the final partial lists all)
    scope_notes: list[str] = field(default_factory=list)   # "only N of M entries in scope were read"
    in_scope: int = 0
    recent: list[Entry] = field(default_factory=list)      # correction: the entries it may be about
    correction_options: list[Entry] = field(default_factory=list)
    correction_target: str | None = None
    reanalyze: bool = False             # a clarification was answered: re-plan, then analyze again
    unrouted: bool = False              # the Router failed: the note was kept as written
    reparsed: ReparseResult | None = None
    failed: bool = False                # the run failed (invalid input, or a step that cannot degrade)
    today: date = date.min

    def status(self) -> str:
        """ColloquyStatus now (models/status.py): the search attribute and the `session_state` query agree."""
        return query_status(self.state.value, waiting_user=self.state == State.WAIT_USER and self.pending is not None,
                            partial=self.partial or self.final_partial, failed=self.failed)

    def count(self, usage: LLMUsage) -> None:
        self.usage.add(usage)
        self.offline = self.offline or usage.offline

    def parse_domains(self, correction: bool) -> list[str]:
        """A log is parsed by the loaded domains; a correction may touch any domain of the target entry."""
        assert self.ctx is not None and self.catalog is not None
        if correction:
            return [self.catalog.base.name] + [d.name for d in self.catalog.domains]
        return self.ctx.domains_loaded

    def stored_entry(self, now: datetime) -> Entry | None:
        """The entry just logged, as the Observer's `new_entry` (significant_log)."""
        if not self.stored or self.parsed is None:
            return None
        ts = self.parsed.timestamp or now
        return Entry(id=self.stored[0].entry_id, date=ts.date(), timestamp=ts,
                     raw_content=self.log_text, domain_data=self.parsed.domain_data, tags=self.parsed.tags,
                     uncertain_fields=self.parsed.uncertain_fields, source_file=self.stored[0].raw_file)

    def result(self) -> QueryResult:
        assert self.input_type is not None
        d = self.draft
        uncertain = list(self.parsed.uncertain_fields) if self.parsed else []
        is_query = self.input_type in (InputType.QUERY, InputType.BOTH)
        response = self.response
        evidence: list[str] = []
        confidence: str = d.confidence if d and is_query else ("high" if self.stored else "low")
        if d and is_query:  # only entries read for this answer are ever reported as its evidence
            response, evidence, confidence = checked_answer(response, d.evidence_cited, self.entry_ids, confidence)
        if self.input_type == InputType.BOTH and self.stored:
            response = describe_store(self.stored[0], self.parsed, correction=False) + "\n\n" + response
        return QueryResult(
            input_type=self.input_type, response=label_offline(response, self.offline),
            key_points=d.key_points if d and is_query else [],
            evidence_cited=evidence,
            gaps_disclosed=d.gaps_disclosed if d and is_query else [],
            confidence=confidence,  # type: ignore[arg-type]
            partial=self.partial or self.final_partial, stored_entries=self.stored, uncertain_fields=uncertain,
            domains_loaded=self.ctx.domains_loaded if self.ctx else [], path=list(self.counters.path),
            attempts=dict(self.counters.counts) | {"evaluations": self.evaluations}, warnings=self.warnings,
            entries_read=len(self.entry_ids), usage=self.usage, offline=self.offline,
            entries_in_scope=max(self.in_scope, len(self.entry_ids)), reparsed=self.reparsed)

    def check_clarify(self, answer: ClarifyAnswer) -> None:
        if self.pending is None or self.answer is not None:
            raise ValueError("no clarification is pending for this query (it was answered, timed out, or never "
                             "asked)")
        if answer.request_id is not None and answer.request_id != self.pending.request_id:
            raise ValueError(f"clarification request {answer.request_id!r} is not the pending one "
                             f"({self.pending.request_id!r})")
        if answer.decline:
            if answer.answers:
                raise ValueError("send either answers or decline=True, not both")
            return
        if not answer.answers:
            raise ValueError("no answers given: answer at least one question by id, or decline")
        valid = {q.id for q in self.pending.questions}
        unknown = sorted(set(answer.answers) - valid)
        if unknown:
            raise ValueError(f"unknown question id(s) {', '.join(unknown)}: the pending questions are "
                             f"{', '.join(sorted(valid))}")
        for qid, text in answer.answers.items():
            if not text.strip():
                raise ValueError(f"the answer to {qid} is empty")
            if len(text) > MAX_ANSWER_CHARS:
                raise ValueError(f"the answer to {qid} is {len(text)} characters, over the {MAX_ANSWER_CHARS} "
                                 "limit")

    def pending_view(self) -> PendingClarification | None:
        return self.pending if self.answer is None else None

    def view(self) -> SessionStateView:
        return SessionStateView(
            state=self.state.value, colloquy_status=self.status(), path=list(self.counters.path),
            input_type=self.input_type.value if self.input_type else None,
            attempts=dict(self.counters.counts) | {"evaluations": self.evaluations},
            limits=self.limits.as_dict(), gaps=[g.description for g in self.gaps],
            domains_loaded=self.ctx.domains_loaded if self.ctx else [],
            domain_expansion_history=self.expansion_history, waiting_for_user=self.pending is not None,
            entries_read=len(self.entry_ids), usage=self.usage)


# ===================================================================================== batch import
