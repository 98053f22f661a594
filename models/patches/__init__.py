"""The registry of `workflow.patched` ids, one module per pipeline (interview, query, study, writing, discussion)
and one for the platform's helper workflows (platform: ReadArtifactWorkflow).

Every behaviour change that changes a workflow's commands runs behind `workflow.patched(<id>)`: histories recorded
before it replay the old way, new runs take the new way. Each id is declared once, in its pipeline's module, with
the recorded histories (tests/histories/<name>.json) that pin it — replayed by the tests/workflows/**/test_replay*
tests — and the date after which it may be retired. Workflows and rules use the constants, never a string.

Retiring a patch, after `retire_after` (every run started before the change has finished and its history is past
the namespace's retention): first `workflow.deprecate_patch(<id>)` in place of the `patched` branch (new-path code
only; runs recorded with the marker still replay), then, once those histories have aged out too, drop the id, its
old path and the histories that pinned it (tests/unit/platform/test_patch_registry.py checks all of this).
"""

from __future__ import annotations

from models.patches.registry import REGISTRY, RETENTION, Patch, declare

__all__ = ["REGISTRY", "RETENTION", "Patch", "all_patches", "declare"]


def all_patches() -> dict[str, Patch]:
    """Every registered patch (importing every pipeline's module declares them)."""
    from models.discussion import patches as _discussion  # noqa: F401
    from models.interview import patches as _interview  # noqa: F401
    from models.platform import patches as _platform  # noqa: F401
    from models.query import patches as _query  # noqa: F401
    from models.study import patches as _study  # noqa: F401
    from models.writing import patches as _writing  # noqa: F401

    return dict(REGISTRY)
