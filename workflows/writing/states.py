"""WritingWorkflow's states: one task activity (`single`), one per model (`fan_out`, within the budget), and
the human approval."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.common import ArtifactRef
    from models.writing.workflow import (
        PendingApproval,
        SourceDoc,
        StateConfig,
        TaskResult,
        WritingTaskInput,
    )
    from rules.errors import error_message
    from rules.writing import breaker
    from rules.writing.accounting import (
        invocation_cost,
    )
    from rules.writing.config import (
        persona_for,
    )
    from rules.writing.summary import unique_slugs
    from rules.writing.transitions import (
        approval_timer_summary,
        fan_out_outcome,
        feedback_history,
        store_guidance,
        take_guidance,
    )
    from workflows.calls import call_agent, load_artifact
    from workflows.writing.calls import _BudgetCancelled, _transient, _with_timeout
from workflows.writing.base import (
    BUDGET_GRACE_MS,
    DEFAULT_APPROVAL_PROMPT,
    MAX_APPROVAL_POST_CHARS,
    P_AGENT_TIMEOUT,
    P_BUDGET,
    P_HUMAN,
    P_RETRY,
    TASK_ACTIVITIES,
    WritingBase,
    _activity_name,
    _seconds,
)


class WritingStates(WritingBase):
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
        as_configured = self._new(P_AGENT_TIMEOUT)
        self._log("fan_out_start", name, {"models": models, "visit": visit, "guidance": guidance,
                                          **({"timeout_s": timeout} if as_configured else {})})
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
            "outputs": {o.model: {"file": o.ref.name, "word_count": o.word_count, "preview": o.preview,
                                  "offline": o.offline} for o in produced},
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
                                         f"{name}: {model} timeout ({timeout:g}s)", stop,
                                         recovery=not self._flags.get(P_AGENT_TIMEOUT, False))
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
                    result_type=TaskResult), timeout, f"{name}: {label} timeout ({timeout:g}s)",
                    recovery=not self._new(P_AGENT_TIMEOUT))
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
                                  "retry_guidance": gate.retry_guidance, "feedback": gate.feedback,
                                  "offline": out.offline})
            self._log("quality_gate", name, {"visit": visit, "score": gate.score, "decision": gate.decision,
                                             "issues": len(gate.issues), "retry_guidance": gate.retry_guidance,
                                             "offline": out.offline})
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
        if post:
            s.shown_posts.append(post.ref.name)
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
            if post:
                s.approved_posts.append(post.ref.name)
            s.approved_after = len(s.invocations)
        if decision == "timeout":
            return "timeout" if "timeout" in state.transitions else "abort"
        return decision
