"""WritingWorkflow's shared part: its run state, the hard safety limits, stopping, accounting (usage and
failures per call), the state log and search attributes. The states run in states.py; the main loop,
transitions and user input in workflow.py."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, NoReturn

from temporalio import workflow
from temporalio.exceptions import ActivityError
from temporalio.exceptions import TimeoutError as TemporalTimeoutError

with workflow.unsafe.imports_passed_through():
    from activities.writing.audit import writing_audit
    from activities.writing.draft import writing_draft
    from activities.writing.final_analysis import writing_final_analysis
    from activities.writing.final_audit import writing_final_audit
    from activities.writing.quality_gate import writing_quality_gate
    from activities.writing.synthesize import writing_synthesize
    from core import search_attributes as sa
    from models.common import ArtifactRef
    from models.status import writing_status
    from models.writing import patches as writing_patches
    from models.writing.workflow import (
        AgentOutput,
        AuditScoreRow,
        Invocation,
        PendingApproval,
        RunState,
        StateConfig,
        StateLogEntry,
        TaskResult,
        WorkflowConfig,
    )
    from rules.errors import error_message
    from rules.writing import breaker
    from rules.writing.accounting import (
        context_use,
        context_window_for,
        invocation_cost,
    )
    from rules.writing.config import (
        TASK_OUTPUT_KIND,
        persona_for,
    )

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

# workflow.patched ids (registered in models/writing/patches.py): runs started before these changes replay on
# the old paths.
P_HUMAN, P_REJECT, P_BUDGET = writing_patches.HUMAN, writing_patches.REJECT, writing_patches.BUDGET
P_RETRY, P_RULES, P_STATUS = writing_patches.RETRY, writing_patches.RULES, writing_patches.STATUS
P_SCORE, P_DUPES = writing_patches.SCORE, writing_patches.DUPES
P_PUBLISH, P_AGENT_TIMEOUT = writing_patches.PUBLISH, writing_patches.AGENT_TIMEOUT


class _Stop(Exception):
    """Internal: the run ends now (halted / forced complete / failed)."""


class WritingBase:
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
        self._kept: tuple[AgentOutput | None] | None = None  # set when the publishing rule chose the run's post

    def _new(self, patch_id: str) -> bool:
        """workflow.patched, asked once per id (never from a query)."""
        if patch_id not in self._flags:
            self._flags[patch_id] = workflow.patched(patch_id)
        return self._flags[patch_id]

    def _check_hard_limits(self) -> None:
        s, cfg = self._run()
        hard = breaker.check_safety_limits(s.breaker, cfg.circuit_breaker, self._elapsed())
        if hard is not None:
            self._log("hard_limit", s.current, {"rule": hard.rule, "message": hard.message, "overridable": False})
            self._stop_now("halted", f"hard safety limit {hard.rule}: {hard.message}")

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
                    feedback=r.feedback, offline=result.usage.offline))
        if result.final_audit is not None:
            fa = result.final_audit
            s.audit_scores.append(AuditScoreRow(
                state=name, kind="final_audit", visit=visit, auditor=model, target="final_post",
                overall=fa.overall_score, hook=fa.hook_score, specifics=fa.specifics_score, voice=fa.voice_score,
                structure=fa.structure_score, feedback=fa.feedback, offline=result.usage.offline))
        return AgentOutput(state=name, model=inv.model, kind=kind, ref=result.output_ref,
                           word_count=result.word_count, preview=result.preview, visit=visit,
                           offline=result.usage.offline)

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
            session_tokens=session, offline=bool(getattr(usage, "offline", False)))
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
