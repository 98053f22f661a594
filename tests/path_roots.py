"""Tests that run a notes workflow name their folders the way the door takes them (rules/paths.py): the test's
folder is the worker's notes root and its one import root, `tmp`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

NAMES = ("COLLOQUY_NOTES_DIR", "COLLOQUY_IMPORT_ROOTS")


@contextmanager
def path_roots(folder: Path) -> Iterator[None]:
    """COLLOQUY_NOTES_DIR=folder and COLLOQUY_IMPORT_ROOTS=tmp=folder while inside (in-process workers read them)."""
    before = {name: os.environ.get(name) for name in NAMES}
    os.environ["COLLOQUY_NOTES_DIR"] = str(folder)
    os.environ["COLLOQUY_IMPORT_ROOTS"] = f"tmp={folder}"
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
