"""The artifact store's contract, the same cases on both backends — a local folder and a real S3-compatible server
(SeaweedFS, tests/seaweedfs.py): atomic writes, refs that round-trip, chunked reads, tamper/oversize/unknown-ref
errors, encryption at rest, and credentials that never show up in a ref or a message."""

from __future__ import annotations

import hashlib
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from temporalio.exceptions import ApplicationError

from activities import artifact_store
from activities.artifact_store import SEALED, ArtifactStore, LocalBackend, S3Backend, Sealer, key_for, store
from core.codec import Keyring
from core.settings import ArtifactSettings, ArtifactSettingsError

BACKENDS = ["local", "s3"]


def _backend(kind: str, tmp_path, seaweed, monkeypatch):
    if kind == "local":
        return LocalBackend(tmp_path / "my artifacts ü")  # a space and non-ASCII in the root
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", seaweed.access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", seaweed.secret_key)
    return S3Backend("colloquy", seaweed.endpoint, prefix=f"t-{uuid.uuid4().hex[:8]}/ä b")


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path, monkeypatch):
    seaweed = request.getfixturevalue("seaweed") if request.param == "s3" else None
    return _backend(request.param, tmp_path, seaweed, monkeypatch)


@pytest.fixture
def keys(tmp_path, monkeypatch):
    path = Keyring.generate().save(tmp_path / "keys.json")
    monkeypatch.setenv("COLLOQUY_CODEC_KEYS_FILE", str(path))
    return path


def test_put_get_round_trip(backend):
    s = ArtifactStore(backend=backend)
    ref = s.put("wf-1", "essay.md", "# Essay\n\nhällo")
    assert ref.uri.startswith("file://" if isinstance(backend, LocalBackend) else "s3://colloquy/t-")
    assert "%20" in ref.uri  # percent-encoded
    assert s.get(ref) == "# Essay\n\nhällo" and s.get(ref.uri) == "# Essay\n\nhällo"
    assert ref.size_bytes == len("# Essay\n\nhällo".encode()) and s.holds(ref)
    again = s.put("wf-1", "essay.md", "# Essay\n\nhällo")  # a retried activity writes the same ref
    assert (again.uri, again.sha256) == (ref.uri, ref.sha256)
    assert s.read_optional("wf-1", "essay.md") == "# Essay\n\nhällo" and s.read_optional("wf-1", "nope") is None
    if isinstance(backend, LocalBackend):
        assert ArtifactStore.local_path(ref).read_text() == "# Essay\n\nhällo"
        assert not [p for p in s.path_for("wf-1", "x").parent.iterdir() if p.name.startswith(".tmp-")]


def test_chunks_put_the_whole_back_together(backend):
    s = ArtifactStore(backend=backend)
    text = "".join(f"line {i} — ü\n" for i in range(400))
    ref = s.put("wf-c", "long.md", text)
    data, offset = b"", 0
    while True:
        piece, size = s.read_chunk(ref, offset, 1000)
        assert size == ref.size_bytes
        data += piece
        offset += len(piece)
        if not piece or offset >= size:
            break
    assert hashlib.sha256(data).hexdigest() == ref.sha256
    empty = s.put("wf-c", "empty.md", "")
    assert s.read_chunk(empty, 0, 1000) == (b"", 0) and s.get(empty) == ""


def test_path_components_are_sanitised(backend):
    s = ArtifactStore(backend=backend)
    ref = s.put("../../etc", "pass wd", "x")
    assert backend.key_of(ref.uri) == "etc/pass_wd" and s.get(ref) == "x"
    with pytest.raises(ApplicationError, match="invalid artifact path component"):
        s.put("...", "name", "x")


def test_changed_missing_and_foreign_artifacts_are_errors(backend, tmp_path):
    s = ArtifactStore(backend=backend)
    ref = s.put("wf-2", "notes.md", "original")
    backend.write(key_for("wf-2", "notes.md"), b"edited behind our back", "text/plain")
    with pytest.raises(ApplicationError, match="sha256 mismatch") as err:
        s.get(ref)
    assert err.value.non_retryable
    with pytest.raises(ApplicationError, match="changed since it was written"):
        s.read_chunk(ref, 0, 100)
    gone = ref.model_copy(update={"uri": ref.uri.replace("notes.md", "gone.md")})
    with pytest.raises(ApplicationError, match="not found") as err:
        s.get(gone)
    assert err.value.type == "ArtifactNotFound"
    with pytest.raises(ApplicationError, match="not found") as err:
        s.read_chunk(gone, 0, 10)
    assert err.value.type == "ArtifactNotFound"
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    for foreign in (outside.as_uri(), "s3://another-bucket/wf-2/notes.md"):
        with pytest.raises(ApplicationError, match="outside the store"):
            s.get(foreign)
        assert not s.holds(foreign)


def test_oversized_artifact_is_refused(backend, monkeypatch):
    monkeypatch.setattr(artifact_store, "MAX_ARTIFACT_BYTES", 10)
    s = ArtifactStore(backend=backend)
    with pytest.raises(ApplicationError, match="over the 10 limit") as err:
        s.put("wf-3", "big.txt", "x" * 11)
    assert err.value.non_retryable and s.read_optional("wf-3", "big.txt") is None


def test_encryption_at_rest(backend, keys, monkeypatch):
    """Sealed with the payload keys: the bytes at rest hold no plain text; reads, chunks and the sha256 are the
    plain text's; a rotated keyring still opens it; without the keys it is a clear, non-retryable error."""
    s = ArtifactStore(backend=backend, encrypt=True)
    text = "Interviewee: my doctor said the scan was clear. " * 50
    ref = s.put("wf-e", "transcript.md", text)
    raw = backend.read(key_for("wf-e", "transcript.md"))
    assert raw.startswith(SEALED) and b"doctor" not in raw
    assert ref.sha256 == hashlib.sha256(text.encode()).hexdigest() and ref.size_bytes == len(text.encode())
    assert s.get(ref) == text and s.read_optional("wf-e", "transcript.md") == text
    assert s.read_chunk(ref, 10, 20) == (text.encode()[10:30], len(text.encode()))
    Keyring.load(keys).with_new_key().save(keys)  # rotation: the old key still opens it
    assert ArtifactStore(backend=backend).get(ref) == text
    backend.write(key_for("wf-e", "tampered.md"), raw[:-1] + bytes([raw[-1] ^ 1]), "text/plain")
    with pytest.raises(ApplicationError, match="does not decrypt"):
        s.get(ref.model_copy(update={"uri": backend.uri(key_for("wf-e", "tampered.md"))}))
    monkeypatch.delenv("COLLOQUY_CODEC_KEYS_FILE")
    with pytest.raises(ApplicationError, match="is encrypted: set COLLOQUY_CODEC_KEYS_FILE") as err:
        s.get(ref)
    assert err.value.non_retryable


def test_settings_choose_the_backend_and_encryption(tmp_path, seaweed, monkeypatch, keys):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "local"))
    assert isinstance(store().backend, LocalBackend) and not store().encrypt  # local default: plain files, 0600
    prefix = f"env-{uuid.uuid4().hex[:8]}"
    for name, value in seaweed.env(prefix=prefix).items():
        monkeypatch.setenv(name, value)
    s = store()
    assert isinstance(s.backend, S3Backend) and s.encrypt  # object storage + payload keys: sealed by default
    ref = s.put("wf-s", "a.md", "über")
    assert ref.uri == f"s3://colloquy/{prefix}/wf-s/a.md" and s.get(ref) == "über"
    monkeypatch.setenv("COLLOQUY_ARTIFACT_ENCRYPTION", "off")
    assert not store().encrypt
    old = ArtifactStore(tmp_path / "local").put("wf-s", "before.md", "written before the switch")
    assert store().get(old) == "written before the switch"  # local refs of this host still open
    with pytest.raises(ArtifactSettingsError, match="COLLOQUY_S3_BUCKET"):
        ArtifactSettings.from_env({"COLLOQUY_ARTIFACT_STORE": "s3"})
    with pytest.raises(ArtifactSettingsError, match="expected 'local' or 's3'"):
        ArtifactSettings.from_env({"COLLOQUY_ARTIFACT_STORE": "ftp"})
    with pytest.raises(ArtifactSettingsError, match="needs COLLOQUY_CODEC_KEYS_FILE"):
        ArtifactSettings(encryption="on").encrypted(keys_file_set=False)
    monkeypatch.setenv("COLLOQUY_ARTIFACT_STORE", "nfs")
    with pytest.raises(ApplicationError, match="artifact store: .*nfs") as err:
        store()
    assert err.value.non_retryable


def test_wrong_credentials_are_refused_without_showing_them(seaweed, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", seaweed.access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret-Zq9")
    s = ArtifactStore(backend=S3Backend("colloquy", seaweed.endpoint))
    with pytest.raises(ApplicationError, match="access denied") as err:
        s.put("wf-x", "a.md", "x")
    assert err.value.non_retryable and "not-the-secret-Zq9" not in str(err.value)
    assert seaweed.secret_key not in repr(seaweed)


# ------------------------------------------------------------------------------------------ properties
TEXT = st.text(st.characters(codec="utf-8"), max_size=3000)  # no lone surrogates: text the store can hold
PART = st.text(min_size=1, max_size=40).filter(lambda p: artifact_store._SAFE.sub("_", p).strip("._"))


@pytest.mark.parametrize("sealed", [False, True], ids=["plain", "sealed"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, scope=PART, name=PART, chunk=st.integers(1, 700))
def test_any_text_round_trips_whole_and_in_chunks(backend, keys, sealed, text, scope, name, chunk):
    """Whatever the text and names: get returns the text, the ref's sha256 and size are the text's, and chunks of
    any size put it back together; sealed or not, on either backend."""
    s = ArtifactStore(backend=backend, encrypt=sealed)
    ref = s.put(scope, name, text)
    data = text.encode()
    assert s.get(ref) == text and ref.sha256 == hashlib.sha256(data).hexdigest() and ref.size_bytes == len(data)
    pieces, offset = [], 0
    while offset < len(data):
        piece, size = s.read_chunk(ref, offset, chunk)
        assert size == len(data) and piece
        pieces.append(piece)
        offset += len(piece)
    assert b"".join(pieces) == data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=500), flip=st.integers(0, 10_000))
def test_a_sealed_artifact_with_any_byte_changed_never_opens(keys, data, flip):
    sealer = Sealer(Keyring.load(keys))
    blob = sealer.seal(data)
    assert sealer.open(blob, "x") == data
    i = flip % len(blob)
    with pytest.raises(ApplicationError):
        sealer.open(blob[:i] + bytes([blob[i] ^ 0x41]) + blob[i + 1:], "x")
