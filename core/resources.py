"""Read-only data shipped inside the distribution, found with importlib.resources.

    prompts/   Jinja prompt templates (agents)           configs/   writing pipeline configs (configs/writing)
    domains/   the framework's base domain module        apps/      example apps (apps/fitness: domains, notes)

Each folder is a small Python package (an `__init__.py` and its data files, listed as package data in
pyproject.toml), so a source checkout, an editable install and an installed wheel all find the same files, and
nothing is computed from the source folder. Data the app writes never goes here: see core.settings.data_dir().
"""

from __future__ import annotations

import atexit
from contextlib import ExitStack
from functools import cache
from importlib.resources import as_file, files
from pathlib import Path

#: The data packages (top-level folders of the repository, installed as packages).
DATA_PACKAGES = ("prompts", "configs", "domains", "apps")

_extracted = ExitStack()
atexit.register(_extracted.close)


@cache
def resource_dir(package: str) -> Path:
    """The package's folder as a real directory (for code that globs or checks paths).

    An ordinary install is already on disk; a zipped one is extracted once for the life of the process."""
    ref = files(package)
    if isinstance(ref, Path):
        return ref
    return Path(_extracted.enter_context(as_file(ref)))


def prompts_dir() -> Path:
    return resource_dir("prompts")


def configs_dir() -> Path:
    return resource_dir("configs")


def domains_dir() -> Path:
    return resource_dir("domains")


def apps_dir() -> Path:
    return resource_dir("apps")
