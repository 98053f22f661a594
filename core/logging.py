"""structlog set-up: JSON or console lines, each carrying workflow id, run id, activity and agent.

Activity code logs through `structlog.get_logger()`; the processor below adds the Temporal context. Workflow
code uses `workflow.logger` (replay-safe), which Temporal enriches with workflow id/run id itself.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO, cast

import structlog
from temporalio import activity

from core.secrets import install_log_redaction, redact_event


def _temporal_context(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    try:
        info = activity.info()
    except RuntimeError:
        return event
    event.setdefault("workflow_id", info.workflow_id)
    event.setdefault("run_id", info.workflow_run_id)
    event.setdefault("activity", info.activity_type)
    event.setdefault("attempt", info.attempt)
    if info.task_queue.endswith("-llm"):  # agent activities are named after their agent
        event.setdefault("agent", info.activity_type)
    return event


class ExpectedFailureFilter(logging.Filter):
    """One line, no traceback, for an activity attempt that failed with a classified (expected) error.

    The SDK logs every failed attempt as "Completing activity as failed" with the whole traceback (~25 lines,
    twice with the chained cause). An `ApplicationError` is an error the code classified on purpose (rate limit,
    outage, invalid output, not found …): the person reading the log needs the agent, the attempt, the error
    class, the message and what happens next — not a stack. Anything else keeps its traceback.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        from temporalio.exceptions import ApplicationError

        if getattr(record, "__temporal_error_identifier", None) != "ActivityFailure" or not record.exc_info:
            return True
        err = record.exc_info[1]
        if not isinstance(err, ApplicationError):
            return True
        if getattr(err, LOGGED_MARK, False):
            return False  # already logged as one line where it was classified (llm.failed, with its next step)
        info = getattr(record, "activity_info", None)
        details = getattr(record, "temporal_activity", None) or {}
        name = details.get("activity_type", "activity")
        attempt = details.get("attempt", "?")
        record.msg = (f"{name} attempt {attempt} failed: {err.type or 'ApplicationError'}: "
                      f"{bounded(str(err.message), MESSAGE_LIMIT)} — {next_step(err, info)}")
        record.args = ()
        record.exc_info = None
        record.exc_text = None
        return True


LOGGED_MARK = "_colloquy_logged"
#: The longest error message of a one-line attempt failure (an S3 error with its status and S3 code fits whole).
MESSAGE_LIMIT = 800


def bounded(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """`text` on one line, at most `limit` characters, cut at a word boundary (never mid-word, so a status such as
    "503 Service Unavailable" is whole or absent) and ending in "…" when cut."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:-") + "…"


def mark_logged(err: BaseException) -> None:
    """Say that `err` was already logged as one line where it was classified: the SDK's own record of the failed
    attempt is then dropped, so an expected retry is exactly one line."""
    setattr(err, LOGGED_MARK, True)


def next_step(err: Any, info: Any) -> str:
    """What Temporal does after this attempt, from the activity's retry policy ("retry in 2s", "not retried")."""
    policy = getattr(info, "retry_policy", None)
    attempt = getattr(info, "attempt", 1) or 1
    if err.non_retryable or (policy and err.type in (policy.non_retryable_error_types or [])):
        return "not retried (non-retryable)"
    if policy is None:
        return "retried per the activity's retry policy"
    if policy.maximum_attempts and attempt >= policy.maximum_attempts:
        return f"not retried (attempt {attempt} of {policy.maximum_attempts})"
    if err.next_retry_delay is not None:
        delay = err.next_retry_delay.total_seconds()
    else:
        delay = policy.initial_interval.total_seconds() * policy.backoff_coefficient ** (attempt - 1)
        if policy.maximum_interval is not None:
            delay = min(delay, policy.maximum_interval.total_seconds())
    of = f" of {policy.maximum_attempts}" if policy.maximum_attempts else ""
    return f"retry {attempt + 1}{of} in {delay:g}s"


def quiet_expected_activity_failures() -> None:
    """Install the filter on the SDK's activity logger (idempotent)."""
    activity.logger.full_activity_info_on_extra = True
    base = activity.logger.logger
    if not any(isinstance(f, ExpectedFailureFilter) for f in base.filters):
        base.addFilter(ExpectedFailureFilter())


class _CurrentStderr:
    """Whatever `sys.stderr` is at write time (a test runner or CLI runner may swap and close the one that was
    current when logging was configured)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(fmt: str | None = None, level: str | None = None, stream: TextIO | None = None) -> None:
    """COLLOQUY_LOG_FORMAT=json|console, COLLOQUY_LOG_LEVEL; `stream` (default stderr) is for tests."""
    fmt = fmt or os.environ.get("COLLOQUY_LOG_FORMAT", "console")
    level_name = (level or os.environ.get("COLLOQUY_LOG_LEVEL", "INFO")).upper()
    renderer: Any = structlog.processors.JSONRenderer() if fmt == "json" else structlog.dev.ConsoleRenderer(
        colors=sys.stderr.isatty())
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            _temporal_context,
            redact_event,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level_name, logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(file=stream or cast(TextIO, _CurrentStderr())),
        cache_logger_on_first_use=False,
    )
    logging.basicConfig(level=getattr(logging, level_name, logging.INFO), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    install_log_redaction()
    quiet_expected_activity_failures()
    for noisy in ("LiteLLM", "litellm", "httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
