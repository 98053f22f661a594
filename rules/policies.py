"""The one table of activity timeouts and retry policies, by kind. Workflows never spell out a timeout.

Kinds:
  live_agent  — agents inside the live interview cycle: short, few attempts; the workflow falls back instead.
  fast_agent  — routing/classifying agents.
  agent       — ordinary agents.
  long_agent  — long generations (essays, drafts, synthesis).
  storage     — file/DB access (notes repository, history DB).
  artifact    — artifact store reads/writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from temporalio.common import RetryPolicy

# Permanent failures: never retried by Temporal (the activity raises them non_retryable too).
NON_RETRYABLE = [
    "LLMAuthError", "LLMBadRequest", "LLMModelNotFound", "LLMContextWindowExceeded",
    "ArtifactError", "ArtifactNotFound", "StorageError", "ValidationError", "ConfigError",
]


@dataclass(frozen=True)
class ActivityPolicy:
    start_to_close: timedelta
    schedule_to_close: timedelta
    max_attempts: int
    initial_interval: timedelta = timedelta(seconds=1)
    maximum_interval: timedelta = timedelta(seconds=30)
    backoff: float = 2.0
    heartbeat: timedelta | None = None

    def options(self) -> dict[str, Any]:
        opts: dict[str, Any] = {
            "start_to_close_timeout": self.start_to_close,
            "schedule_to_close_timeout": self.schedule_to_close,
            "retry_policy": RetryPolicy(
                initial_interval=self.initial_interval, backoff_coefficient=self.backoff,
                maximum_interval=self.maximum_interval, maximum_attempts=self.max_attempts,
                non_retryable_error_types=NON_RETRYABLE,
            ),
        }
        if self.heartbeat is not None:
            opts["heartbeat_timeout"] = self.heartbeat
        return opts


POLICIES: dict[str, ActivityPolicy] = {
    "live_agent": ActivityPolicy(timedelta(seconds=45), timedelta(seconds=100), max_attempts=2,
                                 maximum_interval=timedelta(seconds=5)),
    "fast_agent": ActivityPolicy(timedelta(seconds=60), timedelta(minutes=4), max_attempts=4),
    "agent": ActivityPolicy(timedelta(seconds=120), timedelta(minutes=8), max_attempts=4),
    "long_agent": ActivityPolicy(timedelta(seconds=300), timedelta(minutes=20), max_attempts=3),
    "storage": ActivityPolicy(timedelta(seconds=30), timedelta(minutes=2), max_attempts=5,
                              initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=5)),
    "artifact": ActivityPolicy(timedelta(seconds=30), timedelta(minutes=2), max_attempts=5,
                               initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=5)),
}


def activity_options(kind: str) -> dict[str, Any]:
    try:
        return POLICIES[kind].options()
    except KeyError:
        raise KeyError(f"unknown activity policy kind {kind!r}: one of {sorted(POLICIES)}") from None
