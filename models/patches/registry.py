"""The patch registry's entries (see models/patches/__init__.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

#: How long a history recorded before a change can still matter: the longest a run lives (studies run for weeks)
#: plus the namespace's retention, with margin.
RETENTION = timedelta(days=90)


@dataclass(frozen=True)
class Patch:
    id: str                       # the `workflow.patched` id (part of recorded histories: never renamed)
    pipeline: str                 # interview | query | study | writing | discussion | platform
    pinned_by: tuple[str, ...]    # tests/histories/<name>.json that replay through it (before and/or after)
    since: date                   # when the change shipped
    what: str                     # what the new path does

    @property
    def retire_after(self) -> date:
        return self.since + RETENTION


REGISTRY: dict[str, Patch] = {}


def declare(pipeline: str, id: str, pinned_by: tuple[str, ...], since: date, what: str) -> str:
    """Register a patch id (once) and return it, for the pipeline's module to keep as a constant."""
    if id in REGISTRY:
        raise ValueError(f"patch id {id!r} is declared twice")
    REGISTRY[id] = Patch(id, pipeline, pinned_by, since, what)
    return id
