"""Per-participant data keys: envelope encryption under the keyring, so one participant's data can be destroyed.

With payload encryption on (core/codec.py), every payload of a study participant's interview — the interview
workflow's own payloads, its activities', the signals and updates sent to it, its failures — is encrypted under
that participant's own data key instead of the keyring's newest key. The participant is the `subject`: the
interview's workflow id `<study id>--P002` (`subject_of` finds it in the workflow id of the payload's context,
also for the `_results-…`, `rehearsal-…` and `audio-…` ids and artifact scopes derived from it).

A data key is 32 random bytes, stored only wrapped (AES-256-GCM under the keyring's newest key, its id
authenticated) in a file of its own in the data-key folder beside the key file: `COLLOQUY_CODEC_DATA_KEYS_DIR`,
else `<key file>.data-keys/` (mode 0700, files 0600). It is never in a payload, a history, an artifact or a log.

`destroy(subject)` (a withdrawal; activities/study/erasure.py) overwrites and deletes that file and leaves a
tombstone: from then on every copy of that participant's payloads — the histories, temporal.db, its backups —
is ciphertext nobody can open (crypto-shredding), and no new payload can be encrypted for that subject.
Every process (workers, clients, `colloquy serve`) must see the same folder, as they see the same key file.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import secrets
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.codec import Keyring

DATA_KEYS_DIR_ENV = "COLLOQUY_CODEC_DATA_KEYS_DIR"
DATA_KEY_PREFIX = "dk-"
KEY_BYTES = 32
NONCE_BYTES = 12
TOMBSTONE = ".erased"
_SUBJECT = re.compile(r"^(?P<subject>[A-Za-z0-9][\w.\-]*?--P\d{3,})(?=$|\D)")
_DERIVED = ("_results-", "rehearsal-", "audio-")  # ids and scopes derived from an interview id

__all__ = ["DATA_KEYS_DIR_ENV", "DataKeys", "KeyErased", "data_keys_dir", "is_data_key", "subject_of"]


class KeyErased(ValueError):
    """The payload's data key was destroyed: the participant's data was erased."""


def subject_of(workflow_id: str | None) -> str | None:
    """The participant whose data a workflow id carries (`<study>--P002`, also `rehearsal-<study>--P002-turn-1`),
    or None (a study, a standalone interview, any other pipeline)."""
    if not workflow_id:
        return None
    for prefix in _DERIVED:
        if workflow_id.startswith(prefix):
            workflow_id = workflow_id[len(prefix):]
            break
    m = _SUBJECT.match(workflow_id)
    return m.group("subject") if m else None


def key_id_of(subject: str) -> str:
    """A data key's id: derived from its subject (so decrypting needs no context), no personal word in it."""
    return DATA_KEY_PREFIX + hashlib.sha256(subject.encode()).hexdigest()[:32]


def is_data_key(key_id: str) -> bool:
    return key_id.startswith(DATA_KEY_PREFIX)


def data_keys_dir(keys_file: Path) -> Path:
    value = os.environ.get(DATA_KEYS_DIR_ENV, "").strip()
    return Path(value).expanduser() if value else keys_file.with_name(keys_file.name + ".data-keys")


class DataKeys:
    """The data-key folder: create on first use (race-safe across processes), unwrap, destroy."""

    def __init__(self, folder: Path, keyring: Keyring) -> None:
        self.folder, self.keyring = folder, keyring
        self._cache: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"DataKeys({self.folder})"

    def _file(self, key_id: str) -> Path:
        return self.folder / f"{key_id}.json"

    def _tomb(self, key_id: str) -> Path:
        return self.folder / f"{key_id}{TOMBSTONE}"

    def erased(self, subject: str) -> bool:
        return self._tomb(key_id_of(subject)).exists()

    def for_subject(self, subject: str) -> tuple[str, bytes]:
        """(key id, key) to encrypt the subject's payloads; created on first use. KeyErased once destroyed."""
        key_id = key_id_of(subject)
        with contextlib.suppress(KeyErased, FileNotFoundError):
            return key_id, self.secret(key_id)
        if self._tomb(key_id).exists():
            raise KeyErased(f"the data of {subject} was erased: nothing more can be encrypted for it")
        self._create(key_id)
        return key_id, self.secret(key_id)

    def secret(self, key_id: str) -> bytes:
        """The unwrapped key. The file is checked on every use (another process may have destroyed it): a
        destroyed key raises KeyErased, a key never made FileNotFoundError."""
        file = self._file(key_id)
        if not file.exists():
            with self._lock:
                self._cache.pop(key_id, None)
            if self._tomb(key_id).exists():
                raise KeyErased(f"payload was encrypted with data key {key_id}, which was destroyed when its "
                                  "participant's data was erased")
            raise FileNotFoundError(file)
        with self._lock:
            if key_id in self._cache:
                return self._cache[key_id]
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        data = json.loads(file.read_text(encoding="utf-8"))
        wrapping = self.keyring.get(str(data["wrapped_by"]))
        blob = base64.b64decode(data["key"])
        key = AESGCM(wrapping.secret).decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], key_id.encode())
        with self._lock:
            self._cache[key_id] = key
        return key

    def _create(self, key_id: str) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        wrapping = self.keyring.newest
        nonce = os.urandom(NONCE_BYTES)
        wrapped = nonce + AESGCM(wrapping.secret).encrypt(nonce, secrets.token_bytes(KEY_BYTES), key_id.encode())
        text = json.dumps({"version": 1, "id": key_id, "wrapped_by": wrapping.id,
                           "created": datetime.now(UTC).isoformat(timespec="seconds"),
                           "key": base64.b64encode(wrapped).decode("ascii")})
        self.folder.mkdir(parents=True, mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".dk-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            with contextlib.suppress(FileExistsError):   # another process made it first: theirs is the key
                os.link(tmp, self._file(key_id))
        finally:
            Path(tmp).unlink(missing_ok=True)

    def destroy(self, subject: str) -> bool:
        """Overwrite and delete the subject's data key and leave a tombstone; True when a key was destroyed.
        (An SSD or a copy-on-write file system may keep old blocks: the wrapped key is useless without the
        keyring, and the docs say what else to do.)"""
        key_id = key_id_of(subject)
        file = self._file(key_id)
        self.folder.mkdir(parents=True, mode=0o700, exist_ok=True)
        self._tomb(key_id).write_text(datetime.now(UTC).isoformat(timespec="seconds") + "\n", encoding="utf-8")
        with self._lock:
            self._cache.pop(key_id, None)
        try:
            size = file.stat().st_size
            with file.open("r+b") as fh:
                fh.write(os.urandom(size))
                fh.flush()
                os.fsync(fh.fileno())
            file.unlink()
        except FileNotFoundError:
            return False
        return True
