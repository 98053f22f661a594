"""Where the notes pipeline may read and write: the worker's configured roots, never a path from the input
(rules/paths.py has the rule; core/settings.py `notes_root` and `import_roots` the configuration).

The workflow checks an input's paths at the door; every activity checks them again here before it touches the disk
(defence in depth: an activity can be scheduled by a run that started before the door checked anything). A path
that is refused raises InvalidRequest, which the storage activities turn into a non-retryable ValidationError.

An absolute path is still accepted here when it lies inside a root: the runs started before the door existed sent
absolute paths, and those that stay inside the roots go on as they were.
"""

from __future__ import annotations

from pathlib import Path

from activities.query.notes_repository import InvalidRequest
from core.settings import import_roots, notes_root
from rules.paths import PathRefused, locate, relative_to_roots, resolve_inside, subfolder_of


def notes_dir(explicit: str | None = None) -> Path:
    """The notes folder of a request: the notes root (COLLOQUY_NOTES_DIR, else <data dir>/notes), or the folder
    `explicit` names inside it. InvalidRequest when `explicit` leads anywhere else."""
    root = notes_root()
    if not explicit:
        return root
    if Path(explicit).is_absolute():   # a run started before the door: fine while it stays inside the root
        inside = subfolder_of(root, Path(explicit))
        if inside is None:
            raise InvalidRequest(f"notes_dir {explicit!r}: outside the worker's notes root {root} (COLLOQUY_NOTES_DIR); "
                                 "give a folder inside it")
        return root / inside if inside else root
    try:
        return resolve_inside(root, explicit, "notes_dir")
    except PathRefused as err:
        raise InvalidRequest(str(err)) from None


def import_dir(directory: str) -> Path:
    """The folder (or file) an import reads: `directory` names a configured import root and a path inside it
    ('journal/2024'). InvalidRequest when it names anything else, or the roots are misconfigured."""
    try:
        roots = import_roots()
    except ValueError as err:
        raise InvalidRequest(str(err)) from None
    if Path(directory).is_absolute():  # a run started before the door
        if relative_to_roots(roots, Path(directory)) is None:
            raise InvalidRequest(f"import directory {directory!r}: outside the worker's import roots "
                                 f"({', '.join(sorted(roots))}; COLLOQUY_IMPORT_ROOTS)")
        return Path(directory).expanduser().resolve()
    try:
        return locate(roots, directory, "import directory")
    except PathRefused as err:
        raise InvalidRequest(str(err)) from None


def import_file(root: Path, rel: str) -> Path:
    """A file of an import, inside its folder (a listed file, or one carried across continue-as-new)."""
    try:
        return resolve_inside(root, rel, "file")
    except PathRefused as err:
        raise InvalidRequest(str(err)) from None
