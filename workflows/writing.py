"""WritingWorkflow (seed 004): a config-driven multi-agent writing state machine.

    start → draft (fan-out, one activity per model) → cross-audit (fan-out) → synthesize → final-audit (fan-out)
          → final-analysis → complete                        (configs/writing/default.yaml)

The state machine is data (WorkflowConfig). The workflow interprets it: each state's result maps to a transition
key (all_success / partial_success / all_failure, success / failure, proceed / retry / halt, approved / feedback /
abort), every transition passes the circuit breaker (soft rules → the orchestrator decides) and the hard safety
limits (nobody overrides them). Drafts, audits and posts live in the artifact store; history holds refs.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any, NoReturn

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.exceptions import TimeoutError as TemporalTimeoutError

with workflow.unsafe.imports_passed_through():
    from activities.writing.audit import writing_audit, writing_final_audit
    from activities.writing.draft import writing_draft
    from activities.writing.final_analysis import writing_final_analysis
    from activities.writing.history import RecordHistoryInput, writing_record_history
    from activities.writing.orchestrator import writing_orchestrator
    from activities.writing.quality_gate import writing_quality_gate
    from activities.writing.storage import (
        DumpInput,
        PrepareInput,
        RunLogsInput,
        writing_dump_context,
        writing_prepare_run,
        writing_write_run_logs,
    )
    from activities.writing.synthesize import writing_synthesize
    from core import search_attributes as sa
    from models.common import ArtifactRef
    from models.status import PHASE_DONE, writing_status
    from models.writing import (
        MAX_FEEDBACK_CHARS,
        MAX_MODELS,
        MAX_STORY_CHARS,
        QUERY_OUTPUTS,
        QUERY_RUN_STATUS,
        SIGNAL_APPROVAL,
        UPDATE_AWAIT_APPROVAL_REQUEST,
        UPDATE_SUBMIT_APPROVAL,
        WORKFLOW_TYPE,
        AgentOutput,
        ApprovalInput,
        ApprovalReceipt,
        AuditScoreRow,
        BreakInfo,
        ConsultInput,
        ConsultResult,
        Invocation,
        OutputsView,
        PendingApproval,
        RunArtifacts,
        RunState,
        SourceDoc,
        StateConfig,
        StateLogEntry,
        StatusView,
        TaskResult,
        WorkflowConfig,
        WritingInput,
        WritingResult,
        WritingTaskInput,
    )
    from rules.errors import error_message
    from rules.writing import breaker
    from rules.writing.accounting import (
        context_use,
        context_window_for,
        invocation_cost,
        run_totals,
    )
    from rules.writing.config import (
        TASK_OUTPUT_KIND,
        duplicate_models,
        initial_state,
        persona_for,
        validate_config,
    )
    from rules.writing.outcome import final_score, floor_status, usable_post
    from rules.writing.summary import unique_slugs
    from rules.writing.transitions import (
        approval_timer_summary,
        best_output,
        fan_out_outcome,
        feedback_history,
        normalise_approval,
        store_guidance,
        take_guidance,
    )
    from workflows.calls import call_activity, call_agent, load_artifact
    from workflows.inputs import (
        check_start_input,
        fail_start,
        invalid,
        note_rejection,
        signal_input,
        update_input,
    )
    from workflows.writing_calls import _BudgetCancelled, _transient, _with_timeout

TASK_ACTIVITIES: dict[str, Any] = {
    "draft": writing_draft, "audit": writing_audit, "final_audit": writing_final_audit,
    "synthesize": writing_synthesize, "final_analysis": writing_final_analysis, "quality_gate": writing_quality_gate,
}
MAX_APPROVAL_POST_CHARS = 20_000
MAX_PERSONA_CHARS = 20_000
MAX_IGNORED_LOGGED = 50
BUDGET_GRACE_MS = 50
DEFAULT_APPROVAL_PROMPT = ("approve to complete | reject --feedback TEXT to send the post back to synthesis | "
                           "abort to stop the run")

# workflow.patched ids: runs started before these changes replay on the old paths.
P_HUMAN = "writing-human-decision-is-final"        # approval loops counted apart; no forced rejected post
P_REJECT = "writing-reject-needs-feedback"          # reject without text is refused, not an abort
P_BUDGET = "writing-budget-checked-per-call"        # hard cost/token limits after every fan-out call
P_RETRY = "writing-retry-is-not-a-revisit"          # in-place state retries; retry edges never make a cycle
P_RULES = "writing-breaker-rules-merge-defaults"    # listed rules override defaults, the rest keep theirs
P_STATUS = "writing-early-failure-status"           # failures before the first state show as failed
P_SCORE = "writing-final-score-and-floor"           # final score = last final-audit visit; score floor
P_DUPES = "writing-duplicate-models-refused"        # the same model id twice fails the start, not folded


class _Stop(Exception):
    """Internal: the run ends now (halted / forced complete / failed)."""


@workflow.defn(name=WORKFLOW_TYPE)
class WritingWorkflow:
    def __init__(self) -> None:
        self.s: RunState | None = None
        self.cfg: WorkflowConfig | None = None
        self.pending: PendingApproval | None = None
        self.answer: tuple[str, str | None] | None = None
        self.forced = False
        self.dump_ref: ArtifactRef | None = None
        self.moves_this_run = 0
        self._personas: dict[str, str] = {}
        self._ended = False
        self._ignored = 0
        self._flags: dict[str, bool] = {}
        self._budget_stop = False
        self._refused: str | None = None      # the input was refused: the run failed before its first state

    def _new(self, patch_id: str) -> bool:
        """workflow.patched, asked once per id (never from a query)."""
        if patch_id not in self._flags:
            self._flags[patch_id] = workflow.patched(patch_id)
        return self._flags[patch_id]

    # ------------------------------------------------------------------------------------------ main loop
    @workflow.run
    async def run(self, raw: Any = None) -> WritingResult:
        inp, refused = check_start_input(WritingInput, raw, WORKFLOW_TYPE)
        if inp is None:
            self._refused = refused
            fail_start("writing", refused or "invalid input")
        self._personas = dict(inp.personas)
        try:
            if inp.carry is not None:
                self.s = inp.carry
                self.s.continued += 1
                assert self.s.config is not None
                self.cfg = self.s.config
                self._log("continued_as_new", self.s.current, {"continued": self.s.continued})
            else:
                try:
                    await self._start(inp)
                except ApplicationError as err:   # refused before the first state: the run fails here
                    # runs started on the writing branch recorded this marker here; the failed status, reason and
                    # search attributes are set on every path now (fail_start), so the marker only keeps them
                    # replaying
                    self._new(P_STATUS)
                    self._ended, self._refused = True, err.message
                    if self.s is not None:
                        self.s.status, self.s.reason = "failed", err.message
                    fail_start("writing", err.message, topic=inp.story_name)
            s, cfg = self._run()
            while cfg.states[s.current].type != "terminal":
                if self._should_continue_as_new(inp):
                    workflow.continue_as_new(inp.model_copy(update={"carry": s, "story_text": None,
                                                                    "config": None}))
                name = s.current
                state = cfg.states[name]
                self._upsert(phase=name)
                key = await self._execute(name, state)
                self._check_hard_limits()
                target = state.transitions.get(key)
                if target is None:
                    self._stop_now("halted", f"state {name!r} ended with {key!r} and the config has no such "
                                   "transition")
                await self._move(name, target, key)
            s.status = "halted" if cfg.states[s.current].error else "complete"
            if s.status == "halted" and not s.reason:
                s.reason = self._halt_reason()
        except _Stop:
            pass
        return await self._finish()

    async def _start(self, inp: WritingInput) -> None:
        info = workflow.info()
        problems = self._input_problems(inp)
        twice = duplicate_models(inp.models)
        if twice and self._new(P_DUPES):  # were folded into one, silently
            problems.append(f"model id(s) {', '.join(map(repr, twice))} given more than once: give each once")
        if problems:
            raise ApplicationError("invalid writing input: " + "; ".join(problems), type="ValidationError",
                                   non_retryable=True)
        models = list(dict.fromkeys(m.strip() for m in inp.models))
        self.s = RunState(run_id=info.workflow_id, story_name=inp.story_name, models=models,
                          started_at=workflow.now())
        self._upsert(phase="prepare", status="running", topic=inp.story_name)
        if inp.config is not None:  # validate before any activity: nothing is called for a broken config
            errors = validate_config(inp.config)
            if errors:
                raise ApplicationError(f"invalid writing workflow config {inp.config.name!r}: " + "; ".join(errors),
                                       type="ConfigError", non_retryable=True)
        workflow.set_current_details("validating config, storing the story")
        try:
            prep = await call_activity(writing_prepare_run, PrepareInput(
                run_id=info.workflow_id, config=inp.config, config_name=inp.config_name,
                inline_personas=sorted(inp.personas), story_text=inp.story_text), kind="storage",
                summary=f"prepare: config {inp.config.name if inp.config else inp.config_name}, story")
        except ActivityError as err:
            kind = getattr(err.cause, "type", None) or "PrepareError"
            raise ApplicationError(error_message(err), type=kind, non_retryable=True) from None
        cfg = prep.config
        errors = validate_config(cfg)
        if errors:
            raise ApplicationError(f"invalid writing workflow config {cfg.name!r}: " + "; ".join(errors),
                                   type="ConfigError", non_retryable=True)
        if not models and any(st.type == "fan-out" and not st.agents for st in cfg.states.values()):
            raise ApplicationError("invalid writing input: no writer models given (use --models a,b,c)",
                                   type="ValidationError", non_retryable=True)
        self.cfg = cfg
        self.s.config = cfg
        self.s.story_ref = prep.story_ref or inp.story_ref
        first = initial_state(cfg)
        self.s.current = first
        self._log("start", first, {"models": models, "config": cfg.name, "story": inp.story_name})
        await self._move(first, cfg.states[first].next or "", "next")

    @staticmethod
    def _input_problems(inp: WritingInput) -> list[str]:
        problems = []
        if (inp.story_text is None) == (inp.story_ref is None):
            problems.append("give exactly one of story_text and story_ref")
        elif inp.story_text is not None and not inp.story_text.strip():
            problems.append("the story is empty")
        elif inp.story_text is not None and len(inp.story_text) > MAX_STORY_CHARS:
            problems.append(f"the story is {len(inp.story_text):,} characters, over the {MAX_STORY_CHARS:,} limit "
                            "(pass a larger story as an artifact ref)")
        models = [m.strip() for m in inp.models]
        if any(not m for m in models):
            problems.append("a model id is empty")
        if len(set(models)) > MAX_MODELS:
            problems.append(f"{len(set(models))} models, at most {MAX_MODELS}")
        if any(len(m) > 200 for m in models):
            problems.append("a model id is longer than 200 characters")
        if not inp.story_name.strip():
            problems.append("story_name is empty")
        for name, text in inp.personas.items():
            if len(text) > MAX_PERSONA_CHARS:
                problems.append(f"persona {name!r} is {len(text):,} characters, over the {MAX_PERSONA_CHARS:,} limit")
        return problems

    def _should_continue_as_new(self, inp: WritingInput) -> bool:
        if inp.continue_as_new_after and self.moves_this_run >= inp.continue_as_new_after:
            return True
        return workflow.info().is_continue_as_new_suggested()

    # ----------------------------------------------------------------------------------------- transitions
    async def _move(self, from_state: str, to_state: str, key: str) -> None:
        s, cfg = self._run()
        breaker.record_transition(s.breaker, from_state, to_state, key, retry_aware=self._new(P_RETRY))
        self.moves_this_run += 1
        self._log("transition", to_state, {"from": from_state, "to": to_state, "result": key})
        self._check_hard_limits()
        target = cfg.states[to_state]
        brk = None if target.type == "terminal" else breaker.check_rules(
            s.breaker, cfg.circuit_breaker, to_state, self._elapsed(), merge_defaults=self._new(P_RULES))
        s.current = to_state
        if brk is not None:
            await self._circuit_break(brk, to_state)

    def _check_hard_limits(self) -> None:
        s, cfg = self._run()
        hard = breaker.check_safety_limits(s.breaker, cfg.circuit_breaker, self._elapsed())
        if hard is not None:
            self._log("hard_limit", s.current, {"rule": hard.rule, "message": hard.message, "overridable": False})
            self._stop_now("halted", f"hard safety limit {hard.rule}: {hard.message}")

    async def _circuit_break(self, brk: BreakInfo, to_state: str) -> None:
        """§13: execution stops, the orchestrator is informed with full context and decides."""
        s, cfg = self._run()
        self._log("circuit_break", to_state, {"rule": brk.rule, "message": brk.message,
                                              "context": brk.context.model_dump(mode="json")})
        workflow.set_current_details(f"circuit break ({brk.rule}): consulting the orchestrator")
        assert s.story_ref is not None
        consult = ConsultInput(
            run_id=s.run_id, model=cfg.orchestrator.model, persona_file=cfg.personas.get(cfg.orchestrator.persona),
            persona_text=None, story=s.story_ref, brk=brk,
            outputs=[f"{o.state}/{o.model}: {o.preview}" for group in s.outputs.values() for o in group],
            quality_scores=[f"{g['state']} v{g['visit']}: {g['score']}/10 ({g['decision']})" for g in s.gate_scores]
            + [f"{a.state} {a.auditor}→{a.target}: {a.overall:g}/10" for a in s.audit_scores],
            states=[n for n, st in cfg.states.items() if st.type not in ("initial", "terminal")])
        started = workflow.now()
        try:
            result: ConsultResult = await call_agent(writing_orchestrator, consult,
                                                     summary=f"orchestrator: circuit break {brk.rule}")
        except ActivityError as err:
            self._record_failure("circuit-break", 1, "orchestrator", "writing_orchestrator",
                                 cfg.orchestrator.model or "orchestrator", started, err, None)
            self._log("orchestrator_decision", to_state, {"rule": brk.rule, "decision": "halt",
                                                          "reasoning": "orchestrator unavailable"})
            self._stop_now("halted", f"circuit break {brk.rule} ({brk.message}); the orchestrator could not be "
                           f"consulted: {error_message(err)}")
        self._record_usage("circuit-break", s.breaker.consultations + 1, "orchestrator", "writing_orchestrator",
                           started, result.usage, None, status="success")
        d = result.decision
        self._log("orchestrator_decision", to_state, {"rule": brk.rule, "decision": d.decision,
                                                      "reasoning": d.reasoning, "retry_from": d.retry_from,
                                                      "use_output": d.use_output})
        breaker.rearm_rule(s.breaker, cfg.circuit_breaker, brk.rule, to_state, self._elapsed())
        self._check_hard_limits()  # the consult itself may have crossed the hard cost limit
        if d.decision == "halt":
            self._stop_now("halted", f"orchestrator halted after {brk.rule} ({brk.message}): {d.reasoning}")
        if d.decision == "force_complete":
            chosen = best_output(s.outputs, s.audit_scores, d.use_output)
            if self._new(P_HUMAN) and s.rejected_posts and usable_post(chosen, s.rejected_posts) is None:
                self._stop_now("halted", f"circuit break {brk.rule} ({brk.message}); the orchestrator chose "
                               "force_complete, but the post it would complete with was rejected by the human "
                               "reviewer — a human decision is final, so the run halts")
            if chosen is None:
                self._stop_now("halted", f"orchestrator chose force_complete after {brk.rule}, but no output "
                               "exists yet")
            s.forced_output = chosen
            self.forced = True
            s.current = self._terminal(error=False)
            self._stop_now("complete", f"forced complete after {brk.rule}: {d.reasoning}")
        if d.decision == "dump_context":
            self.dump_ref = await call_activity(writing_dump_context, DumpInput(
                run_id=s.run_id, context={"break": brk.model_dump(mode="json"), "decision": d.model_dump(mode="json"),
                                          "run": s.model_dump(mode="json", exclude={"config"})}),
                kind="storage", summary="dump context for debugging")
            self._stop_now("failed", f"orchestrator asked for dump_context after {brk.rule}: {d.reasoning} "
                           f"(dump: {self.dump_ref.uri})")
        # retry_different: new guidance, retry from a (valid) state
        retry_from = d.retry_from if d.retry_from in cfg.states and \
            cfg.states[d.retry_from].type not in ("initial", "terminal") else to_state
        store_guidance(s.pending_guidance, retry_from, d.retry_guidance or d.reasoning)
        if retry_from != to_state:
            self._log("redirect", retry_from, {"from": to_state, "to": retry_from, "reason": "retry_different"})
        s.current = retry_from

    def _stop_now(self, status: str, reason: str) -> NoReturn:
        s, _ = self._run()
        s.status = status  # type: ignore[assignment]
        s.reason = reason
        if status != "complete":
            s.current = self._terminal(error=True) if status == "halted" else s.current
        raise _Stop(reason)

    def _halt_reason(self) -> str:
        """Why the run reached an error state, in words (the last transition's key)."""
        s, _ = self._run()
        last = next((e for e in reversed(s.state_log) if e.event == "transition"), None)
        key, frm = (last.data.get("result"), last.data.get("from")) if last else (None, None)
        why = {"abort": "the human reviewer aborted the run", "timeout": "nobody answered the approval request "
               "in time", "halt": "the quality gate decided to halt", "all_failure": "every model failed",
               "failure": "the state failed"}.get(str(key))
        return f"{why} in {frm!r} (reached error state {s.current!r})" if why else \
            f"reached error state {s.current!r}"

    def _terminal(self, error: bool) -> str:
        _, cfg = self._run()
        terminals = [n for n, st in cfg.states.items() if st.type == "terminal"]
        return next((n for n in terminals if cfg.states[n].error == error), terminals[0])

    # ------------------------------------------------------------------------------------------- states
    async def _execute(self, name: str, state: StateConfig) -> str:
        if state.type == "fan-out":
            return await self._fan_out(name, state)
        if state.type in ("single", "orchestrator-task"):
            return await self._single(name, state)
        if state.type == "human-approval":
            return await self._human_approval(name, state)
        raise ApplicationError(f"state {name!r}: cannot execute type {state.type}", type="ConfigError",
                               non_retryable=True)

    def _task_input(self, name: str, state: StateConfig, model: str | None, visit: int, guidance: str | None,
                    output_name: str, previous_post: ArtifactRef | None = None) -> WritingTaskInput:
        s, cfg = self._run()
        assert state.task is not None and s.story_ref is not None
        persona = persona_for(state)
        return WritingTaskInput(
            run_id=s.run_id, state=name, visit=visit, task=state.task, model=model, persona=persona,
            persona_file=cfg.personas.get(persona), persona_text=self._inline_persona(persona), story=s.story_ref,
            sources=self._sources(state.input), guidance=guidance, previous_post=previous_post,
            output_name=output_name)

    def _inline_persona(self, persona: str) -> str | None:
        return self._personas.get(persona)

    def _next_visit(self, name: str) -> int:
        s, _ = self._run()
        s.executions[name] = s.executions.get(name, 0) + 1
        return s.executions[name]

    def _sources(self, inputs: list[str]) -> list[SourceDoc]:
        s, _ = self._run()
        return [SourceDoc(state=o.state, model=o.model, kind=o.kind, ref=o.ref)
                for name in inputs for o in s.outputs.get(name, [])]

    async def _fan_out(self, name: str, state: StateConfig) -> str:
        s, cfg = self._run()
        models = state.agents or s.models
        visit = self._next_visit(name)
        guidance = take_guidance(s.pending_guidance, name)
        timeout = state.timeout_s or cfg.settings.timeout_per_agent
        workflow.set_current_details(f"{name}: {len(models)} model(s) in parallel (visit {visit})")
        self._log("fan_out_start", name, {"models": models, "visit": visit, "guidance": guidance})
        started = workflow.now()
        slugs = unique_slugs(models)
        over_budget: str | None = None
        if self._new(P_BUDGET):
            results, over_budget = await self._gather_within_budget(name, state, models, visit, guidance, timeout,
                                                                    slugs)
        else:
            results = await asyncio.gather(*(
                self._branch(name, state, model, visit, guidance, timeout, slugs[model]) for model in models))
        produced = []
        for model, (inv_started, result, error) in zip(models, results, strict=True):
            if isinstance(error, _BudgetCancelled):
                self._record_failure(name, visit, persona_for(state), _activity_name(state), model, inv_started,
                                     error, guidance, status="cancelled")
            elif result is not None:
                out = self._record_success(name, state, visit, model, inv_started, result, guidance)
                produced.append(out)
            else:
                self._record_failure(name, visit, persona_for(state), _activity_name(state), model, inv_started,
                                     error, guidance)
        if produced:
            s.outputs[name] = produced
        outcome = fan_out_outcome(len(produced), len(models))
        self._log("fan_out_complete", name, {
            "result": outcome, "visit": visit, "duration_s": _seconds(workflow.now() - started),
            "outputs": {o.model: {"file": o.ref.name, "word_count": o.word_count, "preview": o.preview}
                        for o in produced},
            "failed": [m for m, (_, r, _) in zip(models, results, strict=True) if r is None]})
        if over_budget is not None:
            cancelled = sum(1 for _, _, e in results if isinstance(e, _BudgetCancelled))
            reason = breaker.budget_halt_reason(s.breaker, cfg.circuit_breaker, over_budget, cancelled)
            self._log("hard_limit", name, {"rule": over_budget.split(":")[0], "message": reason,
                                           "overridable": False, "cancelled_branches": cancelled})
            self._stop_now("halted", reason)
        return outcome

    async def _gather_within_budget(self, name: str, state: StateConfig, models: list[str], visit: int,
                                    guidance: str | None, timeout: float, slugs: dict[str, str],
                                    ) -> tuple[list[tuple[Any, TaskResult | None, BaseException | None]], str | None]:
        """The branches in parallel, the hard cost/token limits checked after every call: once crossed, the
        branches still in flight are cancelled (spend ≤ cap + the calls already in flight)."""
        s, cfg = self._run()
        tasks = [asyncio.ensure_future(self._branch(name, state, m, visit, guidance, timeout, slugs[m],
                                                    stop=lambda: self._budget_stop)) for m in models]

        def spent() -> tuple[float, int]:
            cost, tokens = 0.0, 0
            for model, task in zip(models, tasks, strict=True):
                done = task.done() and not task.cancelled() and task.exception() is None
                result = task.result()[1] if done else None
                if result is not None:
                    usage = result.usage
                    cost += invocation_cost(cfg, model, usage)
                    tokens += usage.input_tokens + usage.output_tokens
            return cost, tokens

        def over() -> str | None:
            return breaker.budget_exceeded(s.breaker, cfg.circuit_breaker, *spent())

        await workflow.wait_condition(lambda: all(t.done() for t in tasks) or over() is not None)
        exceeded = over()
        if exceeded is not None and not all(t.done() for t in tasks):
            # one short durable wait first: completions already on their way land (they count, within the bound)
            # instead of racing a cancel request against a finished activity
            try:
                await workflow.wait_condition(lambda: all(t.done() for t in tasks), timeout=timedelta(
                    milliseconds=BUDGET_GRACE_MS), timeout_summary="hard budget reached: calls already finishing land")
            except TimeoutError:
                pass
        self._budget_stop = exceeded is not None  # the branches still in flight cancel their calls
        results = [await task for task in tasks]
        self._budget_stop = False
        return results, exceeded

    async def _branch(self, name: str, state: StateConfig, model: str, visit: int, guidance: str | None,
                      timeout: float, model_slug: str, stop: Any = None,
                      ) -> tuple[Any, TaskResult | None, BaseException | None]:
        """One model's call. The per-agent timeout cancels only this branch; the others carry on."""
        started = workflow.now()
        inp = self._task_input(name, state, model, visit, guidance, f"{name}_v{visit}_{model_slug}.md")
        try:
            result = await _with_timeout(call_agent(TASK_ACTIVITIES[state.task or ""], inp,
                                                    summary=f"{name}: {model}", result_type=TaskResult), timeout,
                                         f"{name}: {model} timeout ({timeout:g}s)", stop)
            return started, result, None
        except _BudgetCancelled as err:
            return started, None, err
        except TimeoutError:
            return started, None, TimeoutError(f"{model} timed out after {timeout:g}s in {name}")
        except ActivityError as err:
            return started, None, err

    async def _single(self, name: str, state: StateConfig) -> str:
        s, cfg = self._run()
        model = state.agent if state.agent and state.agent != "orchestrator" else cfg.orchestrator.model
        visit = self._next_visit(name)
        guidance = take_guidance(s.pending_guidance, name)
        previous = s.pending_previous_post.pop(name, None)
        ext = "json" if state.task == "quality_gate" else "md"
        inp = self._task_input(name, state, model, visit, guidance, f"{name}_v{visit}.{ext}", previous)
        label = model or ("orchestrator" if not self._new(P_RETRY) else f"{persona_for(state)} (default model)")
        workflow.set_current_details(f"{name}: {label} (visit {visit})")
        timeout = state.timeout_s or cfg.settings.timeout_per_agent
        retries = cfg.settings.retry_count if self._new(P_RETRY) else 0
        attempt = 0
        while True:
            started = workflow.now()
            try:
                result: TaskResult = await _with_timeout(call_agent(
                    TASK_ACTIVITIES[state.task or ""], inp, summary=f"{name}: {label}",
                    result_type=TaskResult), timeout, f"{name}: {label} timeout ({timeout:g}s)")
                break
            except (TimeoutError, ActivityError) as err:
                error = err if isinstance(err, ActivityError) else TimeoutError(
                    f"{label} timed out after {timeout:g}s")
                self._record_failure(name, visit, persona_for(state), _activity_name(state), label, started, error,
                                     guidance)
                if attempt < retries and _transient(error):
                    # retry != revisit: the same visit runs again in place (the activity policy already retried
                    # each call); no transition, no visit, nothing for the breaker to count
                    attempt += 1
                    self._log("state_retry", name, {"visit": visit, "retry": attempt, "of": retries,
                                                    "error": error_message(error)})
                    inp = inp.model_copy(update={"output_name": f"{name}_v{visit}r{attempt}.{ext}"})
                    self._check_hard_limits()
                    continue
                self._log("state_failed", name, {"visit": visit, "error": error_message(error),
                                                 "retries": attempt})
                return "failure"
        out = self._record_success(name, state, visit, result.usage.model if model is None else model, started,
                                   result, guidance)
        if state.task == "quality_gate":
            assert result.gate is not None
            gate = result.gate
            s.gate_scores.append({"state": name, "visit": visit, "model": out.model, "target": ",".join(state.input),
                                  "score": gate.score, "decision": gate.decision,
                                  "retry_guidance": gate.retry_guidance, "feedback": gate.feedback})
            self._log("quality_gate", name, {"visit": visit, "score": gate.score, "decision": gate.decision,
                                             "issues": len(gate.issues), "retry_guidance": gate.retry_guidance})
            if gate.decision == "retry":
                target = state.transitions.get("retry")
                if target:
                    store_guidance(s.pending_guidance, target, gate.retry_guidance or gate.feedback)
            return gate.decision
        s.outputs[name] = [out]
        if state.task == "final_analysis" and result.analysis is not None:
            s.final_score = result.analysis.final_score
            s.analysis_ref = result.output_ref
        return "success"

    async def _human_approval(self, name: str, state: StateConfig) -> str:
        s, _ = self._run()
        visit = self._next_visit(name)
        posts = [o for n in (state.input or list(s.outputs)) for o in s.outputs.get(n, []) if o.kind == "post"]
        post = posts[-1] if posts else None
        text = (await load_artifact(post.ref))[:MAX_APPROVAL_POST_CHARS] if post else ""
        request_id = f"{name}-{visit}"
        self.pending = PendingApproval(
            request_id=request_id, state=name, prompt=state.prompt or DEFAULT_APPROVAL_PROMPT,
            post_ref=post.ref if post else None, post_text=text, since=workflow.now(), timeout_s=state.timeout_s)
        s.status = "waiting_approval"
        self._upsert(status="waiting_approval")
        self._log("approval_requested", name, {"request_id": request_id, "post": post.ref.name if post else None})
        workflow.set_current_details(f"waiting for approval ({request_id}): colloquy write approve {s.run_id}")
        waited_from = workflow.now()
        try:
            await workflow.wait_condition(lambda: self.answer is not None,
                                          timeout=timedelta(seconds=state.timeout_s) if state.timeout_s else None,
                                          timeout_summary=approval_timer_summary(request_id, s.run_id,
                                                                                 state.timeout_s))
            decision, feedback = self.answer or ("timeout", None)
        except TimeoutError:
            decision, feedback = "timeout", None
        s.human_wait_s += _seconds(workflow.now() - waited_from)
        self.answer = None
        self.pending = None
        s.status = "running"
        self._upsert(status="running")
        self._log("human_approval", name, {"request_id": request_id, "decision": decision, "feedback": feedback})
        if decision == "feedback":
            target = state.transitions["feedback"]
            s.human_feedback.append(feedback or "")  # every rejection so far reaches the next synthesis
            store_guidance(s.pending_guidance, target, feedback_history(s.human_feedback))
            if post:
                s.pending_previous_post[target] = post.ref
            if self._new(P_HUMAN):  # the human drives this loop: the breaker's revisit rules count it apart
                if post:
                    s.rejected_posts.append(post.ref.name)
                breaker.human_round(s.breaker)
        if decision == "approved":
            s.approved = True
        if decision == "timeout":
            return "timeout" if "timeout" in state.transitions else "abort"
        return decision

    # ------------------------------------------------------------------------------------------ accounting
    def _record_success(self, name: str, state: StateConfig, visit: int, model: str, started: Any,
                        result: TaskResult, guidance: str | None) -> AgentOutput:
        s, _ = self._run()
        kind = TASK_OUTPUT_KIND[state.task or "draft"]
        inv = self._record_usage(name, visit, persona_for(state), _activity_name(state), started, result.usage,
                                 result, status="success", model=model, guidance=guidance,
                                 inputs=[o.ref.name for n in state.input for o in s.outputs.get(n, [])])
        if result.cross_audit is not None:
            for r in result.cross_audit.reviews:
                s.audit_scores.append(AuditScoreRow(
                    state=name, kind="audit", visit=visit, auditor=model, target=r.target, overall=r.overall_score,
                    hook=r.hook_score, specifics=r.specifics_score, voice=r.voice_score, structure=r.structure_score,
                    feedback=r.feedback))
        if result.final_audit is not None:
            fa = result.final_audit
            s.audit_scores.append(AuditScoreRow(
                state=name, kind="final_audit", visit=visit, auditor=model, target="final_post",
                overall=fa.overall_score, hook=fa.hook_score, specifics=fa.specifics_score, voice=fa.voice_score,
                structure=fa.structure_score, feedback=fa.feedback))
        return AgentOutput(state=name, model=inv.model, kind=kind, ref=result.output_ref,
                           word_count=result.word_count, preview=result.preview, visit=visit)

    def _record_usage(self, name: str, visit: int, persona: str | None, activity: str, started: Any, usage: Any,
                      result: TaskResult | None, *, status: str, model: str | None = None,
                      guidance: str | None = None, inputs: list[str] | None = None) -> Invocation:
        s, cfg = self._run()
        label = model or usage.model
        cost = invocation_cost(cfg, label, usage)
        window = context_window_for(cfg, label)
        tokens = usage.input_tokens + usage.output_tokens
        # §6 SessionTokens: context health is this model's cumulative total over the run, not one call's peak
        session = tokens + sum(i.input_tokens + i.output_tokens for i in s.invocations if i.model == label)
        pct, health = context_use(session, window)
        inv = Invocation(
            seq=len(s.invocations) + 1, state=name, visit=visit, task=activity.removeprefix("writing_"),
            agent=activity, model=label, persona=persona, started_at=started,
            duration_s=_seconds(workflow.now() - started), status=status,  # type: ignore[arg-type]
            input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, cost_usd=cost, context_window=window,
            context_used_pct=pct, context_status=health, output_ref=result.output_ref if result else None,
            output_name=result.output_ref.name if result else None, word_count=result.word_count if result else 0,
            preview=result.preview if result else "", attempt=usage.attempt, fallback_used=usage.fallback_used,
            guidance=guidance, prompt_ref=result.prompt_ref if result else None, inputs=inputs or [],
            session_tokens=session)
        s.invocations.append(inv)
        breaker.add_cost(s.breaker, cost, tokens)
        return inv

    def _record_failure(self, name: str, visit: int, persona: str | None, activity: str, model: str, started: Any,
                        error: BaseException | None, guidance: str | None, status: str | None = None) -> None:
        s, cfg = self._run()
        timed_out = isinstance(error, TimeoutError) or (
            isinstance(error, ActivityError) and isinstance(error.cause, TemporalTimeoutError))
        status = status or ("timeout" if timed_out else "failed")
        message = "cancelled: the run's hard budget was reached" if status == "cancelled" else error_message(error)
        s.invocations.append(Invocation(
            seq=len(s.invocations) + 1, state=name, visit=visit, task=activity.removeprefix("writing_"),
            agent=activity, model=model, persona=persona, started_at=started,
            duration_s=_seconds(workflow.now() - started), status=status,  # type: ignore[arg-type]
            error=message, context_window=context_window_for(cfg, model), guidance=guidance))
        self._log("agent_failed", name, {"agent": model, "status": status, "error": message})

    # ----------------------------------------------------------------------------------------------- end
    async def _finish(self) -> WritingResult:
        s, cfg = self._run()
        self._ended = True
        final_post = s.forced_output or next(
            (o for group in reversed(list(s.outputs.values())) for o in group if o.kind == "post"), None)
        if self._new(P_SCORE):  # the last final-audit visit only, never a gate score; then the score floor
            s.final_score = final_score(s.audit_scores, s.final_score)
            s.status, below = floor_status(s.status, s.final_score, cfg.settings.score_floor,  # type: ignore[assignment]
                                           s.approved)
            if below:
                s.reason = f"{s.reason}; {below}" if s.reason else below
        elif s.final_score is None:
            finals = [a.overall for a in s.audit_scores if a.kind == "final_audit"]
            gates = [g["score"] for g in s.gate_scores]
            s.final_score = round(sum(finals) / len(finals), 2) if finals else (float(gates[-1]) if gates else None)
        self._log("run_complete" if s.status in ("complete", "complete_below_floor") else "run_ended", s.current,
                  {"status": s.status, "reason": s.reason})
        self._upsert(phase=PHASE_DONE, status=s.status)
        workflow.set_current_details(f"{s.status}: {s.reason or s.current}; writing run logs and history")
        record = RunLogsInput(state=s, finished_at=workflow.now(), final_post=final_post, forced=self.forced,
                              analysis_ref=s.analysis_ref)
        try:
            artifacts = await call_activity(writing_write_run_logs, record, kind="storage",
                                            summary="run logs: manifest, state/token/agent logs, run_summary.md")
        except ActivityError as err:  # the run's outputs exist; missing logs must not turn it into a failure
            workflow.logger.warning("run logs not written: %s", error_message(err))
            artifacts = RunArtifacts()
        recorded = True
        try:
            await call_activity(writing_record_history, RecordHistoryInput(
                state=s, finished_at=record.finished_at, final_post=final_post, forced=self.forced,
                config_name=cfg.name), kind="storage", summary="history DB: run, invocations, audit scores")
        except ActivityError as err:
            recorded = False
            workflow.logger.warning("history not recorded: %s", error_message(err))
        totals = run_totals(s.invocations)
        if self.dump_ref is not None:
            artifacts.refs["debug_dump.json"] = self.dump_ref
        workflow.set_current_details(f"{s.status}: {s.reason or s.current} — ${totals.cost_usd:.4f}, "
                                     f"{totals.total_tokens:,} tokens")
        if s.status == "failed":
            raise ApplicationError(s.reason or "writing run failed", {"artifacts": {
                k: v.uri for k, v in artifacts.refs.items()}}, type="WritingDumpContext", non_retryable=True)
        return WritingResult(run_id=s.run_id, status=s.status, final_state=s.current, reason=s.reason,
                             forced=self.forced, final_post=final_post, final_score=s.final_score,
                             cost_usd=totals.cost_usd, tokens=totals.total_tokens,
                             transitions=list(s.breaker.transition_history), artifacts=artifacts.refs,
                             history_recorded=recorded)

    # ------------------------------------------------------------------------------------- user input
    @workflow.signal(name=SIGNAL_APPROVAL)
    def approval(self, raw: Any) -> None:
        """approve | abort | feedback (text). Invalid or unexpected answers are ignored and logged."""
        self._new(P_REJECT)
        inp, problem = signal_input(ApprovalInput, raw, SIGNAL_APPROVAL)
        if inp is not None:
            problem = self._approval_problem(inp) or ""
            if problem:
                note_rejection(f"{SIGNAL_APPROVAL!r} signal: {problem}")
        if inp is None or problem:
            self._ignored += 1
            if self._ignored <= MAX_IGNORED_LOGGED:  # a flood of bad signals must not grow the state unbounded
                self._log("approval_ignored", self.s.current if self.s else None, {"reason": problem})
            return
        self.answer = normalise_approval(inp.decision, inp.feedback, strict_reject=self._new(P_REJECT))

    @workflow.update(name=UPDATE_SUBMIT_APPROVAL)
    def submit_approval(self, raw: Any) -> ApprovalReceipt:
        inp = update_input(ApprovalInput, raw, UPDATE_SUBMIT_APPROVAL)
        self.answer = normalise_approval(inp.decision, inp.feedback, strict_reject=self._new(P_REJECT))
        assert self.pending is not None
        return ApprovalReceipt(request_id=self.pending.request_id, decision=self.answer[0])

    @submit_approval.validator
    def _validate_approval(self, raw: Any) -> None:
        problem = self._approval_problem(update_input(ApprovalInput, raw, UPDATE_SUBMIT_APPROVAL))
        if problem:
            raise invalid(problem)

    def _approval_problem(self, inp: ApprovalInput) -> str | None:
        if self.pending is None:
            return "no approval is pending" + (f" (the run is in state {self.s.current!r})" if self.s else "")
        if self.answer is not None:
            return f"request {self.pending.request_id} is already answered"
        if inp.request_id and inp.request_id != self.pending.request_id:
            return f"request id {inp.request_id!r} does not match the pending request {self.pending.request_id!r}"
        if inp.feedback and len(inp.feedback) > MAX_FEEDBACK_CHARS:
            return f"feedback is {len(inp.feedback):,} characters, over the {MAX_FEEDBACK_CHARS:,} limit"
        try:
            normalise_approval(inp.decision, inp.feedback, strict_reject=self._flags.get(P_REJECT, True))
        except ValueError as exc:
            return str(exc)
        return None

    @workflow.update(name=UPDATE_AWAIT_APPROVAL_REQUEST)
    async def await_approval_request(self) -> PendingApproval | None:
        """Wait until the run asks for approval (returns the request, post included) or ends (returns None)."""
        await workflow.wait_condition(lambda: self.pending is not None or self._ended)
        return self.pending

    @workflow.query(name=QUERY_RUN_STATUS)
    def run_status(self) -> StatusView:
        s = self.s
        if s is None:
            return StatusView(run_id=workflow.info().workflow_id, story="", state="prepare",
                              status="failed" if self._refused else "running", reason=self._refused,
                              models=[], visits={}, transitions=[], transition_count=0, cost_usd=0.0, tokens=0,
                              invocations=0)
        totals = run_totals(s.invocations)
        return StatusView(run_id=s.run_id, story=s.story_name, state=s.current, status=s.status, models=s.models,
                          visits=dict(s.breaker.state_visits), transitions=list(s.breaker.transition_history),
                          transition_count=s.breaker.transition_count, cost_usd=totals.cost_usd,
                          tokens=totals.total_tokens, invocations=totals.invocations, pending_approval=self.pending,
                          last_event=s.state_log[-1] if s.state_log else None, reason=s.reason,
                          event_count=len(s.state_log), recent_events=s.state_log[-20:])

    @workflow.query(name=QUERY_OUTPUTS)
    def outputs(self) -> OutputsView:
        s = self.s
        if s is None:
            return OutputsView(outputs={})
        final = s.forced_output or next(
            (o for group in reversed(list(s.outputs.values())) for o in group if o.kind == "post"), None)
        return OutputsView(outputs=s.outputs, final_post=final, audit_scores=s.audit_scores)

    # --------------------------------------------------------------------------------------------- helpers
    def _run(self) -> tuple[RunState, WorkflowConfig]:
        assert self.s is not None and self.cfg is not None
        return self.s, self.cfg

    def _elapsed(self) -> float:
        s = self.s
        assert s is not None and s.started_at is not None
        return max(0.0, _seconds(workflow.now() - s.started_at) - s.human_wait_s)

    def _log(self, event: str, state: str | None, data: dict[str, Any]) -> None:
        if self.s is not None:
            self.s.state_log.append(StateLogEntry(ts=workflow.now(), event=event, state=state, data=data))

    def _upsert(self, phase: str | None = None, status: str | None = None, topic: str | None = None) -> None:
        # RunStatus -> ColloquyStatus by the one mapping (models/status.py) that StatusView / WritingResult use too
        sa.upsert(pipeline="writing", phase=phase, status=writing_status(status) if status else None, topic=topic)


def _activity_name(state: StateConfig) -> str:
    return f"writing_{state.task}"


def _seconds(delta: timedelta) -> float:
    return round(delta.total_seconds(), 3)



WORKFLOWS = [WritingWorkflow]
