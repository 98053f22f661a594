"""Payload encryption at the user's choice: an AES-256-GCM payload codec with a keyring.

One setting turns it on for every worker and client: `COLLOQUY_CODEC_KEYS_FILE=/path/keys.json` (made by
`colloquy keys new`). `core.temporal.connect` then builds its data converter with `EncryptionCodec`, so every
payload (workflow/activity/signal/update/query arguments and results, memos, summaries, failure messages)
leaves the process encrypted and the Temporal server (its database, its Web UI and API) only ever sees
ciphertext. `colloquy serve` exposes the same codec over HTTP so authorised users can read payloads in the
Web UI and the `temporal` CLI (`--codec-endpoint`).

Key file (JSON, mode 0600; the last key is the newest):

    {"version": 1, "keys": [{"id": "k-20250101-3f2a", "created": "2025-01-01T10:00:00+00:00",
                             "key": "<32 random bytes, base64>"}, ...]}

The newest key encrypts; any key in the file decrypts (rotation: add a key, keep the old ones). An encrypted
payload names its key in the metadata `encryption-key-id` (the id is also authenticated as associated data);
the key material itself is never logged, printed or put in a payload. Payloads that are not encrypted pass
through `decode` unchanged, so turning encryption on keeps earlier runs readable.

A study participant's payloads are encrypted under their own data key instead (core/datakeys.py): the codec takes
the serialization context (`WithSerializationContext`: the workflow id of the payload's workflow, or of the
activity's workflow) and, for an interview `<study id>--P002`, seals with that participant's data key (its id
`dk-…` in `encryption-key-id`). Erasing the participant destroys that key: `decode` then raises `ErasedError`
(`decode_readable` leaves such a payload as the ciphertext it is).
"""

from __future__ import annotations

import base64
import binascii
import copy
import dataclasses
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from temporalio.api.common.v1 import Payload
from temporalio.converter import DataConverter, PayloadCodec, SerializationContext, WithSerializationContext

from core.datakeys import DataKeys, KeyErased, data_keys_dir, is_data_key, key_id_of, subject_of

KEYS_FILE_ENV = "COLLOQUY_CODEC_KEYS_FILE"
SERVE_PORT_ENV = "COLLOQUY_SERVE_PORT"
SERVE_PORT = 8234  # `colloquy serve` (codec server); the embedded server's Web UI is on 8233
ENCODING = b"binary/encrypted"
KEY_ID_META = "encryption-key-id"
ERASED_META = "colloquy-erased"
NONCE_BYTES = 12
KEY_BYTES = 32  # AES-256
FILE_VERSION = 1

__all__ = [
    "ENCODING", "KEYS_FILE_ENV", "KEY_ID_META", "CodecError", "ErasedError", "EncryptionCodec", "Key", "Keyring",
    "KeyringError", "UnknownKeyError", "data_converter", "default_keys_file", "encryption_enabled", "keys_file", "serve_port",
    "ui_codec_endpoint",
]


class CodecError(ValueError):
    """A payload cannot be decrypted (unknown key id, tampered or truncated ciphertext)."""


class ErasedError(CodecError):
    """The payload's data key was destroyed: its participant's data was erased (core/datakeys.py)."""


class UnknownKeyError(CodecError):
    """The payload was encrypted with a key id this keyring does not hold."""


class KeyringError(ValueError):
    """The key file is missing, unreadable or malformed."""


@dataclass(frozen=True)
class Key:
    id: str
    created: str
    secret: bytes = field(repr=False)

    @classmethod
    def generate(cls, now: datetime | None = None) -> Key:
        now = now or datetime.now(UTC)
        return cls(id=f"k-{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}", created=now.isoformat(timespec="seconds"),
                   secret=secrets.token_bytes(KEY_BYTES))


@dataclass(frozen=True)
class Keyring:
    """Keys oldest first; `newest` encrypts, `get(id)` finds any key to decrypt."""

    keys: tuple[Key, ...]

    def __post_init__(self) -> None:
        if not self.keys:
            raise KeyringError("a keyring needs at least one key")
        ids = [k.id for k in self.keys]
        if len(set(ids)) != len(ids):
            raise KeyringError(f"duplicate key ids in the keyring: {sorted({i for i in ids if ids.count(i) > 1})}")

    @property
    def newest(self) -> Key:
        return self.keys[-1]

    @property
    def ids(self) -> list[str]:
        return [k.id for k in self.keys]

    def get(self, key_id: str) -> Key:
        for key in self.keys:
            if key.id == key_id:
                return key
        raise UnknownKeyError(
            f"payload was encrypted with key id {key_id!r}, which is not in the keyring (known ids: "
            f"{', '.join(self.ids)}); add that key to the file named by {KEYS_FILE_ENV}")

    def with_new_key(self) -> Keyring:
        return Keyring((*self.keys, Key.generate()))

    @classmethod
    def generate(cls) -> Keyring:
        return cls((Key.generate(),))

    # ------------------------------------------------------------------ file
    def to_json(self) -> str:
        return json.dumps({"version": FILE_VERSION, "keys": [
            {"id": k.id, "created": k.created, "key": base64.b64encode(k.secret).decode("ascii")}
            for k in self.keys]}, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str = "key file") -> Keyring:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise KeyringError(f"{where} is not JSON: {exc.msg} (line {exc.lineno})") from None
        if not isinstance(data, dict) or not isinstance(data.get("keys"), list) or not data["keys"]:
            raise KeyringError(f'{where} has no keys: expected {{"version": 1, "keys": [{{"id", "created", "key"}}]}}')
        keys = []
        for n, item in enumerate(data["keys"], 1):
            if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"] \
                    or not isinstance(item.get("key"), str):
                raise KeyringError(f"{where}: key #{n} needs a non-empty string 'id' and a base64 'key'")
            try:
                secret = base64.b64decode(item["key"], validate=True)
            except (binascii.Error, ValueError):
                raise KeyringError(f"{where}: key {item['id']!r} is not valid base64") from None
            if len(secret) != KEY_BYTES:
                raise KeyringError(f"{where}: key {item['id']!r} is {len(secret)} bytes; AES-256 needs {KEY_BYTES}")
            keys.append(Key(id=item["id"], created=str(item.get("created", "")), secret=secret))
        return cls(tuple(keys))

    @classmethod
    def load(cls, path: Path | str) -> Keyring:
        file = Path(path).expanduser()
        try:
            text = file.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise KeyringError(f"key file {file} does not exist ({KEYS_FILE_ENV}); create it with "
                               f"`colloquy keys new --file {file}`") from None
        except OSError as exc:
            raise KeyringError(f"cannot read key file {file}: {exc.strerror}") from None
        return cls.from_json(text, where=f"key file {file}")

    def save(self, path: Path | str) -> Path:
        """Write atomically, mode 0600 (its folder is created 0700 when missing)."""
        file = Path(path).expanduser()
        if not file.parent.exists():
            file.parent.mkdir(parents=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".keys-")  # mkstemp: 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(self.to_json())
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, file)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return file


def file_is_private(path: Path) -> bool:
    """True when neither group nor others may read or write the file."""
    return not stat.S_IMODE(path.stat().st_mode) & 0o077


class EncryptionCodec(PayloadCodec, WithSerializationContext):
    """AES-256-GCM per payload: the whole original Payload (metadata + data) serialised, then sealed with a
    random 12-byte nonce under the newest key — or, in a participant's context, under their data key; the key
    id is authenticated as associated data."""

    def __init__(self, keyring: Keyring, data_keys: DataKeys | None = None, subject: str | None = None) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self.keyring, self.data_keys, self.subject = keyring, data_keys, subject
        self._ciphers = {k.id: AESGCM(k.secret) for k in keyring.keys}

    def __repr__(self) -> str:  # never the key material
        return f"EncryptionCodec(key_ids={self.keyring.ids}, subject={self.subject!r})"

    def with_context(self, context: SerializationContext) -> EncryptionCodec:
        subject = subject_of(getattr(context, "workflow_id", None)) if self.data_keys is not None else None
        if subject == self.subject:
            return self
        codec = copy.copy(self)
        codec.subject = subject
        return codec

    def for_workflow(self, workflow_id: str | None) -> EncryptionCodec:
        """This codec as it encrypts for a workflow id or an artifact scope derived from one (audio)."""
        from temporalio.converter import WorkflowSerializationContext

        return self.with_context(WorkflowSerializationContext(namespace="", workflow_id=workflow_id or ""))

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self.encrypt(p) for p in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        """Decrypted payloads; one whose participant was erased becomes JSON `null` marked `colloquy-erased`, so
        a workflow that replays over it (the study, whose history holds its children's results) still runs."""
        return [self._decrypt_or_erased(p, erased_as_null=True) for p in payloads]

    async def decode_readable(self, payloads: Sequence[Payload]) -> list[Payload]:
        """`decode`, but a payload whose participant was erased stays the ciphertext it is (the codec server)."""
        return [self._decrypt_or_erased(p, erased_as_null=False) for p in payloads]

    def _decrypt_or_erased(self, payload: Payload, erased_as_null: bool) -> Payload:
        try:
            return self.decrypt(payload)
        except ErasedError:
            return Payload(metadata={"encoding": b"json/plain", ERASED_META: b"true"}, data=b"null") \
                if erased_as_null else payload

    def encrypt(self, payload: Payload) -> Payload:
        if self.subject is not None and self.data_keys is not None:
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM

            try:
                key_id, secret = self.data_keys.for_subject(self.subject)
                cipher = AESGCM(secret)
            except KeyErased:
                # an erased participant: a workflow that replays (the study re-issuing the commands it once sent
                # them) still encodes; sealed under a throwaway key, no one can ever read it
                key_id, cipher = key_id_of(self.subject), AESGCM(os.urandom(KEY_BYTES))
            except OSError as exc:      # the data-key folder cannot be written here: the keyring key, as before
                warn_no_data_keys(self.data_keys.folder, exc)
                key_id = self.keyring.newest.id
                cipher = self._ciphers[key_id]
        else:
            key_id = self.keyring.newest.id
            cipher = self._ciphers[key_id]
        nonce = os.urandom(NONCE_BYTES)
        sealed = cipher.encrypt(nonce, payload.SerializeToString(), key_id.encode())
        return Payload(metadata={"encoding": ENCODING, KEY_ID_META: key_id.encode()}, data=nonce + sealed)

    def decrypt(self, payload: Payload) -> Payload:
        if payload.metadata.get("encoding") != ENCODING:
            return payload  # not ours (written before encryption was turned on): unchanged
        from cryptography.exceptions import InvalidTag

        raw_id = payload.metadata.get(KEY_ID_META)
        if not raw_id:
            raise CodecError(f"encrypted payload has no {KEY_ID_META!r} metadata")
        key_id = raw_id.decode("utf-8", errors="replace")
        cipher = self._data_cipher(key_id) if is_data_key(key_id) else None
        if cipher is None:
            self.keyring.get(key_id)  # UnknownKeyError naming the id
            cipher = self._ciphers[key_id]
        data = payload.data
        if len(data) < NONCE_BYTES + 16:
            raise CodecError(f"encrypted payload (key id {key_id!r}) is truncated: {len(data)} bytes")
        try:
            plain = cipher.decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], key_id.encode())
        except InvalidTag:
            raise CodecError(f"encrypted payload (key id {key_id!r}) failed authentication: it was altered, "
                             "or the key with this id is not the one it was encrypted with") from None
        return Payload.FromString(plain)

    def _data_cipher(self, key_id: str) -> Any:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        if self.data_keys is None:
            raise UnknownKeyError(f"payload was encrypted with data key {key_id!r}, but this codec has no data-key "
                                  "folder")
        try:
            return AESGCM(self.data_keys.secret(key_id))
        except KeyErased as err:
            raise ErasedError(str(err)) from None
        except FileNotFoundError:
            raise UnknownKeyError(f"payload was encrypted with data key {key_id!r}, which is not in the data-key "
                                  f"folder {self.data_keys.folder}") from None


_WARNED: set[str] = set()


def warn_no_data_keys(folder: Path, exc: OSError) -> None:
    """Once per folder and process: participants' payloads fall back to the keyring key (still deleted by an
    erasure, but not crypto-shredded)."""
    if str(folder) not in _WARNED:
        _WARNED.add(str(folder))
        import structlog

        structlog.get_logger("colloquy.codec").warning(
            "codec.data_keys_unwritable", folder=str(folder), error=exc.strerror or type(exc).__name__,
            effect="participants' payloads are encrypted with the keyring key: set COLLOQUY_CODEC_DATA_KEYS_DIR "
                   "to a writable folder shared by every process")


def keys_file() -> Path | None:
    """The key file named by COLLOQUY_CODEC_KEYS_FILE, or None when encryption is off."""
    value = os.environ.get(KEYS_FILE_ENV, "").strip()
    return Path(value).expanduser() if value else None


def encryption_enabled() -> bool:
    return keys_file() is not None


def default_keys_file() -> Path:
    """Where `colloquy keys new` writes without --file: COLLOQUY_CODEC_KEYS_FILE, else
    ~/.config/colloquy/codec-keys.json (kept apart from the data it protects)."""
    return keys_file() or Path("~/.config/colloquy/codec-keys.json").expanduser()


def load_codec(path: Path | None = None) -> EncryptionCodec | None:
    """The codec for the key file (default: the setting), or None when encryption is off."""
    path = path or keys_file()
    if path is None:
        return None
    keyring = Keyring.load(path)
    return EncryptionCodec(keyring, DataKeys(data_keys_dir(Path(path).expanduser()), keyring))


def data_converter(base: DataConverter | None = None, path: Path | None = None) -> DataConverter:
    """The data converter for clients and workers: `base` (the pydantic converter) as is when encryption is
    off; with it on, plus the codec and failure messages/stack traces moved into (encrypted) attributes."""
    from core.converter import EncodedFailureConverter, colloquy_data_converter

    base = base or colloquy_data_converter
    codec = load_codec(path)
    if codec is None:
        return base
    return dataclasses.replace(base, payload_codec=codec, failure_converter_class=EncodedFailureConverter)


def serve_port() -> int:
    """The port `colloquy serve` listens on by default (COLLOQUY_SERVE_PORT, else 8234)."""
    value = os.environ.get(SERVE_PORT_ENV, "").strip()
    return int(value) if value.isdigit() else SERVE_PORT


def ui_codec_endpoint() -> str | None:
    """The codec endpoint the embedded server's Web UI is started with: `colloquy serve` on this host when
    encryption is on, else None."""
    return f"http://127.0.0.1:{serve_port()}/codec" if encryption_enabled() else None
