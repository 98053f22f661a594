"""Temporal's activity options (timeouts, retry policy, heartbeat) for a policy kind of rules/policies.py — the
one table stays pure (rules/ imports no temporalio); this turns a row of it into what `workflow.execute_activity`
takes."""

from __future__ import annotations

from typing import Any

from temporalio.common import RetryPolicy

from rules.policies import NON_RETRYABLE, ActivityPolicy, policy


def options_of(p: ActivityPolicy) -> dict[str, Any]:
    opts: dict[str, Any] = {
        "start_to_close_timeout": p.start_to_close,
        "schedule_to_close_timeout": p.schedule_to_close,
        "retry_policy": RetryPolicy(
            initial_interval=p.initial_interval, backoff_coefficient=p.backoff,
            maximum_interval=p.maximum_interval, maximum_attempts=p.max_attempts,
            non_retryable_error_types=NON_RETRYABLE,
        ),
    }
    if p.heartbeat is not None:
        opts["heartbeat_timeout"] = p.heartbeat
    return opts


def activity_options(kind: str) -> dict[str, Any]:
    """The options of a policy kind (KeyError naming the kinds for an unknown one)."""
    return options_of(policy(kind))
