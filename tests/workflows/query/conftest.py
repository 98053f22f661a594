import pytest


@pytest.fixture(autouse=True)
def _artifacts(tmp_path, monkeypatch):
    """Each test's retrieved-entry artifacts in its own folder."""
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))


@pytest.fixture
def notes(tmp_path):
    from tests.workflows.query.helpers import seed_notes

    root = tmp_path / "notes"
    seed_notes(root)
    return root
