"""The artifact store: atomic writes, refs that round-trip, tamper/oversize/unknown-ref errors."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError

from activities import artifacts
from activities.artifacts import ArtifactStore


@pytest.fixture
def store(tmp_path):
    return ArtifactStore(tmp_path / "my artifacts ü")  # a space and non-ASCII in the root


def test_put_get_round_trip_with_an_unusual_root(store):
    ref = store.put("wf-1", "essay.md", "# Essay\n\nhällo")
    assert ref.uri.startswith("file://") and "%20" in ref.uri  # percent-encoded URI
    assert store.get(ref) == "# Essay\n\nhällo" and store.get(ref.uri) == "# Essay\n\nhällo"
    assert ArtifactStore.local_path(ref).read_text() == "# Essay\n\nhällo"
    assert ref.size_bytes == len("# Essay\n\nhällo".encode())
    again = store.put("wf-1", "essay.md", "# Essay\n\nhällo")  # a retried activity writes the same ref
    assert (again.uri, again.sha256) == (ref.uri, ref.sha256)
    assert not [p for p in store.path_for("wf-1", "x").parent.iterdir() if p.name.startswith(".tmp-")]


def test_path_components_are_sanitised(store):
    ref = store.put("../../etc", "pass wd", "x")
    assert ArtifactStore.local_path(ref).is_relative_to(store.root)
    with pytest.raises(ApplicationError, match="invalid artifact path component"):
        store.put("...", "name", "x")


def test_changed_missing_and_foreign_artifacts_are_errors(store, tmp_path):
    ref = store.put("wf-2", "notes.md", "original")
    ArtifactStore.local_path(ref).write_text("edited behind our back")
    with pytest.raises(ApplicationError, match="sha256 mismatch") as err:
        store.get(ref)
    assert err.value.non_retryable
    with pytest.raises(ApplicationError, match="not found") as err:
        store.get(ref.model_copy(update={"uri": ref.uri.replace("notes.md", "gone.md")}))
    assert err.value.type == "ArtifactNotFound"
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    with pytest.raises(ApplicationError, match="outside the store"):
        store.get(outside.as_uri())


def test_oversized_artifact_is_refused(store, monkeypatch):
    monkeypatch.setattr(artifacts, "MAX_ARTIFACT_BYTES", 10)
    with pytest.raises(ApplicationError, match="over the 10 limit") as err:
        store.put("wf-3", "big.txt", "x" * 11)
    assert err.value.non_retryable and not store.path_for("wf-3", "big.txt").exists()
