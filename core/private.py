"""Personal data stays private on disk: files Colloquy writes are 0600, its folders 0700.

`private_umask()` is called once by each entry point (`colloquy ...`, so workers too): every file and folder
the process (and a server it starts) creates afterwards is readable by its owner only. `private_dir(path)`
makes (or tightens) one folder, e.g. the data dir `.data/`; `private_file(path)` tightens a file made before.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PRIVATE_UMASK = 0o077


def private_umask() -> int:
    """Add group/other bits to the process umask; returns the previous umask."""
    previous = os.umask(PRIVATE_UMASK)
    os.umask(previous | PRIVATE_UMASK)
    return previous


def private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(PermissionError):  # a shared folder we do not own stays as it is
        os.chmod(path, 0o700)
    return path


def private_file(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError, PermissionError):
        os.chmod(path, 0o600)
