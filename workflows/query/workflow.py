"""QueryWorkflow: notes in, grounded answers out (seed 001: 9 agents, 13 states, 4 bounded cycles).

    ROUTE → BUILD_CONTEXT ─┬─ PARSE → STORE ─┬─ OBSERVE → COMPLETE               (LOG, CORRECTION)
                           │                 └─ PLAN …                           (BOTH: the log first)
                           └─ PLAN → RETRIEVE → ANALYZE → SYNTHESIZE → EVALUATE → OBSERVE → COMPLETE
         cycles: ANALYZE→PLAN (insufficient), EVALUATE→PLAN (fail, ≤2 retries, then a partial answer),
                 EXPAND_DOMAIN→BUILD_CONTEXT (a domain is missing), CLARIFY→WAIT_USER→ANALYZE (only the user knows)

Each state is one method below; where to go next is decided by pure functions in rules/query, and
every edge is checked and counted by LoopCounters so no cycle can run away. WAIT_USER is a durable wait for the
`clarify` update (validated), with a timeout. Retrieved entries live in the artifact store; history holds refs.

The run's state is one pure `rules.query.run_state.QueryRun` (`self.st`); the steps live by flow in
workflows/query/log.py, answer.py and clarify.py. The other notes workflows have a module each
(imports.py, context.py, reparse.py) and are re-exported here for the worker registry.
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from core import search_attributes as sa
    from models.query import patches as query_patches
    from models.query.parts import InputType
    from models.query.workflow import (
        MAX_INPUT_CHARS,
        QUERY_PENDING_CLARIFICATION,
        QUERY_SESSION_STATE,
        UPDATE_CLARIFY,
        WORKFLOW_TYPE,
        ClarifyAck,
        ClarifyAnswer,
        PendingClarification,
        QueryRequest,
        QueryResult,
        SessionStateView,
    )
    from models.status import PHASE_DONE
    from rules.errors import error_message
    from rules.query.evaluation import (
        missing_items,
        partial_response,
    )
    from rules.query.imports import clean_text
    from rules.query.machine import (
        State,
        TransitionError,
    )
    from rules.query.run_state import QueryRun
    from workflows.inputs import fail_start, invalid, start_input, update_input
from workflows.query.answer import QueryAnswerSteps
from workflows.query.base import PIPELINE, refuse_paths_outside_roots
from workflows.query.clarify import QueryClarifySteps
from workflows.query.context import NotesContextWorkflow
from workflows.query.imports import ImportNotesWorkflow
from workflows.query.log import QueryLogSteps
from workflows.query.reparse import (
    REPARSE_CONCURRENCY,
    ReparseNotesWorkflow,
    reparse_flagged,
    reparse_on_the_side,
)

__all__ = ["PIPELINE", "REPARSE_CONCURRENCY", "WORKFLOWS", "ImportNotesWorkflow", "NotesContextWorkflow",
           "QueryWorkflow", "ReparseNotesWorkflow", "reparse_flagged", "reparse_on_the_side"]


@workflow.defn(name=WORKFLOW_TYPE)
class QueryWorkflow(QueryLogSteps, QueryAnswerSteps, QueryClarifySteps):
    def __init__(self) -> None:
        self.st = QueryRun()
        self.backlog = None

    @workflow.run
    async def run(self, raw: Any = None) -> QueryResult:
        self.st.failed = True                 # until the input is accepted: the `session_state` query says failed
        req = start_input(QueryRequest, raw, pipeline=PIPELINE, workflow_type=WORKFLOW_TYPE)
        refuse_paths_outside_roots({"notes_dir": req.notes_dir})
        self.st.req = req
        text = clean_text(req.text).strip()
        if not text:
            fail_start(PIPELINE, "the input is empty: write a note or a question")
        if len(text) > MAX_INPUT_CHARS:
            fail_start(PIPELINE, f"the input is {len(text)} characters, over the {MAX_INPUT_CHARS} limit: split it "
                       "into several notes (or use `colloquy notes import`)")
        self.st.failed = False
        try:
            return await self._run(req)
        except ApplicationError as err:   # a step that cannot degrade failed: say so in the search attributes
            self.st.failed = True
            sa.upsert(phase=PHASE_DONE, status=self.st.status())
            workflow.set_current_details(f"failed in {self.st.state.value.lower()}: {err.message}")
            raise

    async def _run(self, req: QueryRequest) -> QueryResult:
        self.st.today = req.today or self._now().date()
        sa.upsert(pipeline=PIPELINE, status=self.st.status())
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
        status = self.st.status()            # COMPLETE: partial or completed
        sa.upsert(status=status)
        workflow.set_current_details(f"{status}: {self.st.response[:200]}")
        return self.st.result()

    def _enter(self, state: State, degraded: bool = False) -> None:
        try:
            self.st.counters.enter(state, self.st.limits, degraded=degraded)
        except TransitionError as err:  # a bug, never a loop: fail the run clearly instead of retrying a task
            raise ApplicationError(f"state machine stopped: {err}", type="StateMachineError",
                                   non_retryable=True) from None
        self.st.state = state
        sa.upsert(phase=PHASE_DONE if state == State.COMPLETE else state.value.lower())

    def _degrade(self, state: State, err: ActivityError) -> State:
        """Error cascade, last step (§16.4): the agent failed after Temporal's retries and the gateway's
        fallback. Storage errors and a failed Parser/Store are surfaced (the user's text must not be lost
        silently); a failed query agent yields a partial answer that says what went wrong."""
        message = error_message(err)
        storage = isinstance(err.cause, ApplicationError) and err.cause.type in ("StorageError", "StorageUnavailable")
        if (state == State.ROUTE and self.st.catalog is not None and not storage
                and workflow.patched(query_patches.ROUTER_FAILURE_KEEPS_NOTE)):
            # Never lose the user's text: keep it as a note exactly as written, flagged for parsing later.
            assert self.st.req is not None
            self.st.input_type = InputType.LOG
            self.st.log_text = clean_text(self.st.req.text).strip()
            self.st.parsed = None
            self.st.unrouted = True
            self.st.warnings.append(f"the Router failed ({message}); your text was kept as a note exactly as "
                                 "written, tagged needs-parsing (not classified, not answered)")
            return State.STORE
        if state in (State.ROUTE, State.BUILD_CONTEXT, State.STORE) or storage:
            raise ApplicationError(f"{state.value} failed: {message}", type="QueryFailed", non_retryable=True)
        if state == State.PARSE:
            # Keep the user's text: store it raw, unparsed and flagged.
            self.st.warnings.append(f"the Parser failed ({message}); the note was stored as written, without "
                                 "structured data")
            self.st.parsed = None
            return State.STORE
        if state == State.OBSERVE:
            self.st.warnings.append(f"global context not updated: {message}")
            return State.COMPLETE
        self.st.warnings.append(f"{state.value} failed: {message}")
        self.st.partial = True
        what = ("Here's what I can tell you: " + self.st.draft.response) if self.st.draft else \
            "I could not answer this question right now."
        self.st.response = partial_response(what + f"\n\n(The {state.value.lower()} step failed: {message})",
                                         missing_items(self.st.gaps, self.st.feedback, self.st.declined))
        return State.OBSERVE

    @workflow.update(name=UPDATE_CLARIFY)
    async def clarify(self, raw: Any) -> ClarifyAck:
        """Answers to the pending clarifying questions (by question id), or decline=True."""
        answer = update_input(ClarifyAnswer, raw, UPDATE_CLARIFY)
        assert self.st.pending is not None
        request_id = self.st.pending.request_id
        self.st.answer = answer
        return ClarifyAck(request_id=request_id, accepted=sorted(answer.answers), declined=answer.decline)

    @clarify.validator
    def _validate_clarify(self, raw: Any) -> None:
        try:
            self.st.check_clarify(update_input(ClarifyAnswer, raw, UPDATE_CLARIFY))
        except ValueError as err:
            raise invalid(str(err)) from None

    @workflow.query(name=QUERY_PENDING_CLARIFICATION)
    def pending_clarification(self) -> PendingClarification | None:
        return self.st.pending_view()

    @workflow.query(name=QUERY_SESSION_STATE)
    def session_state(self) -> SessionStateView:
        return self.st.view()


WORKFLOWS = [QueryWorkflow, ImportNotesWorkflow, NotesContextWorkflow, ReparseNotesWorkflow]
