"""WritingWorkflow (seed 004): a config-driven multi-agent writing state machine.

    start → draft (fan-out, one activity per model) → cross-audit (fan-out) → synthesize → final-audit (fan-out)
          → final-analysis → complete                        (configs/writing/default.yaml)

The state machine is data (WorkflowConfig). The workflow interprets it: each state's result maps to a transition
key (all_success / partial_success / all_failure, success / failure, proceed / retry / halt, approved / feedback /
abort), every transition passes the circuit breaker (soft rules → the orchestrator decides) and the hard safety
limits (nobody overrides them). Drafts, audits and posts live in the artifact store; history holds refs.

The class is split by concern: base.py (run state, limits, accounting), states.py (the states), calls.py,
this module (main loop, transitions, circuit breaker, the end, user input).
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.writing.history import RecordHistoryInput, writing_record_history
    from activities.writing.orchestrator import writing_orchestrator
    from activities.writing.storage import (
        DumpInput,
        PrepareInput,
        RunLogsInput,
        writing_dump_context,
        writing_prepare_run,
        writing_write_run_logs,
    )
    from models.common import offline_labelled
    from models.status import PHASE_DONE
    from models.writing.workflow import (
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
        BreakInfo,
        ConsultInput,
        ConsultResult,
        OutputsView,
        PendingApproval,
        RunArtifacts,
        RunState,
        StatusView,
        WritingInput,
        WritingResult,
    )
    from rules.errors import error_message
    from rules.writing import breaker
    from rules.writing.accounting import (
        offline_run,
        run_totals,
    )
    from rules.writing.config import (
        duplicate_models,
        initial_state,
        validate_config,
    )
    from rules.writing.outcome import final_score, floor_status, score_seen_by_human, usable_post
    from rules.writing.publish import decide_end, record_of, requirements
    from rules.writing.transitions import (
        best_output,
        normalise_approval,
        store_guidance,
    )
    from workflows.calls import call_activity, call_agent
    from workflows.inputs import (
        check_start_input,
        fail_start,
        invalid,
        note_rejection,
        signal_input,
        update_input,
    )
from workflows.writing.base import (
    MAX_IGNORED_LOGGED,
    MAX_PERSONA_CHARS,
    P_DUPES,
    P_HUMAN,
    P_PUBLISH,
    P_REJECT,
    P_RETRY,
    P_RULES,
    P_SCORE,
    P_STATUS,
    _Stop,
)
from workflows.writing.states import WritingStates


@workflow.defn(name=WORKFLOW_TYPE)
class WritingWorkflow(WritingStates):
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
        # the orchestrator's words carry the offline label on from its result, into the log and the run's reason
        offline = result.usage.offline
        d = d.model_copy(update={"reasoning": offline_labelled(d.reasoning, offline)})
        self._log("orchestrator_decision", to_state, {"rule": brk.rule, "decision": d.decision,
                                                      "reasoning": d.reasoning, "retry_from": d.retry_from,
                                                      "use_output": d.use_output, "offline": offline})
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

    async def _finish(self) -> WritingResult:
        s, cfg = self._run()
        self._ended = True
        final_post = s.forced_output or next(
            (o for group in reversed(list(s.outputs.values())) for o in group if o.kind == "post"), None)
        if self._new(P_PUBLISH):  # where the config asks for a human, only a human's yes publishes a post
            final_post = self._publish(final_post)
        if self._new(P_SCORE):  # the last final-audit visit only, never a gate score; then the score floor
            s.final_score = final_score(s.audit_scores, s.final_score)
            seen = not self._flags.get(P_PUBLISH) or score_seen_by_human(s.invocations, s.approved_after)
            s.status, below = floor_status(s.status, s.final_score, cfg.settings.score_floor,  # type: ignore[assignment]
                                           s.approved, seen)
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
        written = len(s.state_log)
        artifacts = await self._write_logs(record)
        recorded = True
        try:
            await call_activity(writing_record_history, RecordHistoryInput(
                state=s, finished_at=record.finished_at, final_post=final_post, forced=self.forced,
                config_name=cfg.name), kind="storage", summary="history DB: run, invocations, audit scores")
        except ActivityError as err:
            recorded = False
            workflow.logger.warning("history not recorded: %s", error_message(err))
        if self._flags.get(P_PUBLISH) and len(s.state_log) > written:
            # an answer came in while the logs were written (a late abort after an approve): it is logged, so the
            # logs are written again with it
            artifacts = await self._write_logs(record)
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
                             history_recorded=recorded, offline=offline_run(s.invocations))

    async def _write_logs(self, record: RunLogsInput) -> RunArtifacts:
        try:
            return await call_activity(writing_write_run_logs, record, kind="storage",
                                       summary="run logs: manifest, state/token/agent logs, run_summary.md")
        except ActivityError as err:  # the run's outputs exist; missing logs must not turn it into a failure
            workflow.logger.warning("run logs not written: %s", error_message(err))
            return RunArtifacts()

    def _publish(self, post: AgentOutput | None) -> AgentOutput | None:
        """The end the publishing rule allows (rules/writing/publish.py): the status, and the post the run ends
        with (None, or the last post a human approved, when the proposed one may not be published)."""
        s, cfg = self._run()
        end = decide_end(requirements(cfg), record_of(s), s.status, post.ref.name if post else None, self.forced)
        if end.reason:
            s.status, s.current = end.status, self._terminal(error=True)  # type: ignore[assignment]
            s.reason = f"{end.reason} ({s.reason})" if s.reason else end.reason
            self._log("not_published", s.current, {"status": end.status, "reason": end.reason,
                                                   "post": post.ref.name if post else None, "kept": end.post})
        kept = None if end.post is None else post if post is not None and post.ref.name == end.post else \
            self._output_named(end.post)
        self._kept = (kept,)  # the `outputs` query's final post from now on
        return kept

    def _output_named(self, name: str) -> AgentOutput | None:
        s, _ = self._run()
        for o in [o for group in s.outputs.values() for o in group] + [s.forced_output]:
            if o is not None and o.ref.name == name:
                return o
        inv = next((i for i in reversed(s.invocations) if i.output_name == name and i.output_ref), None)
        if inv is None or inv.output_ref is None:
            return None
        return AgentOutput(state=inv.state, model=inv.model, kind="post", ref=inv.output_ref,
                           word_count=inv.word_count, preview=inv.preview, visit=inv.visit, offline=inv.offline)

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
                self._log("approval_ignored", self.s.current if self.s else None, {
                    "reason": problem, "decision": (inp.decision[:40] if inp is not None else None)})
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
        if self._ended and self.s is not None:
            return (f"the run has already ended ({self.s.status} in state {self.s.current!r}): a late "
                    f"{inp.decision.strip()[:40]!r} changes nothing")
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
                          event_count=len(s.state_log), recent_events=s.state_log[-20:],
                          offline=offline_run(s.invocations))

    @workflow.query(name=QUERY_OUTPUTS)
    def outputs(self) -> OutputsView:
        s = self.s
        if s is None:
            return OutputsView(outputs={})
        final = self._kept[0] if self._kept is not None else s.forced_output or next(
            (o for group in reversed(list(s.outputs.values())) for o in group if o.kind == "post"), None)
        return OutputsView(outputs=s.outputs, final_post=final, audit_scores=s.audit_scores,
                           offline=offline_run(s.invocations))


WORKFLOWS = [WritingWorkflow]
