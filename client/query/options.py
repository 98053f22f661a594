"""What every `colloquy notes` command shares: the --app / --notes-dir / --task-queue options, the Temporal
connection and the one-line failure report (client/query/cli.py and client/query/imports.py both use them)."""

from __future__ import annotations

import os
from typing import Any

import typer

from core.settings import TASK_QUEUE

AppOpt: Any = typer.Option(os.environ.get("COLLOQUY_NOTES_APP", "fitness"), "--app",
                      help="Domain app: general, or an app under apps/ (env COLLOQUY_NOTES_APP).")
NotesDirOpt: Any = typer.Option(None, "--notes-dir", help="Notes root (default: the worker's COLLOQUY_NOTES_DIR, "
                           "else .data/notes).")
QueueOpt: Any = typer.Option(TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Task queue of the workers.")


def _report_failure(exc: Exception) -> None:
    """One line and the documented exit code (client/errors.py); a bug keeps its traceback."""
    from client.common import fail

    fail(exc)
