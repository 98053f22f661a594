"""QueryWorkflow: notes in, grounded answers out (seed 001: 9 agents, 13 states, 4 bounded cycles).

    ROUTE → BUILD_CONTEXT ─┬─ PARSE → STORE ─┬─ OBSERVE → COMPLETE               (LOG, CORRECTION)
                           │                 └─ PLAN …                           (BOTH: the log first)
                           └─ PLAN → RETRIEVE → ANALYZE → SYNTHESIZE → EVALUATE → OBSERVE → COMPLETE
         cycles: ANALYZE→PLAN (insufficient), EVALUATE→PLAN (fail, ≤2 retries, then a partial answer),
                 EXPAND_DOMAIN→BUILD_CONTEXT (a domain is missing), CLARIFY→WAIT_USER→ANALYZE (only the user knows)

Each state is one method below; where to go next is decided by pure functions in rules/query, and
every edge is checked and counted by LoopCounters so no cycle can run away. WAIT_USER is a durable wait for the
`clarify` update (validated), with a timeout. Retrieved entries live in the artifact store; history holds refs.

ImportNotesWorkflow: `colloquy notes import DIR` — every file a LOG, parsed and stored in batches, progress as a
query, continue-as-new every few batches.

ReparseNotesWorkflow: `colloquy notes reparse` — notes a Router failure kept as written (tagged needs-parsing) are
parsed and updated in place; QueryWorkflow and ImportNotesWorkflow parse a few of them on the side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.query.analyzer import analyze_evidence
    from activities.query.clarifier import clarify_gaps
    from activities.query.evaluator import evaluate_answer
    from activities.query.observer import observe_context
    from activities.query.parser import parse_log, parse_log_batch
    from activities.query.planner import plan_query
    from activities.query.retriever import retrieve_notes
    from activities.query.router import route_input
    from activities.query.storage import (
        notes_apply_context_updates,
        notes_finish_import,
        notes_list_import_files,
        notes_load_domains,
        notes_needs_parsing,
        notes_read_global_context,
        notes_recent_entries,
        notes_store_batch,
        notes_store_entry,
        notes_store_reparsed,
    )
    from activities.query.synthesizer import synthesize_answer
    from core import search_attributes as sa
    from models.common import AgentResult, ArtifactRef, LLMUsage, UsageTotals
    from models.query import (
        CONTEXT_WORKFLOW_TYPE,
        IMPORT_WORKFLOW_TYPE,
        MAX_ANSWER_CHARS,
        MAX_INPUT_CHARS,
        QUERY_IMPORT_PROGRESS,
        QUERY_PENDING_CLARIFICATION,
        QUERY_SESSION_STATE,
        REPARSE_PER_RUN,
        REPARSE_WORKFLOW_TYPE,
        UPDATE_CLARIFY,
        WORKFLOW_TYPE,
        ActiveDomainContext,
        AnalyzeInput,
        AnalyzerOutput,
        ApplyContextInput,
        ApplyContextResult,
        ClarifierOutput,
        ClarifyAck,
        ClarifyAnswer,
        ClarifyInput,
        ContextRequest,
        DomainCatalog,
        Entry,
        EvaluateInput,
        EvaluationFeedback,
        EvaluatorOutput,
        Finding,
        FinishImportInput,
        FinishImportResult,
        Gap,
        GapType,
        ImportBatchInput,
        ImportBatchResult,
        ImportProgress,
        ImportRequest,
        ImportResult,
        InputType,
        ListImportInput,
        LoadDomainsInput,
        NeedsParsingInput,
        NeedsParsingResult,
        NotesLocation,
        ObserveInput,
        ObserverOutput,
        ParseInput,
        ParserOutput,
        PendingClarification,
        PendingQuestion,
        PlanInput,
        PlannerOutput,
        QueryRequest,
        QueryResult,
        QueryType,
        RecentEntriesInput,
        ReparsedNote,
        ReparseRequest,
        ReparseResult,
        RetrievalAttempt,
        RetrieveInput,
        RetrieverOutput,
        RouteInput,
        RouterOutput,
        SessionStateView,
        StoreBatchInput,
        StoreBatchResult,
        StoreEntryInput,
        StoreEntryResult,
        StoreReparsedInput,
        StoreReparsedResult,
        SubQuery,
        SynthesizeInput,
        SynthesizerOutput,
        Verdict,
    )
    from models.status import COMPLETED, FAILED, PHASE_DONE, RUNNING, query_status
    from rules.errors import error_message
    from rules.query.corrections import check_target, chosen_entry, option_label
    from rules.query.domains import combine_domains, domain_schemas, known_domains, valid_selection
    from rules.query.evaluation import (
        accumulate_feedback,
        aggregate_verdict,
        feedback_from,
        missing_items,
        partial_response,
    )
    from rules.query.evidence import asked_periods, checked_answer, empty_period_answer
    from rules.query.imports import clean_text
    from rules.query.machine import (
        LoopCounters,
        LoopLimits,
        State,
        TransitionError,
        clarifiable_gaps,
        decide_after_analyze,
        decide_after_evaluate,
        decide_after_plan,
        decide_after_wait,
        expansion_targets,
    )
    from rules.query.parsing import split_both
    from rules.query.planning import (
        chunk_ids,
        ensure_instructions,
        execution_groups,
        instructions_for,
        mark_searched,
        merge_analyses,
        merge_gaps_status,
    )
    from rules.query.summaries import (
        describe_store,
        entries_summary,
        label_offline,
        reparse_summary,
        scope_note,
    )
    from workflows.calls import call_activity, call_agent
    from workflows.inputs import fail_start, invalid, start_input, update_input

PIPELINE = "query"
REPARSE_CONCURRENCY = 4  # Parser calls at once when flagged notes are parsed later


async def reparse_flagged(catalog: DomainCatalog, notes_dir: str | None, limit: int,
                          exclude_source_key: str | None = None,
                          on_usage: Callable[[LLMUsage], None] | None = None) -> ReparseResult:
    """Notes kept as written after a Router failure (tagged needs-parsing) are parsed later: up to `limit` of
    them (fewest failed attempts, then oldest first) with every domain of the app, as an import parses; each
    entry is updated in place (flag removed, raw text and earlier data kept in its history). A Parser failure
    leaves the note flagged and is reported with its reason; it never fails the caller. Storage errors raise."""
    found: NeedsParsingResult = await call_activity(
        notes_needs_parsing, NeedsParsingInput(notes_dir=notes_dir, limit=limit,
                                               exclude_source_key=exclude_source_key),
        summary=f"notes kept unparsed (needs-parsing), up to {limit}", result_type=NeedsParsingResult)
    result = ReparseResult(waiting=max(0, found.total - len(found.entries)))
    if not found.entries:
        return result
    ctx = combine_domains(catalog, [d.name for d in catalog.domains])
    schemas = domain_schemas(catalog, ctx.domains_loaded)

    async def parse(entry: Entry) -> ReparsedNote:
        try:
            out: AgentResult[ParserOutput] = await call_agent(
                parse_log, ParseInput(raw_input=entry.raw_content, timestamp=entry.timestamp, domain_schemas=schemas,
                                      vocabulary=ctx.vocabulary),
                summary=f"Parser: note {entry.id}, kept unparsed earlier", result_type=AgentResult[ParserOutput])
        except ActivityError as err:
            return ReparsedNote(entry_id=entry.id, error=error_message(err))
        result.usage.add(out.usage)
        if on_usage is not None:
            on_usage(out.usage)
        return ReparsedNote(entry_id=entry.id, parsed=out.output)

    for i in range(0, len(found.entries), REPARSE_CONCURRENCY):
        notes = list(await asyncio.gather(*(parse(e) for e in found.entries[i:i + REPARSE_CONCURRENCY])))
        stored: StoreReparsedResult = await call_activity(
            notes_store_reparsed, StoreReparsedInput(notes_dir=notes_dir, notes=notes, at=workflow.now()),
            summary=f"store {sum(1 for n in notes if n.parsed)} note(s) parsed later", result_type=StoreReparsedResult)
        result.parsed += stored.parsed
        result.failed.update({n.entry_id: n.error or "the Parser failed" for n in notes
                              if n.entry_id in stored.still_flagged})
    return result


async def reparse_on_the_side(catalog: DomainCatalog, notes_dir: str | None, exclude_source_key: str | None = None,
                              on_usage: Callable[[LLMUsage], None] | None = None) -> ReparseResult:
    """The bounded pass an `ask`/log or an import makes: a few flagged notes; nothing it meets fails the run."""
    try:
        result = await reparse_flagged(catalog, notes_dir, REPARSE_PER_RUN, exclude_source_key, on_usage)
    except ActivityError as err:
        return ReparseResult(warnings=[f"notes kept unparsed earlier were not checked: {error_message(err)}"])
    if result.failed:
        result.warnings.append("notes kept unparsed earlier (needs-parsing): "
                               + reparse_summary(result, REPARSE_PER_RUN))
    return result


@workflow.defn(name=WORKFLOW_TYPE)
class QueryWorkflow:
    def __init__(self) -> None:
        self.req: QueryRequest | None = None
        self.limits = LoopLimits()
        self.counters = LoopCounters()
        self.state = State.ROUTE
        self.usage = UsageTotals()
        self.catalog: DomainCatalog | None = None
        self.route: RouterOutput | None = None
        self.input_type: InputType | None = None
        self.selected: list[str] = []
        self.expansion_history: list[str] = []
        self.ctx: ActiveDomainContext | None = None
        self.query_text = ""
        self.log_text = ""
        self.log_done = False
        self.parsed: ParserOutput | None = None
        self.stored: list[StoreEntryResult] = []
        self.plan: PlannerOutput | None = None
        self.pending_expansion: list[str] = []
        self.gaps_status: dict[str, dict[str, bool]] = {}
        self.retrieval_history: list[RetrievalAttempt] = []
        self.refs: dict[int, list[ArtifactRef]] = {}
        self.ids_by_sub: dict[int, list[str]] = {}
        self.entry_ids: list[str] = []
        self.empty_period = False   # the asked period held no notes (patch empty-period-stated)
        self.analysis: AnalyzerOutput | None = None
        self.gaps: list[Gap] = []
        self.draft: SynthesizerOutput | None = None
        self.feedback: list[EvaluationFeedback] = []
        self.evaluations = 0
        self.partial = False
        self.final_partial = False
        self.clarify_round = 0
        self.planner_questions: list[str] = []
        self.pending: PendingClarification | None = None
        self.answer: ClarifyAnswer | None = None
        self.user_responses: dict[str, str] = {}
        self.asked: list[str] = []
        self.declined: list[str] = []
        self.warnings: list[str] = []
        self.global_context = ""
        self.response = ""
        self.offline = False               # an agent answer came from the offline test double: say so
        self.all_feedback: list[EvaluationFeedback] = []  # every evaluation's issues (the final partial lists all)
        self.scope_notes: list[str] = []   # "only N of M entries in scope were read"
        self.in_scope = 0
        self.recent: list[Entry] = []      # correction: the entries it may be about
        self.correction_options: list[Entry] = []
        self.correction_target: str | None = None
        self.reanalyze = False             # a clarification was answered: re-plan, then analyze again
        self.unrouted = False              # the Router failed: the note was kept as written
        self.backlog: asyncio.Task[ReparseResult] | None = None  # flagged notes parsed on the side
        self.reparsed: ReparseResult | None = None
        self.failed = False                # the run failed (invalid input, or a step that cannot degrade)

    # ================================================================================== the state machine
    @workflow.run
    async def run(self, raw: Any = None) -> QueryResult:
        self.failed = True                 # until the input is accepted: the `session_state` query says failed
        req = start_input(QueryRequest, raw, pipeline=PIPELINE, workflow_type=WORKFLOW_TYPE)
        self.req = req
        text = clean_text(req.text).strip()
        if not text:
            fail_start(PIPELINE, "the input is empty: write a note or a question")
        if len(text) > MAX_INPUT_CHARS:
            fail_start(PIPELINE, f"the input is {len(text)} characters, over the {MAX_INPUT_CHARS} limit: split it "
                       "into several notes (or use `colloquy notes import`)")
        self.failed = False
        try:
            return await self._run(req)
        except ApplicationError as err:   # a step that cannot degrade failed: say so in the search attributes
            self.failed = True
            sa.upsert(phase=PHASE_DONE, status=self._status())
            workflow.set_current_details(f"failed in {self.state.value.lower()}: {err.message}")
            raise

    def _status(self) -> str:
        """ColloquyStatus now (models/status.py): the search attribute and the `session_state` query agree."""
        return query_status(self.state.value, waiting_user=self.state == State.WAIT_USER and self.pending is not None,
                            partial=self.partial or self.final_partial, failed=self.failed)

    async def _run(self, req: QueryRequest) -> QueryResult:
        self.today = req.today or self._now().date()
        sa.upsert(pipeline=PIPELINE, status=self._status())
        steps = {
            State.ROUTE: self._route, State.BUILD_CONTEXT: self._build_context, State.PARSE: self._parse,
            State.STORE: self._store, State.PLAN: self._plan, State.EXPAND_DOMAIN: self._expand_domain,
            State.RETRIEVE: self._retrieve, State.ANALYZE: self._analyze, State.CLARIFY: self._clarify,
            State.WAIT_USER: self._wait_user, State.SYNTHESIZE: self._synthesize, State.EVALUATE: self._evaluate,
            State.OBSERVE: self._observe,
        }
        state, degraded = State.ROUTE, False
        while state != State.COMPLETE:
            self._enter(state, degraded=degraded)
            degraded = False
            try:
                state = await steps[state]()
            except ActivityError as err:
                state = self._degrade(state, err)
                degraded = True
        await self._join_backlog()
        self._enter(State.COMPLETE, degraded=degraded)
        status = self._status()            # COMPLETE: partial or completed
        sa.upsert(status=status)
        workflow.set_current_details(f"{status}: {self.response[:200]}")
        return self._result()

    def _enter(self, state: State, degraded: bool = False) -> None:
        try:
            self.counters.enter(state, self.limits, degraded=degraded)
        except TransitionError as err:  # a bug, never a loop: fail the run clearly instead of retrying a task
            raise ApplicationError(f"state machine stopped: {err}", type="StateMachineError",
                                   non_retryable=True) from None
        self.state = state
        sa.upsert(phase=PHASE_DONE if state == State.COMPLETE else state.value.lower())

    def _degrade(self, state: State, err: ActivityError) -> State:
        """Error cascade, last step (§16.4): the agent failed after Temporal's retries and the gateway's
        fallback. Storage errors and a failed Parser/Store are surfaced (the user's text must not be lost
        silently); a failed query agent yields a partial answer that says what went wrong."""
        message = error_message(err)
        storage = isinstance(err.cause, ApplicationError) and err.cause.type == "StorageError"
        if (state == State.ROUTE and self.catalog is not None and not storage
                and workflow.patched("router-failure-keeps-note")):
            # Never lose the user's text: keep it as a note exactly as written, flagged for parsing later.
            assert self.req is not None
            self.input_type = InputType.LOG
            self.log_text = clean_text(self.req.text).strip()
            self.parsed = None
            self.unrouted = True
            self.warnings.append(f"the Router failed ({message}); your text was kept as a note exactly as "
                                 "written, tagged needs-parsing (not classified, not answered)")
            return State.STORE
        if state in (State.ROUTE, State.BUILD_CONTEXT, State.STORE) or storage:
            raise ApplicationError(f"{state.value} failed: {message}", type="QueryFailed", non_retryable=True)
        if state == State.PARSE:
            # Keep the user's text: store it raw, unparsed and flagged.
            self.warnings.append(f"the Parser failed ({message}); the note was stored as written, without "
                                 "structured data")
            self.parsed = None
            return State.STORE
        if state == State.OBSERVE:
            self.warnings.append(f"global context not updated: {message}")
            return State.COMPLETE
        self.warnings.append(f"{state.value} failed: {message}")
        self.partial = True
        what = ("Here's what I can tell you: " + self.draft.response) if self.draft else \
            "I could not answer this question right now."
        self.response = partial_response(what + f"\n\n(The {state.value.lower()} step failed: {message})",
                                         missing_items(self.gaps, self.feedback, self.declined))
        return State.OBSERVE

    # ------------------------------------------------------------------------------------------ entry
    async def _route(self) -> State:
        assert self.req is not None
        workflow.set_current_details("routing the input")
        self.catalog = await call_activity(notes_load_domains, LoadDomainsInput(app_id=self.req.app_id),
                                           summary=f"load domains of app {self.req.app_id}")
        if workflow.patched("reparse-flagged-notes"):
            # Notes an earlier Router failure kept unparsed: a few are parsed now, beside this run (joined before
            # the first retrieval, so this question sees them, and before the end).
            self.backlog = asyncio.create_task(reparse_on_the_side(
                self.catalog, self.req.notes_dir, exclude_source_key=f"{workflow.info().workflow_id}:log",
                on_usage=self.usage.add))
        available = [d for d in combine_domains(self.catalog, []).available_domains]
        result: AgentResult[RouterOutput] = await call_agent(
            route_input, RouteInput(raw_input=self.req.text, session_context=self.req.session_context,
                                    available_domains=available),
            summary="Router: classify input + select domains",
            result_type=AgentResult[RouterOutput])
        self._count(result.usage)
        route = result.output
        self.route = route
        kept, dropped = valid_selection(self.catalog, route.selected_domains)
        if dropped:
            self.warnings.append(f"the Router named unknown domain(s) {', '.join(dropped)}; ignored")
        self.selected = kept
        self.input_type = route.input_type
        text = clean_text(self.req.text).strip()
        if route.input_type == InputType.BOTH:
            log_part, query_part = route.log_portion, route.query_portion
            if not (log_part and query_part):
                log_part, query_part = split_both(text)
            if not query_part:  # nothing to ask after all
                self.input_type = InputType.LOG
                log_part = text
            if not log_part:
                self.input_type = InputType.QUERY
            self.log_text, self.query_text = (log_part or "").strip(), (query_part or text).strip()
        elif route.input_type == InputType.QUERY:
            self.query_text = route.query_portion or text
        else:
            self.log_text = text
        sa.upsert(topic=self.input_type.value)
        return State.BUILD_CONTEXT

    async def _build_context(self) -> State:
        assert self.catalog is not None
        self.ctx = combine_domains(self.catalog, self.selected)
        workflow.set_current_details(f"domains: {', '.join(self.ctx.domains_loaded)}")
        if self.input_type in (InputType.LOG, InputType.CORRECTION, InputType.BOTH) and not self.log_done:
            return State.PARSE
        return State.PLAN

    # -------------------------------------------------------------------------------------- log flow
    async def _parse(self) -> State:
        assert self.req is not None and self.ctx is not None and self.catalog is not None
        correction = self.input_type == InputType.CORRECTION
        recent = []
        if correction and self.correction_target is not None:  # the user said which entry: parse against it
            recent = [e for e in self.recent if e.id == self.correction_target]
        elif correction:
            recent = await call_activity(notes_recent_entries,
                                         RecentEntriesInput(notes_dir=self.req.notes_dir, until=self.today),
                                         summary="recent entries (correction target)")
            self.recent = [e if isinstance(e, Entry) else Entry.model_validate(e) for e in recent]
        workflow.set_current_details("parsing the correction" if correction else "parsing the note")
        result: AgentResult[ParserOutput] = await call_agent(
            parse_log, ParseInput(raw_input=self.log_text, timestamp=self._timestamp(),
                                  domain_schemas=domain_schemas(self.catalog, self._parse_domains(correction)),
                                  vocabulary=self.ctx.vocabulary, recent_entries=recent, correction_mode=correction,
                                  correction_target=self.correction_target or
                                  (self.route.correction_target if self.route else None)),
            summary=f"Parser: {'correction' if correction else 'log'} → "
                                  f"{', '.join(self.ctx.domains_loaded)}",
            result_type=AgentResult[ParserOutput])
        self._count(result.usage)
        self.parsed = result.output
        if correction and self.correction_target is not None:
            self.parsed = self.parsed.model_copy(update={"target_entry_id": self.correction_target})
        elif correction:
            check = check_target(self.log_text, self.parsed.target_entry_id, self.recent)
            if (check.ambiguous and check.candidates and self.counters.left("clarification", self.limits) > 0
                    and workflow.patched("confirm-ambiguous-correction")):
                self.correction_options = check.candidates
                self.gaps = [Gap(description=f"which entry the correction is for: {check.reason}",
                                 gap_type=GapType.CLARIFICATION, searched=True)]
                return State.CLARIFY
        return State.STORE

    async def _store(self) -> State:
        assert self.req is not None
        correction = self.input_type == InputType.CORRECTION and self.parsed is not None
        result: StoreEntryResult = await call_activity(
            notes_store_entry, StoreEntryInput(
                notes_dir=self.req.notes_dir, raw_input=self.log_text, timestamp=self._timestamp(),
                parsed=None if correction else self.parsed, correction=self.parsed if correction else None,
                source_key=f"{workflow.info().workflow_id}:log", tags=["needs-parsing"] if self.unrouted else []),
            summary="store correction (append + upsert)" if correction else "store raw + parsed entry",
            result_type=StoreEntryResult)
        self.stored.append(result)
        self.log_done = True
        if result.note and result.note != "already stored":
            self.warnings.append(result.note)
        self.response = describe_store(result, self.parsed, correction=self.input_type == InputType.CORRECTION)
        if self.unrouted:
            self.response = (f"I could not classify your input right now, so I kept it as note {result.entry_id} "
                             "exactly as written (tagged needs-parsing). It is parsed the next time your notes are "
                             "used (or by `colloquy notes reparse`); ask again later for an answer.")
        return State.PLAN if self.input_type == InputType.BOTH else State.OBSERVE

    # ------------------------------------------------------------------------------------ query flow
    async def _plan(self) -> State:
        assert self.req is not None and self.ctx is not None and self.catalog is not None
        workflow.set_current_details(f"planning (attempt {self.evaluations + 1})")
        if not self.global_context:
            self.global_context = await call_activity(notes_read_global_context,
                                                      NotesLocation(notes_dir=self.req.notes_dir),
                                                      summary="read global context", result_type=str)
        result: AgentResult[PlannerOutput] = await call_agent(
            plan_query, PlanInput(
                query=self.query_text, today=self.today, domain_context=self.ctx,
                retrieval_history=self.retrieval_history, gaps_from_analyzer=self.gaps,
                evaluation_feedback=self.feedback, gaps_status=self.gaps_status, user_responses=self.user_responses,
                global_context_summary=self.global_context or None,
                clarification_allowed=self.counters.left("clarification", self.limits) > 0),
            summary=f"Planner: {self.query_text[:60]}", result_type=AgentResult[PlannerOutput])
        self._count(result.usage)
        plan = ensure_instructions(result.output, self.today)
        self.plan = plan
        self.gaps_status = merge_gaps_status(self.gaps_status, plan.gaps_status)
        self.pending_expansion = expansion_targets(plan.domain_expansion_request or [], self.selected,
                                                   known_domains(self.catalog))
        if plan.next_action == "expand_domain" and not self.pending_expansion:
            self.warnings.append("the Planner asked for domain(s) "
                                 f"{plan.domain_expansion_request or []} that are unknown or already loaded")
        self.planner_questions = list(plan.clarify_questions or [])
        searched = True
        if plan.next_action == "clarify" and not self.retrieval_history:
            searched = not workflow.patched("search-before-clarify")  # always search before asking
        nxt = decide_after_plan(plan, counters=self.counters, limits=self.limits,
                                expandable=self.pending_expansion, gaps=self.gaps,
                                has_analysis=self.analysis is not None, searched=searched)
        if self.reanalyze and nxt == State.SYNTHESIZE:
            nxt = State.RETRIEVE  # the user's answer has not been analyzed yet
        self.reanalyze = False
        if nxt == State.SYNTHESIZE and self.analysis is not None and self.analysis.verdict != Verdict.SUFFICIENT:
            self.partial = True  # searched and not found: answer with what exists, gaps disclosed
        return nxt

    async def _expand_domain(self) -> State:
        added = self.pending_expansion
        self.selected = self.selected + [d for d in added if d not in self.selected]
        self.expansion_history += added
        self.pending_expansion = []
        workflow.set_current_details(f"loading domain(s): {', '.join(added)}")
        return State.BUILD_CONTEXT

    async def _retrieve(self) -> State:
        """Every sub-query's instructions at once (parallel retrieval for multiple gaps / sub-queries)."""
        assert self.req is not None and self.ctx is not None and self.plan is not None
        await self._join_backlog()
        subs = [s for stage in execution_groups(self.plan) for s in stage]
        workflow.set_current_details(f"retrieving for {len(subs)} sub-quer{'y' if len(subs) == 1 else 'ies'}")
        round_no = sum(1 for p in self.counters.path if p == State.RETRIEVE.value)
        start = len(self.retrieval_history) + 1
        calls = []
        for n, sub in enumerate(subs):
            ins = instructions_for(self.plan, sub.id)
            calls.append(call_activity(
                retrieve_notes, RetrieveInput(
                    scope=workflow.info().workflow_id, label=f"retrieval-{round_no}-sq{sub.id}", instructions=ins,
                    vocabulary=self.ctx.vocabulary, max_entries=self.req.max_entries,
                    attempt_start=start + 100 * n, notes_dir=self.req.notes_dir),
                summary=f"Retriever: {len(ins)} instruction(s) for sub-query {sub.id or 'all'}",
                result_type=RetrieverOutput))
        outputs: list[RetrieverOutput] = list(await asyncio.gather(*calls))
        found = 0
        for sub, out in zip(subs, outputs, strict=True):
            if out.entries_ref is not None:
                self.refs.setdefault(sub.id, []).append(out.entries_ref)
            self.retrieval_history.extend(out.retrieval_summary)
            self.warnings.extend(w for w in out.warnings if w not in self.warnings)
            self.entry_ids.extend(i for i in out.entry_ids if i not in self.entry_ids)
            mine = self.ids_by_sub.setdefault(sub.id, [])
            mine.extend(i for i in out.entry_ids if i not in mine)
            found += out.total_entries_found
            self.in_scope = max(self.in_scope, out.total_entries_found)
            if out.truncated:  # the scope was not read in full: the answer says so
                self.partial = True
                note = scope_note(len(out.entry_ids), out.total_entries_found)
                if note not in self.scope_notes:
                    self.scope_notes.append(note)
        self.gaps = mark_searched(self.gaps, self.gaps_status)
        periods = asked_periods([i for sub in subs for i in instructions_for(self.plan, sub.id)])
        if round_no == 1 and found == 0 and periods and workflow.patched("empty-period-stated"):
            # The asked period holds no notes: that is the answer — never the nearest notes outside it.
            self.empty_period = True
            self.response = empty_period_answer(periods)
            self.draft = SynthesizerOutput(response=self.response, confidence="high")
            return State.OBSERVE
        return State.ANALYZE

    async def _analyze(self) -> State:
        """DEPENDENT sub-queries run stage by stage (each sees earlier findings); INDEPENDENT ones in parallel;
        COUPLED as one pass. The verdict comes from the model's last field; merged: SUFFICIENT only if all are."""
        assert self.req is not None and self.ctx is not None and self.plan is not None and self.catalog is not None
        qtype = self.plan.query_type
        prior: list[Finding] = []
        parts: list[AnalyzerOutput] = []
        for stage in execution_groups(self.plan):
            workflow.set_current_details(f"analyzing {len(self.entry_ids)} entries")
            results = await asyncio.gather(*(self._analyze_one(sub, qtype, prior) for sub in stage))
            for r in results:
                parts.append(r)
                prior = prior + r.findings
        self.analysis = merge_analyses(self.query_text, parts)
        self.gaps = [g.model_copy(update={"searched": g.searched or bool(self.retrieval_history)})
                     for g in self.analysis.gaps_identified]
        suspected = [g.suspected_domain for g in self.gaps if g.outside_current_expertise and g.suspected_domain]
        self.pending_expansion = expansion_targets(suspected, self.selected, known_domains(self.catalog))
        nxt = decide_after_analyze(self.analysis, counters=self.counters, limits=self.limits,
                                   expandable=self.pending_expansion)
        if nxt == State.SYNTHESIZE and self.analysis.verdict != Verdict.SUFFICIENT:
            self.partial = True  # the Analyze→Plan cycle is spent: answer with what exists, gaps disclosed
        return nxt

    async def _analyze_one(self, sub: SubQuery, qtype: QueryType, prior: list[Finding]) -> AnalyzerOutput:
        """One (sub-)query. Over `analysis_chunk_size` entries: divide and conquer (§7.1) — analyzers read the
        chunks in parallel, one more call combines their analyses (verdict last, for the whole query)."""
        assert self.ctx is not None and self.req is not None
        refs = [r for rs in self.refs.values() for r in rs] if sub.id == 0 else self.refs.get(sub.id, [])
        ids = self.entry_ids if sub.id == 0 else self.ids_by_sub.get(sub.id, [])
        question = sub.question if sub.id else self.query_text
        base = AnalyzeInput(
            query=question, query_type=qtype, sub_query_id=sub.id or None, entries_refs=refs,
            domain_context=self.ctx, global_context=self.global_context or None,
            retrieval_history=self.retrieval_history, user_responses=self.user_responses, prior_findings=prior)
        chunks = chunk_ids(ids, self.req.analysis_chunk_size)
        if len(chunks) == 1:
            return await self._call_analyzer(base, f"Analyzer: {question[:60]}")
        total, n = len(ids), len(chunks)
        starts = [sum(len(c) for c in chunks[:i]) for i in range(n)]
        parts = await asyncio.gather(*(
            self._call_analyzer(base.model_copy(update={
                "entry_ids": chunk, "chunk": f"chunk {i + 1} of {n} (entries {starts[i] + 1}-{starts[i] + len(chunk)} "
                                             f"of {total}, {chunk[0].split('#')[0]} to {chunk[-1].split('#')[0]})"}),
                f"Analyzer: chunk {i + 1}/{n} of {question[:40]}")
            for i, chunk in enumerate(chunks)))
        return await self._call_analyzer(
            base.model_copy(update={"entries_refs": [], "chunk_analyses": list(parts)}),
            f"Analyzer: combine {n} chunks of {question[:40]}")

    async def _call_analyzer(self, inp: AnalyzeInput, summary: str) -> AnalyzerOutput:
        result: AgentResult[AnalyzerOutput] = await call_agent(
            analyze_evidence, inp, summary=summary, result_type=AgentResult[AnalyzerOutput])
        self._count(result.usage)
        return result.output

    async def _clarify(self) -> State:
        assert self.ctx is not None
        if self.correction_options:
            return await self._clarify_correction()
        gaps = clarifiable_gaps(self.gaps)
        result: AgentResult[ClarifierOutput] = await call_agent(
            clarify_gaps, ClarifyInput(original_query=self.query_text, gaps=gaps,
                                       planner_questions=self.planner_questions, vocabulary=self.ctx.vocabulary,
                                       retrieval_history=self.retrieval_history, previous_clarifications=self.asked),
            summary=f"Clarifier: {len(gaps)} gap(s)", result_type=AgentResult[ClarifierOutput])
        self._count(result.usage)
        fresh = [q for q in result.output.questions if q.question not in self.asked]
        if not fresh:
            self.warnings.append("the Clarifier had no new question to ask")
            return State.SYNTHESIZE
        self.clarify_round += 1
        timeout = self.req.clarification_timeout_s if self.req else 0
        self.pending = PendingClarification(
            request_id=f"clarify-{self.clarify_round}",
            questions=[PendingQuestion(id=f"q{i + 1}", question=q.question, options=q.options,
                                       gap_addressed=q.gap_addressed) for i, q in enumerate(fresh)],
            context_explanation=result.output.context_explanation, fallback_action=result.output.fallback_action,
            deadline=workflow.now() + timedelta(seconds=timeout))
        self.asked += [q.question for q in fresh]
        return State.WAIT_USER

    async def _clarify_correction(self) -> State:
        """Ask which entry an ambiguous correction is for (the Clarifier words it; the options are the entries)."""
        assert self.ctx is not None
        question = "Which entry do you want to correct?"
        result: AgentResult[ClarifierOutput] = await call_agent(
            clarify_gaps, ClarifyInput(original_query=self.log_text, gaps=self.gaps, planner_questions=[question],
                                       vocabulary=self.ctx.vocabulary, previous_clarifications=self.asked),
            summary="Clarifier: which entry the correction is for",
            result_type=AgentResult[ClarifierOutput])
        self._count(result.usage)
        out = result.output
        if out.questions:
            question = out.questions[0].question
        self.clarify_round += 1
        timeout = self.req.clarification_timeout_s if self.req else 0
        self.pending = PendingClarification(
            request_id=f"clarify-{self.clarify_round}",
            questions=[PendingQuestion(id="q1", question=question, gap_addressed=self.gaps[0].description,
                                       options=[option_label(e) for e in self.correction_options])],
            context_explanation=out.context_explanation or self.gaps[0].description,
            fallback_action="the correction is kept as a note of its own, flagged, and no entry is changed",
            deadline=workflow.now() + timedelta(seconds=timeout))
        self.asked.append(question)
        return State.WAIT_USER

    async def _wait_user(self) -> State:
        """Durable: the workflow waits (no worker needed) until `clarify` answers/declines or the timeout."""
        assert self.req is not None and self.pending is not None
        pending = self.pending
        sa.upsert(status=self._status())  # waiting_user
        workflow.set_current_details("waiting for the user: " + " | ".join(q.question for q in pending.questions))
        self.answer = None
        try:
            await workflow.wait_condition(lambda: self.answer is not None,
                                          timeout=timedelta(seconds=self.req.clarification_timeout_s),
                                          timeout_summary=f"clarification {pending.request_id} timeout "
                                                          f"({self.req.clarification_timeout_s:g}s)")
        except TimeoutError:
            self.warnings.append(f"no answer to the clarifying question(s) within "
                                 f"{self.req.clarification_timeout_s:.0f}s; answered with what the notes contain")
        answer, self.answer, self.pending = self.answer, None, None
        sa.upsert(status=self._status())  # running again
        answered = answer is not None and not answer.decline and bool(answer.answers)
        if self.correction_options:
            options, self.correction_options = self.correction_options, []
            picked = chosen_entry(next(iter(answer.answers.values())), options) if answered and answer else None
            if picked is not None:
                self.correction_target = picked
                return State.PARSE
            self.warnings.append("no entry was chosen for the correction; nothing was changed")
            if self.parsed is not None:
                self.parsed = self.parsed.model_copy(update={"target_entry_id": None, "correction_delta": None})
            return State.STORE
        if answered:
            assert answer is not None
            by_id = {q.id: q.question for q in pending.questions}
            for qid, text in answer.answers.items():
                self.user_responses[by_id[qid]] = text.strip()
            await self._store_answers(pending, answer)
            replan = workflow.patched("clarify-answer-replans")
            self.reanalyze = replan
            return decide_after_wait(answered, replan=replan)
        self.declined += [q.question for q in pending.questions]
        self.partial = True
        return decide_after_wait(answered)

    async def _store_answers(self, pending: PendingClarification, answer: ClarifyAnswer) -> None:
        """Seed §3.2 (2.4): what the user told us goes into today's notes, so it is not lost."""
        assert self.req is not None
        lines = [f"[clarification] {q.question} — {answer.answers[q.id].strip()}" for q in pending.questions
                 if q.id in answer.answers]
        result = await call_activity(notes_store_entry, StoreEntryInput(
            notes_dir=self.req.notes_dir, raw_input="\n".join(lines), timestamp=self._timestamp(),
            source_key=f"{workflow.info().workflow_id}:{pending.request_id}"),
            summary="store the user's clarification answers", result_type=StoreEntryResult)
        self.stored.append(result)

    async def _synthesize(self) -> State:
        assert self.req is not None and self.ctx is not None
        analysis = self.analysis or AnalyzerOutput(query_intent=self.query_text, verdict=Verdict.INSUFFICIENT,
                                                   verdict_reasoning="no analysis was possible")
        partial = self.partial or self.final_partial
        missing = missing_items(self.gaps, (self.all_feedback or self.feedback) if self.final_partial else [],
                                self.declined) + self.scope_notes if partial else []
        workflow.set_current_details("writing the final partial answer" if self.final_partial else "writing the answer")
        result: AgentResult[SynthesizerOutput] = await call_agent(
            synthesize_answer, SynthesizeInput(
                query=self.query_text, query_type=self.plan.query_type if self.plan else QueryType.SIMPLE,
                analysis=analysis, vocabulary=self.ctx.vocabulary, is_partial=partial, unanswered_gaps=missing,
                evaluation_feedback=self.feedback, user_responses=self.user_responses,
                response_style=self.req.response_style,
                entries_refs=[ref for refs in self.refs.values() for ref in refs]),
            summary=f"Synthesizer{' (partial)' if partial else ''}: {self.query_text[:50]}",
            result_type=AgentResult[SynthesizerOutput])
        self._count(result.usage)
        draft = result.output
        if partial:
            draft = draft.model_copy(update={"response": partial_response(draft.response, missing),
                                             "gaps_disclosed": missing})
        self.draft = draft
        self.response = draft.response
        return State.OBSERVE if self.final_partial else State.EVALUATE

    async def _evaluate(self) -> State:
        assert self.ctx is not None and self.draft is not None and self.catalog is not None
        self.evaluations += 1
        analysis = self.analysis or AnalyzerOutput(query_intent=self.query_text, verdict=Verdict.INSUFFICIENT)
        result: AgentResult[EvaluatorOutput] = await call_agent(
            evaluate_answer, EvaluateInput(
                query=self.query_text, response=self.draft.response, analysis=analysis,
                entries_summary=entries_summary(self.retrieval_history, self.entry_ids),
                evaluation_rules=self.ctx.evaluation_rules, attempt_number=self.evaluations,
                previous_feedback=self.feedback),
            summary=f"Evaluator: attempt {self.evaluations}", result_type=AgentResult[EvaluatorOutput])
        self._count(result.usage)
        passed, reasons = aggregate_verdict(result.output)
        if not passed:
            self.feedback = feedback_from(result.output, reasons)
            self.all_feedback = accumulate_feedback(self.all_feedback, self.feedback)
        suspected = [g.suspected_domain for g in self.gaps if g.outside_current_expertise and g.suspected_domain]
        self.pending_expansion = expansion_targets(suspected, self.selected, known_domains(self.catalog))
        nxt = decide_after_evaluate(passed, counters=self.counters, limits=self.limits,
                                    expandable=self.pending_expansion)
        if nxt == State.SYNTHESIZE:
            self.final_partial = True  # retries spent (§7.5): partial answer + exactly what is missing
        return nxt

    # --------------------------------------------------------------------------------------- terminal
    async def _observe(self) -> State:
        if self.unrouted or self.empty_period:
            return State.COMPLETE  # nothing was understood, or nothing was there: nothing to learn
        assert self.req is not None and self.ctx is not None
        guidance = self.ctx.context_guidance
        if self.input_type == InputType.CORRECTION:
            observe = ObserveInput(trigger="user_correction", correction=self.log_text,
                                   what_was_corrected=self.stored[0].entry_id if self.stored else None,
                                   context_management_guidance=guidance)
        elif self.input_type == InputType.LOG:
            if not (self.parsed and self.parsed.domain_data):
                return State.COMPLETE  # nothing structured: not a significant log
            observe = ObserveInput(trigger="significant_log", new_entry=self._stored_entry(),
                                   context_management_guidance=guidance)
        else:
            observe = ObserveInput(trigger="post_query", query=self.query_text, analysis=self.analysis,
                                   response=self.response, context_management_guidance=guidance)
        trigger = observe.trigger
        workflow.set_current_details(f"Observer: {trigger}")
        current = self.global_context or await call_activity(
            notes_read_global_context, NotesLocation(notes_dir=self.req.notes_dir), summary="read global context",
            result_type=str)
        result: AgentResult[ObserverOutput] = await call_agent(
            observe_context, observe.model_copy(update={"current_global_context": current}),
            summary=f"Observer: {trigger}", result_type=AgentResult[ObserverOutput])
        self._count(result.usage)
        out = result.output
        if out.should_update and out.updates:
            applied: ApplyContextResult = await call_activity(
                notes_apply_context_updates, ApplyContextInput(
                    notes_dir=self.req.notes_dir, updates=out.updates, today=self.today,
                    max_tokens=self.req.max_global_context_tokens),
                summary=f"global context: {len(out.updates)} update(s)", result_type=ApplyContextResult)
            if applied.skipped:
                self.warnings.append("global context kept: " + "; ".join(applied.skipped))
        return State.COMPLETE

    # ------------------------------------------------------------------------------------------ helpers
    async def _join_backlog(self) -> None:
        """Wait for the notes parsed on the side (see _route); their outcome goes into the result once."""
        if self.backlog is None or self.reparsed is not None:
            return
        self.reparsed = await self.backlog
        self.warnings.extend(w for w in self.reparsed.warnings if w not in self.warnings)

    def _now(self) -> datetime:
        """Workflow time on the user's clock (deterministic: workflow.now() + the request's UTC offset)."""
        offset = timedelta(minutes=self.req.utc_offset_minutes if self.req else 0)
        return workflow.now().astimezone(timezone(offset))

    def _timestamp(self) -> datetime:
        """When a note is logged: now, on the user's clock; on `today` when the request pins the date."""
        now = self._now()
        if self.req and self.req.today and self.req.today != now.date():
            return now.replace(year=self.today.year, month=self.today.month, day=self.today.day)
        return now

    def _stored_entry(self) -> Entry | None:
        """The entry just logged, as the Observer's `new_entry` (significant_log)."""
        if not self.stored or self.parsed is None:
            return None
        ts = self.parsed.timestamp or self._timestamp()
        return Entry(id=self.stored[0].entry_id, date=ts.date(), timestamp=ts,
                     raw_content=self.log_text, domain_data=self.parsed.domain_data, tags=self.parsed.tags,
                     uncertain_fields=self.parsed.uncertain_fields, source_file=self.stored[0].raw_file)

    def _parse_domains(self, correction: bool) -> list[str]:
        """A log is parsed by the loaded domains; a correction may touch any domain of the target entry."""
        assert self.ctx is not None and self.catalog is not None
        if correction:
            return [self.catalog.base.name] + [d.name for d in self.catalog.domains]
        return self.ctx.domains_loaded

    def _count(self, usage: LLMUsage) -> None:
        self.usage.add(usage)
        self.offline = self.offline or usage.offline

    def _result(self) -> QueryResult:
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

    # ============================================================================ user input and state
    @workflow.update(name=UPDATE_CLARIFY)
    async def clarify(self, raw: Any) -> ClarifyAck:
        """Answers to the pending clarifying questions (by question id), or decline=True."""
        answer = update_input(ClarifyAnswer, raw, UPDATE_CLARIFY)
        assert self.pending is not None
        request_id = self.pending.request_id
        self.answer = answer
        return ClarifyAck(request_id=request_id, accepted=sorted(answer.answers), declined=answer.decline)

    @clarify.validator
    def _validate_clarify(self, raw: Any) -> None:
        try:
            self._check_clarify(update_input(ClarifyAnswer, raw, UPDATE_CLARIFY))
        except ValueError as err:
            raise invalid(str(err)) from None

    def _check_clarify(self, answer: ClarifyAnswer) -> None:
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

    @workflow.query(name=QUERY_PENDING_CLARIFICATION)
    def pending_clarification(self) -> PendingClarification | None:
        return self.pending if self.answer is None else None

    @workflow.query(name=QUERY_SESSION_STATE)
    def session_state(self) -> SessionStateView:
        return SessionStateView(
            state=self.state.value, colloquy_status=self._status(), path=list(self.counters.path),
            input_type=self.input_type.value if self.input_type else None,
            attempts=dict(self.counters.counts) | {"evaluations": self.evaluations},
            limits=self.limits.as_dict(), gaps=[g.description for g in self.gaps],
            domains_loaded=self.ctx.domains_loaded if self.ctx else [],
            domain_expansion_history=self.expansion_history, waiting_for_user=self.pending is not None,
            entries_read=len(self.entry_ids), usage=self.usage)


# ===================================================================================== batch import
@workflow.defn(name=IMPORT_WORKFLOW_TYPE)
class ImportNotesWorkflow:
    """Every file a LOG: parsed (Parser agent, several at a time) and stored in batches; `progress` query;
    continue-as-new every BATCHES_PER_RUN batches so 1,000s of notes never bloat one history."""

    BATCHES_PER_RUN = 10

    def __init__(self) -> None:
        self.progress = ImportProgress(total=0, done=0)

    @workflow.run
    async def run(self, raw: Any = None) -> ImportResult:
        req = start_input(ImportRequest, raw, pipeline=PIPELINE, workflow_type=IMPORT_WORKFLOW_TYPE)
        sa.upsert(pipeline=PIPELINE, phase="import", status=RUNNING)
        workflow.set_current_details(f"importing notes from {req.directory}")
        try:
            return await self._import(req)
        except (ActivityError, ApplicationError) as err:
            sa.upsert(phase=PHASE_DONE, status=FAILED)
            workflow.set_current_details(f"failed: {error_message(err)}")
            raise

    async def _import(self, req: ImportRequest) -> ImportResult:
        files = req.files
        if files is None:
            files = await call_activity(notes_list_import_files, ListImportInput(directory=req.directory),
                                        summary=f"list notes in {req.directory}", result_type=list[str])
            req = req.model_copy(update={"total": len(files)})
        self.progress = ImportProgress(total=req.total, done=req.done, failed=list(req.failed))
        catalog: DomainCatalog = await call_activity(notes_load_domains, LoadDomainsInput(app_id=req.app_id),
                                                     summary=f"load domains of app {req.app_id}")
        every = [d.name for d in catalog.domains]
        ctx = combine_domains(catalog, every)
        schemas = domain_schemas(catalog, ctx.domains_loaded)
        usage = req.usage
        counts = {"new": req.new, "updated": req.updated, "unchanged": req.unchanged}
        warnings = list(req.warnings)
        size = max(1, min(req.batch_size, 200))
        for n in range(self.BATCHES_PER_RUN):
            batch = files[n * size:(n + 1) * size]
            if not batch:
                break
            self.progress.current = batch[0]
            workflow.set_current_details(f"imported {self.progress.done}/{self.progress.total}")
            parsed: ImportBatchResult = await call_agent(
                parse_log_batch, ImportBatchInput(directory=req.directory, files=batch, domain_schemas=schemas,
                                                  vocabulary=ctx.vocabulary, notes_dir=req.notes_dir,
                                                  undated=req.undated, today=req.today, year=req.year),
                summary=f"Parser: {len(batch)} notes from {batch[0]}",
                result_type=ImportBatchResult)
            usage.add_all(parsed.usage)
            stored: StoreBatchResult = await call_activity(
                notes_store_batch, StoreBatchInput(notes_dir=req.notes_dir, notes=parsed.notes,
                                                   directory=req.directory, hashes=parsed.hashes,
                                                   import_id=workflow.info().workflow_id),
                summary=f"store {len(parsed.notes)} notes", result_type=StoreBatchResult)
            self.progress.done += len(batch)
            self.progress.failed += parsed.failed + stored.failed
            counts["new"] += len(stored.new)
            counts["updated"] += len(stored.updated)
            counts["unchanged"] += len(parsed.unchanged) + len(stored.unchanged)
            warnings += parsed.warnings
        remaining = files[self.BATCHES_PER_RUN * size:]
        if remaining:
            workflow.continue_as_new(req.model_copy(update={
                "files": remaining, "done": self.progress.done, "failed": self.progress.failed, "usage": usage,
                "warnings": warnings, **counts}))
        finished = FinishImportResult()
        if workflow.patched("import-content-identity"):  # the journal's entries no file has any more: reported
            workflow.set_current_details("checking for entries whose source vanished")
            finished = await call_activity(
                notes_finish_import, FinishImportInput(notes_dir=req.notes_dir, directory=req.directory,
                                                       import_id=workflow.info().workflow_id, prune=req.prune),
                summary="entries whose source vanished" + (" (pruned)" if req.prune else ""),
                result_type=FinishImportResult)
        reparsed = None
        if workflow.patched("import-reparses-flagged-notes"):  # notes a Router failure kept unparsed: a few now
            workflow.set_current_details("parsing notes kept unparsed earlier (needs-parsing)")
            reparsed = await reparse_on_the_side(catalog, req.notes_dir, on_usage=usage.add)
            warnings += reparsed.warnings
        self.progress.finished = True
        sa.upsert(phase=PHASE_DONE, status=COMPLETED)
        workflow.set_current_details(f"imported {self.progress.done}/{self.progress.total}")
        return ImportResult(total=self.progress.total, imported=counts["new"] + counts["updated"],
                            failed=self.progress.failed, usage=usage, warnings=warnings, reparsed=reparsed,
                            vanished=finished.vanished, vanished_total=finished.vanished_total,
                            pruned=finished.pruned, **counts)

    @workflow.query(name=QUERY_IMPORT_PROGRESS)
    def import_progress(self) -> ImportProgress:
        return self.progress


# ===================================================================================== global context
@workflow.defn(name=CONTEXT_WORKFLOW_TYPE)
class NotesContextWorkflow:
    """`colloquy notes context` / `GET /context`: the global context as the worker's store holds it (the notes
    live where the worker runs; the client may have no such folder)."""

    @workflow.run
    async def run(self, raw: Any = None) -> str:
        req = start_input(ContextRequest, raw, pipeline=PIPELINE, workflow_type=CONTEXT_WORKFLOW_TYPE)
        workflow.set_current_details("reading the global context")
        tagged = workflow.patched("context-search-attributes")
        if tagged:
            sa.upsert(pipeline=PIPELINE, phase="context", status=RUNNING)
        text = await call_activity(notes_read_global_context, NotesLocation(notes_dir=req.notes_dir),
                                   summary="read global context", result_type=str)
        if tagged:
            sa.upsert(phase=PHASE_DONE, status=COMPLETED)
        workflow.set_current_details(f"read {len(text):,} characters of global context")
        return text


# ============================================================================== notes parsed later, on demand
@workflow.defn(name=REPARSE_WORKFLOW_TYPE)
class ReparseNotesWorkflow:
    """`colloquy notes reparse`: parse the notes a Router failure kept as written (tagged needs-parsing), up to
    `limit` (fewest failures, then oldest first), each updated in place; "N parsed, M still unparsed (reason)"."""

    @workflow.run
    async def run(self, raw: Any = None) -> ReparseResult:
        req = start_input(ReparseRequest, raw, pipeline=PIPELINE, workflow_type=REPARSE_WORKFLOW_TYPE)
        sa.upsert(pipeline=PIPELINE, phase="reparse", status=RUNNING)
        workflow.set_current_details("parsing notes kept unparsed (needs-parsing)")
        try:
            catalog: DomainCatalog = await call_activity(notes_load_domains, LoadDomainsInput(app_id=req.app_id),
                                                         summary=f"load domains of app {req.app_id}")
            result = await reparse_flagged(catalog, req.notes_dir, req.limit)
        except (ActivityError, ApplicationError) as err:
            sa.upsert(phase=PHASE_DONE, status=FAILED)
            workflow.set_current_details(f"failed: {error_message(err)}")
            raise
        sa.upsert(phase=PHASE_DONE, status=COMPLETED)
        workflow.set_current_details(reparse_summary(result))
        return result


WORKFLOWS = [QueryWorkflow, ImportNotesWorkflow, NotesContextWorkflow, ReparseNotesWorkflow]
