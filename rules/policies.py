"""The one table of activity timeouts and retry policies, by kind. Workflows never spell out a timeout.

Kinds:
  live_agent  — agents inside the live interview cycle: short, few attempts; the workflow falls back instead.
  fast_agent  — routing/classifying agents.
  agent       — ordinary agents.
  long_agent  — long generations (essays, drafts, synthesis).
  storage     — file/DB access (notes repository, history DB).
  artifact    — artifact store reads/writes.

Which failures are retried (transient) and which are not (final): rules/retry_classes.py, one table for every kind.

Failure detection (docs/platform.md "Timeouts, heartbeats and recovery"): every agent kind has a heartbeat
timeout of AGENT_HEARTBEAT_TIMEOUT (agents heartbeat every 5 s while a model works, activities/agents/base.py),
so an attempt on a worker that was killed is failed by the server within ~2 heartbeat intervals and retried on
another worker, instead of waiting out its start-to-close timeout. Every schedule-to-close leaves room for all
attempts (start-to-close x attempts + backoff). RECOVERY_BOUND is what a workflow-side timer racing an activity
adds to its budget so that one crashed attempt can still be retried.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from rules.retry_classes import FINAL_TYPES

#: Final failures, never retried by Temporal (every policy's `non_retryable_error_types`; the activity raises them
#: non_retryable too): the FINAL rows of the classification table, rules/retry_classes.py. The transient failures
#: of the same stores (ArtifactUnavailable, StorageUnavailable, StorageRetry) are retried under the policy.
NON_RETRYABLE: list[str] = list(FINAL_TYPES)


@dataclass(frozen=True)
class ActivityPolicy:
    start_to_close: timedelta
    schedule_to_close: timedelta
    max_attempts: int
    initial_interval: timedelta = timedelta(seconds=1)
    maximum_interval: timedelta = timedelta(seconds=30)
    backoff: float = 2.0
    heartbeat: timedelta | None = None


#: An agent attempt that sent no heartbeat for this long is failed (its worker is gone) and retried elsewhere.
#: Agents heartbeat every 5 s (HEARTBEAT_EVERY_S); the SDK forwards them at most every 0.8 x this timeout.
AGENT_HEARTBEAT_TIMEOUT = timedelta(seconds=12)

#: Detection (AGENT_HEARTBEAT_TIMEOUT) + first retry backoff + dispatch to another worker, with margin: the most a
#: crash mid-call adds before the retry runs. A workflow timer that races an agent activity adds this to its budget.
RECOVERY_BOUND = timedelta(seconds=30)

POLICIES: dict[str, ActivityPolicy] = {
    "live_agent": ActivityPolicy(timedelta(seconds=45), timedelta(seconds=100), max_attempts=2,
                                 maximum_interval=timedelta(seconds=5), heartbeat=AGENT_HEARTBEAT_TIMEOUT),
    "fast_agent": ActivityPolicy(timedelta(seconds=60), timedelta(minutes=5), max_attempts=4,
                                 heartbeat=AGENT_HEARTBEAT_TIMEOUT),
    "agent": ActivityPolicy(timedelta(seconds=120), timedelta(minutes=9), max_attempts=4,
                            heartbeat=AGENT_HEARTBEAT_TIMEOUT),
    "long_agent": ActivityPolicy(timedelta(seconds=300), timedelta(minutes=20), max_attempts=3,
                                 heartbeat=AGENT_HEARTBEAT_TIMEOUT),
    # A store's transient failure (an outage, throttling: rules/retry_classes.py) is retried for about a minute
    # (backoffs 0.2, 0.4 … 15 s: 55 s in all), so a restart of the object store or the database does not fail the workflow.
    "storage": ActivityPolicy(timedelta(seconds=30), timedelta(minutes=6), max_attempts=10,
                              initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=15)),
    "artifact": ActivityPolicy(timedelta(seconds=30), timedelta(minutes=6), max_attempts=10,
                               initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=15)),
}


def retry_window(policy: ActivityPolicy) -> timedelta:
    """The longest all attempts of a policy can take: start-to-close x attempts + every backoff between them."""
    backoff = timedelta(0)
    interval = policy.initial_interval
    for _ in range(policy.max_attempts - 1):
        backoff += min(interval, policy.maximum_interval)
        interval = interval * policy.backoff
    return policy.start_to_close * policy.max_attempts + backoff


def timer_with_recovery(budget_s: float) -> timedelta:
    """A workflow timer racing an agent activity with a budget of `budget_s`: the budget plus RECOVERY_BOUND, so an
    attempt whose worker died (detected by its heartbeat timeout) is retried on another worker before it fires."""
    return timedelta(seconds=budget_s) + RECOVERY_BOUND


def policy(kind: str) -> ActivityPolicy:
    """The policy of a kind; KeyError naming the kinds for an unknown one. (Temporal's options for it:
    `workflows.activity_options.activity_options`.)"""
    try:
        return POLICIES[kind]
    except KeyError:
        raise KeyError(f"unknown activity policy kind {kind!r}: one of {sorted(POLICIES)}") from None
