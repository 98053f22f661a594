import pytest


@pytest.fixture(autouse=True)
def _artifacts(tmp_path, monkeypatch):
    """Each test's retrieved-entry artifacts in its own folder; its folder is the worker's notes root and its one
    import root (`tmp`): paths in inputs are relative to them (rules/paths.py)."""
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    monkeypatch.setenv("COLLOQUY_NOTES_DIR", str(tmp_path))
    monkeypatch.setenv("COLLOQUY_IMPORT_ROOTS", f"tmp={tmp_path}")


@pytest.fixture
def notes(tmp_path):
    from tests.workflows.query.helpers import seed_notes

    root = tmp_path / "notes"
    seed_notes(root)
    return root
