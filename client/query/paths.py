"""The user's folders as the door accepts them (rules/paths.py): a workflow input names a place inside the
worker's configured roots, never a folder of its own. The CLI (and its library) runs on the user's machine, which
for a local worker is the worker's machine: it reads the same roots (core/settings.py) and turns the folder the
user typed into the name the worker knows it by.

    --notes-dir ~/.../notes/alice   ->  notes_dir "alice"       (inside COLLOQUY_NOTES_DIR)
    notes import ~/journal/2024     ->  directory "journal/2024" (COLLOQUY_IMPORT_ROOTS=journal=~/journal)

A relative `--notes-dir` is already a folder inside the worker's notes root and goes as typed. A folder outside the
roots is refused here with what to configure, before any workflow starts.
"""

from __future__ import annotations

import os
from pathlib import Path

from client.errors import CliError
from core.settings import IMPORT_ROOTS_ENV, NOTES_DIR_ENV, import_roots, notes_root
from rules.paths import relative_problem, relative_to_roots, subfolder_of


def notes_dir_for_worker(value: str | None) -> str | None:
    """`--notes-dir` as the door takes it: None (the worker's notes root), a folder inside the notes root as
    typed, or an absolute folder inside this machine's notes root made relative. CliError otherwise."""
    if value is None or not value.strip():
        return None
    path = Path(value).expanduser()
    if not path.is_absolute():
        if (problem := relative_problem(value)) is not None:
            raise CliError(f"--notes-dir {problem}")
        return value
    root = notes_root()
    inside = subfolder_of(root, path)
    if inside is None:
        raise CliError(f"--notes-dir {value}: outside the notes root {root}; the worker keeps notes only under its "
                       f"notes root ({NOTES_DIR_ENV}): give a folder inside it (e.g. a relative name such as "
                       f"'alice'), or set {NOTES_DIR_ENV} for the worker and this command")
    return inside or None


def import_dir_for_worker(directory: Path) -> str:
    """The folder to import as the door takes it: '<root name>/<path inside>' of the import roots
    (COLLOQUY_IMPORT_ROOTS, else `imports` = <data dir>/imports). CliError when the folder is in none of them."""
    try:
        roots = import_roots()
    except ValueError as err:
        raise CliError(str(err)) from None
    name = relative_to_roots(roots, directory)
    if name is None:
        listed = "; ".join(f"{n}={p}" for n, p in sorted(roots.items()))
        folder = directory.expanduser().resolve()
        raise CliError(f"{folder} is outside the folders the worker may import from ({listed}): add it to "
                       f"{IMPORT_ROOTS_ENV} for the worker and this command (e.g. {IMPORT_ROOTS_ENV}="
                       f"journal={folder}{os.pathsep}…), or move the notes under one of them")
    return name
