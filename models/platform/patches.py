"""The platform helpers' patch ids (ReadArtifactWorkflow; see models/patches/__init__.py)."""

from __future__ import annotations

from datetime import date

from models.patches.registry import declare

ARTIFACT_READ_SEARCH_ATTRIBUTES = declare(
    "platform", "artifact-read-search-attributes", ("platform_read_artifact",), date(2026, 11, 26),
    "ReadArtifactWorkflow upserts ColloquyPipeline=artifact (the Web UI's list leaves helpers out)")
