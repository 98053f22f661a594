"""structlog set-up: JSON or console lines, each carrying workflow id, run id, activity and agent.

Activity code logs through `structlog.get_logger()`; the processor below adds the Temporal context. Workflow
code uses `workflow.logger` (replay-safe), which Temporal enriches with workflow id/run id itself.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, TextIO

import structlog
from temporalio import activity


def _temporal_context(_: Any, __: str, event: dict[str, Any]) -> dict[str, Any]:
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
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level_name, logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(file=stream or sys.stderr),
        cache_logger_on_first_use=False,
    )
    logging.basicConfig(level=getattr(logging, level_name, logging.INFO), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    for noisy in ("LiteLLM", "litellm", "httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
