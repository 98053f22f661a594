"""Recorded and spoken audio in the artifact store the environment names (activities/artifact_store.py: the local
folder COLLOQUY_ARTIFACT_DIR, or S3-compatible object storage: COLLOQUY_ARTIFACT_STORE=s3), as bytes, so that
`colloquy serve` replicas and audio workers on other hosts read the same clips. A clip is written before it is
transcribed (a worker killed mid-transcription loses nothing), under the scope `audio-<interview id>`; its
ArtifactRef carries the sha256 of the audio itself.

Encryption follows the transcripts' setting: with COLLOQUY_CODEC_KEYS_FILE set (payload encryption on), each
object is the audio encrypted with the keyring's newest key (AES-256-GCM, the codec of core/codec.py), behind the
header MAGIC; reading decrypts with whichever key of the ring made it. With it off, the plain audio.

Retention: COLLOQUY_AUDIO_RETENTION_DAYS (rules/voice/retention.py). `sweep()` deletes audio files older than
that from a local store; the audio worker runs it at most once an hour (after a transcription). In object storage
the bucket's lifecycle rule on the `audio-` prefix expires them (docs/voice.md).
"""

from __future__ import annotations

import hashlib
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from temporalio.api.common.v1 import Payload
from temporalio.exceptions import ApplicationError

from activities.artifact_store import ArtifactStore, Backend, LocalBackend, key_for, store
from core.codec import CodecError, load_codec
from models.common import ArtifactRef
from rules.voice.retention import expired, parse_days

MAGIC = b"COLLOQUY-AUDIO-ENC1\n"
SCOPE_PREFIX = "audio-"
RETENTION_ENV = "COLLOQUY_AUDIO_RETENTION_DAYS"
SWEEP_EVERY_S = 3600.0
_last_sweep = 0.0


def audio_scope(interview_id: str) -> str:
    return SCOPE_PREFIX + interview_id


class AudioStore:
    """`AudioStore()`: the store the environment names; `AudioStore(root)`: a local folder."""

    def __init__(self, root: Path | None = None) -> None:
        self.files = ArtifactStore(root) if root is not None else store()
        self.backend: Backend = self.files.backend

    @property
    def root(self) -> Path:
        """The folder of a local store (AttributeError for object storage)."""
        return self.files.root

    def exists(self, scope: str, name: str) -> bool:
        if isinstance(self.backend, LocalBackend):
            return self.backend.path(key_for(scope, name)).exists()
        try:
            self.backend.read(key_for(scope, name))
        except FileNotFoundError:
            return False
        return True

    def ref(self, scope: str, name: str, content_type: str) -> ArtifactRef | None:
        """The ref of audio already stored under this name (None when absent or unreadable)."""
        key = key_for(scope, name)
        try:
            data = self._read(self.backend, key, name)
            created = (datetime.fromtimestamp(self.backend.path(key).stat().st_mtime, UTC)
                       if isinstance(self.backend, LocalBackend) else datetime.now(UTC))
        except (OSError, ApplicationError):
            return None
        return ArtifactRef(uri=self.backend.uri(key), name=name, sha256=hashlib.sha256(data).hexdigest(),
                           size_bytes=len(data), content_type=content_type, created_at=created)

    def put(self, scope: str, name: str, data: bytes, content_type: str) -> ArtifactRef:
        key = key_for(scope, name)
        codec = load_codec()
        stored = data
        if codec is not None:
            stored = MAGIC + codec.for_workflow(scope).encrypt(Payload(metadata={"encoding": b"binary/plain"}, data=data)).SerializeToString()
        self.backend.write(key, stored, content_type)  # atomic; errors classified by the backend
        return ArtifactRef(uri=self.backend.uri(key), name=name, sha256=hashlib.sha256(data).hexdigest(),
                           size_bytes=len(data), content_type=content_type, created_at=datetime.now(UTC))

    def get(self, ref: ArtifactRef) -> bytes:
        backend, key = self.files._locate(ref.uri)  # outside this store: a non-retryable ArtifactError
        data = self._read(backend, key, ref.name)
        if hashlib.sha256(data).hexdigest() != ref.sha256:
            raise ApplicationError(f"audio {ref.name} changed since it was written (sha256 mismatch)",
                                   type="ArtifactError", non_retryable=True)
        return data

    @staticmethod
    def _read(backend: Backend, key: str, name: str) -> bytes:
        try:
            raw = backend.read(key)
        except FileNotFoundError as exc:
            raise ApplicationError(f"audio {name} not found (retention may have removed it)",
                                   type="ArtifactNotFound", non_retryable=True) from exc
        if not raw.startswith(MAGIC):
            return raw
        codec = load_codec()
        if codec is None:
            raise ApplicationError(f"audio {name} is encrypted and payload encryption is off here (set "
                                   "COLLOQUY_CODEC_KEYS_FILE)", type="ArtifactError", non_retryable=True)
        try:
            payload = Payload()
            payload.ParseFromString(raw[len(MAGIC):])
            return codec.decrypt(payload).data
        except (CodecError, ValueError) as exc:
            raise ApplicationError(f"audio {name} cannot be decrypted: {exc}", type="ArtifactError",
                                   non_retryable=True) from exc

    def sweep(self, now: datetime | None = None, days: float | None = None) -> int:
        """Delete audio older than the retention setting from a local store; returns how many files went (object
        storage: 0, its lifecycle rule expires them)."""
        days = parse_days(os.environ.get(RETENTION_ENV)) if days is None else days
        if days is None or not isinstance(self.backend, LocalBackend) or not self.root.exists():
            return 0
        now = now or datetime.now(UTC)
        gone = 0
        for folder in self.root.glob(SCOPE_PREFIX + "*"):
            for path in folder.iterdir():
                try:
                    created = datetime.fromtimestamp(path.stat().st_mtime, UTC)
                    if path.is_file() and expired(created, now, days):
                        path.unlink()
                        gone += 1
                except FileNotFoundError:
                    continue
        return gone


def sweep_now_and_then() -> int:
    """The audio worker's retention sweep: at most once per SWEEP_EVERY_S per process."""
    global _last_sweep
    if time.monotonic() - _last_sweep < SWEEP_EVERY_S and _last_sweep:
        return 0
    _last_sweep = time.monotonic()
    return AudioStore().sweep()
