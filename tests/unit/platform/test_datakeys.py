"""Per-participant data keys (core/datakeys.py): the codec seals a participant's payloads under their own key (from
the serialization context), the artifact store and the audio store their objects; destroying the key makes every
copy unreadable, on both artifact backends; deleting a scope removes its objects."""

from __future__ import annotations

import json
import stat
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import ActivitySerializationContext, WorkflowSerializationContext
from temporalio.exceptions import ApplicationError

from activities.artifact_store import ArtifactStore, LocalBackend, S3Backend, key_for
from core.codec import ERASED_META, KEY_ID_META, EncryptionCodec, ErasedError, Keyring, load_codec
from core.datakeys import DataKeys, data_keys_dir, key_id_of, subject_of

SENTENCE = "I hid the spare key to the server room under the fern in reception."
STUDY = "study-2f3a9c"
P002 = f"{STUDY}--P002"


def _payload(text: str = SENTENCE) -> Payload:
    return pydantic_data_converter.payload_converter.to_payloads([text])[0]


@pytest.fixture
def keys(tmp_path, monkeypatch):
    path = Keyring.generate().save(tmp_path / "keys" / "codec-keys.json")
    monkeypatch.setenv("COLLOQUY_CODEC_KEYS_FILE", str(path))
    return path


def test_the_subject_is_the_participant_of_a_workflow_id_or_scope():
    assert subject_of(P002) == P002
    assert subject_of(f"_results-{P002}") == subject_of(f"audio-{P002}") == P002
    assert subject_of(f"rehearsal-{P002}-turn-3") == P002
    assert subject_of(f"{STUDY}--P1000") == f"{STUDY}--P1000"
    assert subject_of(STUDY) is None and subject_of("interview-abc") is None and subject_of(None) is None
    assert subject_of(f"{STUDY}--P0021x") is None or subject_of(f"{STUDY}--P0021x") == f"{STUDY}--P0021"


@given(st.text(min_size=1, max_size=40))
def test_a_key_id_never_holds_the_subject(subject):
    kid = key_id_of(subject)
    assert kid.startswith("dk-") and len(kid) == 35 and (subject not in kid or len(subject) < 3)


async def test_a_participants_payloads_use_their_key_and_die_with_it(keys):
    codec = load_codec(keys)
    assert isinstance(codec, EncryptionCodec)
    mine = codec.with_context(WorkflowSerializationContext(namespace="default", workflow_id=P002))
    activity = codec.with_context(ActivitySerializationContext(
        namespace="default", activity_id="1", activity_type="x", activity_task_queue="q", workflow_id=P002,
        workflow_type="InterviewWorkflow", is_local=False))
    study = codec.with_context(WorkflowSerializationContext(namespace="default", workflow_id=STUDY))
    [sealed] = await mine.encode([_payload()])
    [by_activity] = await activity.encode([_payload()])
    [of_study] = await study.encode([_payload()])
    assert sealed.metadata[KEY_ID_META] == by_activity.metadata[KEY_ID_META] == key_id_of(P002).encode()
    assert of_study.metadata[KEY_ID_META] == codec.keyring.newest.id.encode()
    assert SENTENCE.encode() not in sealed.SerializeToString()
    assert (await codec.decode([sealed]))[0] == _payload()          # the key id says which key: no context needed

    folder = data_keys_dir(keys)
    [file] = folder.glob("dk-*.json")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and stat.S_IMODE(file.stat().st_mode) == 0o600
    assert SENTENCE not in file.read_text() and "wrapped_by" in json.loads(file.read_text())

    assert DataKeys(folder, codec.keyring).destroy(P002)            # another process destroys it
    with pytest.raises(ErasedError, match="destroyed"):
        codec.decrypt(sealed)
    [erased] = await codec.decode([sealed])                          # a replaying workflow reads null
    assert erased.metadata[ERASED_META] == b"true" and erased.data == b"null"
    assert (await codec.decode_readable([sealed]))[0] == sealed      # the codec server shows the ciphertext
    [after] = await mine.encode([_payload()])                        # a replay re-encodes: nobody can read it
    with pytest.raises(ErasedError):
        codec.decrypt(after)
    assert (await codec.decode([of_study]))[0] == _payload()         # the study's own payloads are untouched
    assert not DataKeys(folder, codec.keyring).destroy(P002)         # idempotent


def _backend(kind: str, tmp_path, request, monkeypatch):
    if kind == "local":
        return LocalBackend(tmp_path / "artifacts")
    seaweed = request.getfixturevalue("seaweed")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", seaweed.access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", seaweed.secret_key)
    return S3Backend("colloquy", seaweed.endpoint, prefix=f"dk-{uuid.uuid4().hex[:8]}")


@pytest.mark.parametrize("kind", ["local", "s3"])
def test_artifacts_are_sealed_per_participant_and_erased_with_their_scope(kind, keys, tmp_path, request,
                                                                           monkeypatch):
    backend = _backend(kind, tmp_path, request, monkeypatch)
    s = ArtifactStore(backend=backend, encrypt=True)
    ref = s.put(P002, "transcript.md", SENTENCE)
    s.put(P002, "notes.json", "{}")
    kept = s.put(STUDY, "findings.md", "the study's own")
    raw = backend.read(key_for(P002, "transcript.md"))
    assert key_id_of(P002).encode() in raw and SENTENCE.encode() not in raw
    assert s.get(ref) == SENTENCE and sorted(s.names(P002)) == ["notes.json", "transcript.md"]

    codec = load_codec(keys)
    assert codec is not None and codec.data_keys is not None
    codec.data_keys.destroy(P002)
    with pytest.raises(ApplicationError, match="erased") as err:
        s.get(ref)
    assert err.value.non_retryable
    assert s.delete_scope(P002) == 2 and s.names(P002) == [] and s.delete_scope(P002) == 0
    assert not s.delete(P002, "transcript.md")
    assert s.get(kept) == "the study's own"


async def test_without_a_writable_data_key_folder_the_keyring_key_is_used(tmp_path, monkeypatch):
    """A read-only key mount (a Kubernetes Secret) and no COLLOQUY_CODEC_DATA_KEYS_DIR: payloads and artifacts of
    participants are sealed with the keyring key as before (still deleted by an erasure), never a failed task."""
    keys = Keyring.generate().save(tmp_path / "keys.json")
    monkeypatch.setenv("COLLOQUY_CODEC_KEYS_FILE", str(keys))
    (tmp_path / "not-a-folder").write_text("x")
    monkeypatch.setenv("COLLOQUY_CODEC_DATA_KEYS_DIR", str(tmp_path / "not-a-folder" / "dk"))
    codec = load_codec(keys)
    assert codec is not None
    [sealed] = await codec.for_workflow(P002).encode([_payload()])
    assert sealed.metadata[KEY_ID_META] == codec.keyring.newest.id.encode()
    assert (await codec.decode([sealed]))[0] == _payload()
    s = ArtifactStore(backend=LocalBackend(tmp_path / "artifacts"), encrypt=True)
    assert s.get(s.put(P002, "transcript.md", SENTENCE)) == SENTENCE
