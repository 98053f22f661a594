"""WritingWorkflow's call helpers (workflow code, deterministic): the per-agent timeout raced against an
activity, and which failures are worth retrying a state for. Split from workflows/writing/workflow.py (same code, same
commands)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.exceptions import TimeoutError as TemporalTimeoutError

with workflow.unsafe.imports_passed_through():
    from rules.policies import NON_RETRYABLE, timer_with_recovery


class _BudgetCancelled(Exception):
    """Internal: a fan-out branch cancelled because the run's hard budget was reached."""


async def _with_timeout(call: Any, seconds: float, summary: str, stop: Any = None, recovery: bool = True) -> Any:
    """The per-agent timeout (§3): a workflow timer (named `summary` in the Web UI) races the activity; on expiry
    only this activity is cancelled and asyncio.TimeoutError is raised (the activity's own failure as it is).
    The timer fires after `seconds`, as configured (patch writing-agent-timeout-as-configured): an attempt whose
    worker died mid-call (its heartbeat timeout fails it in seconds) is retried on another worker within that
    budget, which takes up to rules/policies.py RECOVERY_BOUND. Runs started before the patch (`recovery`) add
    RECOVERY_BOUND to the timer, so `timeout_per_agent: 3` fired after 33 s.
    `stop` (a predicate) cancels the activity early and raises _BudgetCancelled (the run's hard budget is spent)."""
    task = asyncio.ensure_future(call)
    timeout = timer_with_recovery(seconds) if recovery else timedelta(seconds=seconds)
    try:
        if stop is None:
            await workflow.wait_condition(task.done, timeout=timeout, timeout_summary=summary)
        else:
            await workflow.wait_condition(lambda: task.done() or stop(), timeout=timeout, timeout_summary=summary)
            if not task.done():
                task.cancel()
                try:
                    await task
                except (ActivityError, asyncio.CancelledError):
                    pass
                raise _BudgetCancelled()
    except TimeoutError:
        task.cancel()
        try:
            await task
        except (ActivityError, asyncio.CancelledError):
            pass
        raise
    return task.result()


def _transient(error: BaseException) -> bool:
    """A failure worth retrying the state for: a timeout, or an activity whose retryable failure outlasted its
    policy (a provider outage); never a permanent error (auth, bad request, config)."""
    if isinstance(error, TimeoutError):
        return True
    if not isinstance(error, ActivityError):
        return False
    cause = error.cause
    if isinstance(cause, TemporalTimeoutError):
        return True
    if isinstance(cause, ApplicationError):
        return not cause.non_retryable and (cause.type or "") not in NON_RETRYABLE
    return False
