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
"""

from __future__ import annotations

import base64
import binascii
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

from temporalio.api.common.v1 import Payload
from temporalio.converter import DataConverter, PayloadCodec

KEYS_FILE_ENV = "COLLOQUY_CODEC_KEYS_FILE"
SERVE_PORT_ENV = "COLLOQUY_SERVE_PORT"
SERVE_PORT = 8234  # `colloquy serve` (codec server); the embedded server's Web UI is on 8233
ENCODING = b"binary/encrypted"
KEY_ID_META = "encryption-key-id"
NONCE_BYTES = 12
KEY_BYTES = 32  # AES-256
FILE_VERSION = 1

__all__ = [
    "ENCODING", "KEYS_FILE_ENV", "KEY_ID_META", "CodecError", "EncryptionCodec", "Key", "Keyring", "KeyringError",
    "UnknownKeyError", "data_converter", "default_keys_file", "encryption_enabled", "keys_file", "serve_port",
    "ui_codec_endpoint",
]


class CodecError(ValueError):
    """A payload cannot be decrypted (unknown key id, tampered or truncated ciphertext)."""


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


class EncryptionCodec(PayloadCodec):
    """AES-256-GCM per payload: the whole original Payload (metadata + data) serialised, then sealed with a
    random 12-byte nonce under the newest key; the key id is authenticated as associated data."""

    def __init__(self, keyring: Keyring) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self.keyring = keyring
        self._ciphers = {k.id: AESGCM(k.secret) for k in keyring.keys}

    def __repr__(self) -> str:  # never the key material
        return f"EncryptionCodec(key_ids={self.keyring.ids})"

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self.encrypt(p) for p in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self.decrypt(p) for p in payloads]

    def encrypt(self, payload: Payload) -> Payload:
        key_id = self.keyring.newest.id
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._ciphers[key_id].encrypt(nonce, payload.SerializeToString(), key_id.encode())
        return Payload(metadata={"encoding": ENCODING, KEY_ID_META: key_id.encode()}, data=nonce + sealed)

    def decrypt(self, payload: Payload) -> Payload:
        if payload.metadata.get("encoding") != ENCODING:
            return payload  # not ours (written before encryption was turned on): unchanged
        from cryptography.exceptions import InvalidTag

        raw_id = payload.metadata.get(KEY_ID_META)
        if not raw_id:
            raise CodecError(f"encrypted payload has no {KEY_ID_META!r} metadata")
        key_id = raw_id.decode("utf-8", errors="replace")
        self.keyring.get(key_id)  # UnknownKeyError naming the id
        data = payload.data
        if len(data) < NONCE_BYTES + 16:
            raise CodecError(f"encrypted payload (key id {key_id!r}) is truncated: {len(data)} bytes")
        try:
            plain = self._ciphers[key_id].decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], key_id.encode())
        except InvalidTag:
            raise CodecError(f"encrypted payload (key id {key_id!r}) failed authentication: it was altered, "
                             "or the key with this id is not the one it was encrypted with") from None
        return Payload.FromString(plain)


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
    return None if path is None else EncryptionCodec(Keyring.load(path))


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
