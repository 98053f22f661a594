"""Paths belong to the operator, not to the input: the one rule for every path a workflow input names.

The worker's configuration names the folders a workflow may read or write (its *roots*: core/settings.py
`notes_root`, `import_roots`). An input never names a folder on the worker's disk; it names a place *inside* a root
with a relative path, and this module turns (root, relative) into a path, or says clearly why it cannot:

    relative_problem("journal/2024")       -> None
    relative_problem("../../etc")          -> "'../../etc': '..' is not allowed (a path inside the root, …)"
    resolve_inside(Path("/srv/notes"), "alice")   -> Path("/srv/notes/alice")
    locate({"journal": Path("/home/u/journal")}, "journal/2024") -> Path("/home/u/journal/2024")

`relative_problem` is pure (text only): the workflow checks it at the door, where it may not touch the disk.
`resolve_inside` is the same check plus the file system's answer (symbolic links are followed, so a link that
leads out of the root is refused): the activity runs it again before it reads or writes anything.

Refused: an absolute path (`/etc`, `\\\\server\\share`), a drive letter (`C:`), `~` (a home directory), a `..`
segment, NUL or another control character, a backslash (one separator, `/`, on every system), and more than
MAX_RELATIVE_CHARS characters. `.` segments and repeated slashes are harmless and dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

MAX_RELATIVE_CHARS = 1024
_DRIVE = re.compile(r"^[A-Za-z]:")


class PathRefused(ValueError):
    """The path is not inside the configured roots; `str(err)` is the one line to show."""


def relative_problem(text: str) -> str | None:
    """Why `text` is not a relative path inside a root (one line), or None when it is one. Text only."""
    shown = _show(text)
    if len(text) > MAX_RELATIVE_CHARS:
        return f"{shown}: longer than {MAX_RELATIVE_CHARS} characters"
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        return f"{shown}: a control character (NUL, newline, …) is not allowed in a path"
    if "\\" in text:
        return f"{shown}: a backslash is not allowed (separate folders with '/')"
    if text.startswith("/"):
        return f"{shown}: an absolute path is not allowed (give a path inside the root)"
    if _DRIVE.match(text):
        return f"{shown}: a drive letter is not allowed (give a path inside the root)"
    if text.startswith("~"):
        return f"{shown}: '~' (a home directory) is not allowed (give a path inside the root)"
    if ".." in text.split("/"):
        return f"{shown}: '..' is not allowed (give a path inside the root)"
    return None


def parts(text: str) -> tuple[str, ...]:
    """The segments of a relative path that `relative_problem` accepts (`.` and empty segments dropped)."""
    return tuple(p for p in text.split("/") if p not in ("", "."))


def resolve_inside(root: Path, relative: str, what: str = "path") -> Path:
    """`root`/`relative`, resolved (symbolic links followed), or PathRefused when `relative` is not a relative path
    or the result lies outside `root` (a link leading out). `root` is resolved too; it need not exist."""
    problem = relative_problem(relative)
    if problem:
        raise PathRefused(f"{what} {problem}")
    real_root = root.expanduser().resolve()
    target = real_root.joinpath(*parts(relative)).resolve()
    if not target.is_relative_to(real_root):
        raise PathRefused(f"{what} {_show(relative)}: leads outside its root {real_root} (a symbolic link?)")
    return target


def split_root(text: str) -> tuple[str, str]:
    """'journal/2024' -> ('journal', '2024'): the first segment names a root, the rest is inside it."""
    segments = parts(text)
    if not segments:
        return "", ""
    return segments[0], "/".join(segments[1:])


def locate(roots: Mapping[str, Path], text: str, what: str = "directory") -> Path:
    """A path in a set of named roots ('journal/2024': folder 2024 of the root named journal), resolved, or
    PathRefused (not relative, no such root, outside it)."""
    problem = relative_problem(text)
    if problem:
        raise PathRefused(f"{what} {problem}")
    name, rest = split_root(text)
    if name not in roots:
        known = ", ".join(sorted(roots)) or "none configured"
        raise PathRefused(f"{what} {_show(text)}: starts with no configured root (its first folder names one: "
                          f"{known})")
    return resolve_inside(roots[name], rest, what)


def root_problem(roots: Mapping[str, Path], text: str) -> str | None:
    """Text only (the door): why `text` cannot name a place in `roots`, or None. The names are the worker's."""
    problem = relative_problem(text)
    if problem:
        return problem
    name, _ = split_root(text)
    if name not in roots:
        return f"{_show(text)}: starts with no configured root (known: {', '.join(sorted(roots)) or 'none'})"
    return None


def relative_to_roots(roots: Mapping[str, Path], local: Path) -> str | None:
    """The name a local folder has in `roots` ('journal/2024'), or None when it lies in none of them. For a client
    on the worker's machine: it turns the user's folder into what the door accepts. Both sides resolved."""
    real = local.expanduser().resolve()
    best: tuple[int, str] | None = None
    for name, root in roots.items():
        real_root = root.expanduser().resolve()
        if real.is_relative_to(real_root):
            rel = real.relative_to(real_root).as_posix()
            depth = len(real_root.parts)
            text = name if rel in ("", ".") else f"{name}/{rel}"
            if best is None or depth > best[0]:   # the innermost root wins
                best = (depth, text)
    return best[1] if best else None


def subfolder_of(root: Path, local: Path) -> str | None:
    """`local` as a relative path inside `root` ('' for the root itself), or None when it is outside."""
    real, real_root = local.expanduser().resolve(), root.expanduser().resolve()
    if not real.is_relative_to(real_root):
        return None
    rel = PurePosixPath(real.relative_to(real_root).as_posix()).as_posix()
    return "" if rel == "." else rel


def input_path_problems(paths: Mapping[str, str | None], files: list[str] | None = None) -> list[str]:
    """The door's check of a workflow input (text only, no disk): each named path (field -> value; None and ''
    mean the root itself) and each carried file must be a relative path. One line per problem, field first."""
    problems = [f"{field}: {problem}" for field, value in paths.items()
                if value and (problem := relative_problem(value)) is not None]
    for i, name in enumerate(files or []):
        if (problem := relative_problem(name)) is not None or not parts(name):
            problems.append(f"files[{i}]: {problem or 'not a file name'}")
            if len(problems) >= 5:
                break
    return problems


def _show(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= 80 else shown[:79] + "…"
