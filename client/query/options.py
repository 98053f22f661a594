"""What every `colloquy notes` command shares: the --app / --notes-dir / --task-queue options, the Temporal
connection and the one-line failure report (client/query/cli.py and client/query/imports.py both use them)."""

from __future__ import annotations

import os
from typing import Any

import typer

from core.settings import TASK_QUEUE

AppOpt: Any = typer.Option(os.environ.get("COLLOQUY_NOTES_APP", "fitness"), "--app",
                      help="Domain app: general, or an app under apps/ (env COLLOQUY_NOTES_APP).")
def _notes_dir_option(value: str | None) -> str | None:
    """--notes-dir as the worker's door takes it (client/query/paths.py), or a usage error (exit 2) naming why."""
    from client.errors import CliError
    from client.query.paths import notes_dir_for_worker

    try:
        return notes_dir_for_worker(value)
    except CliError as err:
        raise typer.BadParameter(err.message.removeprefix("--notes-dir ")) from None


NotesDirOpt: Any = typer.Option(None, "--notes-dir", callback=_notes_dir_option, help="A folder inside the worker's notes root "
                           "(COLLOQUY_NOTES_DIR, else .data/notes), e.g. 'alice'; default: the root itself. A "
                           "path outside the root is refused.")
QueueOpt: Any = typer.Option(TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Task queue of the workers.")


def _report_failure(exc: Exception) -> None:
    """One line and the documented exit code (client/errors.py); a bug keeps its traceback."""
    from client.common import fail

    fail(exc)
