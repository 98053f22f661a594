"""Discussion tests keep their artifacts (message files, transcripts, reports) in a per-test folder."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def artifact_dir(tmp_path, monkeypatch):
    folder = tmp_path / "artifacts"
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(folder))
    return folder
