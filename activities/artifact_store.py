"""The artifact store: one interface, two backends — a local folder (default) and S3-compatible object storage.

Large texts (transcripts, essays, drafts, reports) live here; histories hold only `ArtifactRef` (its URI, name,
sha256, size). `store()` builds the store the settings name (core/settings.py `ArtifactSettings`, from the
environment only): `COLLOQUY_ARTIFACT_STORE=local` (the folder COLLOQUY_ARTIFACT_DIR, else <data dir>/artifacts)
or `s3` (COLLOQUY_S3_BUCKET / _ENDPOINT / _REGION / _PREFIX; credentials are the standard AWS variables, read by
the S3 client, obstore, from the process environment — they never reach a payload, a ref or a log line).

Refs name their backend in the URI: `file:///…/scope/name` (percent-encoded) or `s3://bucket/prefix/scope/name`.
A store reads its own refs, and old `file://` refs of this host's artifact folder after a switch to object storage.

Writes are atomic (local: temp file + rename; S3: a PUT is atomic) and keyed by (scope, name), so a retried
activity writes the same ref twice harmlessly. Each read is checked against the ref's sha256.

Encryption at rest (`COLLOQUY_ARTIFACT_ENCRYPTION`, default `auto`: object storage is sealed when payload
encryption is on, i.e. COLLOQUY_CODEC_KEYS_FILE is set; `on`: both backends): AES-256-GCM with the newest key
of the same keyring as the payload codec (core/codec.py); any key of the ring opens it; plain artifacts written
before stay readable. The sha256 and size of a ref are those of the plain text.

The store is synchronous (plain file I/O, blocking S3 calls): activities run it with `asyncio.to_thread`, and so
does `colloquy serve`.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import secrets
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote, unquote, urlparse

from temporalio.exceptions import ApplicationError

from core.logging import bounded
from core.settings import ArtifactSettings, ArtifactSettingsError, artifact_dir
from models.common import ArtifactRef
from rules.retry_classes import FINAL, errno_class, http_status_class

_SAFE = re.compile(r"[^A-Za-z0-9._\-]+")
MAX_ARTIFACT_BYTES = 50 * 1024 * 1024
SEALED = b"\x00colloquy-artifact-v1\x00"  # an encrypted artifact starts with this (plain UTF-8 text never does)
NONCE_BYTES = 12
S3_TIMEOUT_S = 30


def _safe(part: str) -> str:
    cleaned = _SAFE.sub("_", part).strip("._")
    if not cleaned:
        raise ApplicationError(f"invalid artifact path component {part!r}", type="ArtifactError", non_retryable=True)
    return cleaned


def key_for(scope: str, name: str) -> str:
    return f"{_safe(scope)}/{_safe(name)}"


class Backend(Protocol):
    """Where the bytes are. Keys are `scope/name` (both sanitised); missing objects raise FileNotFoundError."""

    def describe(self) -> str: ...
    def uri(self, key: str) -> str: ...
    def key_of(self, uri: str) -> str | None: ...  # None: the URI is not in this backend
    def write(self, key: str, data: bytes, content_type: str) -> None: ...
    def read(self, key: str) -> bytes: ...
    def read_range(self, key: str, offset: int, length: int) -> tuple[bytes, int]: ...
    def keys(self, folder: str) -> list[str]: ...  # every key under `folder/`
    def delete(self, key: str) -> bool: ...  # False: there was none


# ------------------------------------------------------------------------------------------------ local folder
class LocalBackend:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def describe(self) -> str:
        return f"local folder {self.root}"

    def path(self, key: str) -> Path:
        return self.root / key

    def uri(self, key: str) -> str:
        return self.path(key).as_uri()

    def key_of(self, uri: str) -> str | None:
        if uri.startswith("s3://"):
            return None
        path = _path_of(uri).resolve()
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else None

    def write(self, key: str, data: bytes, content_type: str) -> None:
        path = self.path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except OSError as exc:
            raise _os_error(f"cannot write artifact {path}", exc) from exc

    def read(self, key: str) -> bytes:
        try:
            return self.path(key).read_bytes()
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise _os_error(f"cannot read artifact {self.path(key)}", exc) from exc

    def read_range(self, key: str, offset: int, length: int) -> tuple[bytes, int]:
        try:
            with self.path(key).open("rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                fh.seek(offset)
                return fh.read(length), size
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise _os_error(f"cannot read artifact {self.path(key)}", exc) from exc

    def keys(self, folder: str) -> list[str]:
        base = self.path(folder)
        return sorted(p.relative_to(self.root).as_posix() for p in base.rglob("*") if p.is_file()) \
            if base.is_dir() else []

    def delete(self, key: str) -> bool:
        path = self.path(key)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise _os_error(f"cannot delete artifact {path}", exc) from exc
        with contextlib.suppress(OSError):       # its folder, once empty
            path.parent.rmdir()
        return True


def _path_of(uri: str) -> Path:
    """file:// URIs are percent-encoded (`Path.as_uri`): a root with a space or non-ASCII name must round-trip."""
    if uri.startswith("file://"):
        return Path(unquote(urlparse(uri).path))
    return Path(uri)


# ------------------------------------------------------------------------------------------------ S3-compatible
class S3Backend:
    """Any S3-compatible store through obstore (path-style requests, so SeaweedFS and MinIO work as AWS does).
    Credentials: the AWS variables of the process environment (obstore reads them itself)."""

    def __init__(self, bucket: str, endpoint: str | None = None, region: str = "us-east-1", prefix: str = "") -> None:
        from obstore.store import S3Store

        self.bucket, self.endpoint, self.region = bucket, endpoint, region
        self.prefix = prefix.strip("/")
        options: Any = {"timeout": f"{S3_TIMEOUT_S}s", "connect_timeout": "5s"}
        if endpoint and endpoint.startswith("http://"):
            options["allow_http"] = True
        retry: Any = {"max_retries": 2, "retry_timeout": timedelta(seconds=20),
                      "backoff": {"init_backoff": timedelta(milliseconds=100), "max_backoff": timedelta(seconds=2),
                                  "base": 2}}
        config: dict[str, Any] = {"region": region}
        if endpoint:
            config["endpoint"] = endpoint
        self._s3 = S3Store(bucket, client_options=options, retry_config=retry, **config)

    def describe(self) -> str:
        return f"object storage s3://{self.bucket}/{self.prefix + '/' if self.prefix else ''}"

    def _path(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def uri(self, key: str) -> str:
        return f"s3://{self.bucket}/{quote(self._path(key))}"

    def key_of(self, uri: str) -> str | None:
        head = f"s3://{self.bucket}/" + (f"{self.prefix}/" if self.prefix else "")
        uri = unquote(uri)
        if not uri.startswith(head):
            return None
        key = uri[len(head):]
        return key if key and ".." not in key.split("/") else None

    def write(self, key: str, data: bytes, content_type: str) -> None:
        import obstore

        with _s3_errors(self, key, "write"):
            obstore.put(self._s3, self._path(key), data, attributes={"Content-Type": content_type},
                        use_multipart=len(data) > 8 * 1024 * 1024)

    def read(self, key: str) -> bytes:
        import obstore

        with _s3_errors(self, key, "read"):
            return bytes(obstore.get(self._s3, self._path(key)).bytes())

    def read_range(self, key: str, offset: int, length: int) -> tuple[bytes, int]:
        import obstore

        with _s3_errors(self, key, "read"):
            size = int(obstore.head(self._s3, self._path(key))["size"])
            if offset >= size or length <= 0:
                return b"", size
            data = obstore.get_range(self._s3, self._path(key), start=offset, end=min(size, offset + length))
            return bytes(data), size

    def keys(self, folder: str) -> list[str]:
        import obstore

        head = f"{self.prefix}/" if self.prefix else ""
        with _s3_errors(self, folder, "list"):
            found = [str(o["path"]) for batch in obstore.list(self._s3, prefix=self._path(folder) + "/")
                     for o in batch]
        return sorted(k[len(head):] for k in found if k.startswith(head))

    def delete(self, key: str) -> bool:
        """Deletes the current object (a versioned bucket keeps older versions: docs/study.md, erasure)."""
        import obstore

        try:
            with _s3_errors(self, key, "delete"):
                obstore.head(self._s3, self._path(key))      # S3 answers a DELETE of nothing with success
                obstore.delete(self._s3, self._path(key))
        except FileNotFoundError:
            return False
        return True


@contextlib.contextmanager
def _s3_errors(backend: S3Backend, key: str, what: str) -> Any:
    """obstore's errors as the store's, classified by rules/retry_classes.py: missing → FileNotFoundError; refused
    credentials, an invalid path or request (another 4xx) → ArtifactError (final); an outage, a 5xx, throttling
    (503 SlowDown, 429), a timeout or a refused connection → ArtifactUnavailable (transient: retried under the
    activity's policy). Messages name the object and keep the server's status whole, never a credential (obstore's
    never carry one)."""
    from obstore.exceptions import (
        BaseError,
        InvalidPathError,
        NotFoundError,
        NotSupportedError,
        PermissionDeniedError,
        UnauthenticatedError,
        UnknownConfigurationKeyError,
    )

    where = f"cannot {what} artifact {key} in {backend.describe()}"
    try:
        yield
    except FileNotFoundError:
        raise
    except NotFoundError as exc:
        raise FileNotFoundError(f"{where}: not found") from exc
    except (PermissionDeniedError, UnauthenticatedError) as exc:
        raise ApplicationError(f"{where}: access denied (check the AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY of this "
                               f"process): {s3_summary(exc)}", type="ArtifactError", non_retryable=True) from None
    except (InvalidPathError, NotSupportedError, UnknownConfigurationKeyError) as exc:
        raise ApplicationError(f"{where}: {s3_summary(exc)}", type="ArtifactError", non_retryable=True) from None
    except BaseError as exc:
        status = s3_status(exc)
        if status is not None and http_status_class(status) == FINAL:
            raise ApplicationError(f"{where}: {s3_summary(exc)}", type="ArtifactError", non_retryable=True) from None
        raise ApplicationError(f"{where}: {s3_summary(exc)}", type="ArtifactUnavailable") from None
    except OSError as exc:
        raise _os_error(where, exc) from None


_S3_URL = re.compile(r"(Error performing [A-Z]+) \S+")
_S3_STATUS = re.compile(r"(?:status code:|status:)\s*(\d{3})\b")


def s3_status(exc: BaseException) -> int | None:
    """The HTTP status an obstore error reports ("Server returned non-2xx status code: 503 …"), or None (no
    answer: a refused connection, a timeout)."""
    found = _S3_STATUS.search(str(exc))
    return int(found.group(1)) if found else None


def s3_summary(exc: BaseException) -> str:
    """An obstore error on one bounded line: its message without the request's URL (however long the key, the
    status comes early) and without the "Debug source" dump that follows it, cut at a word boundary (the server's
    status and S3 error code stay whole)."""
    text = _S3_URL.sub(r"\1", str(exc).split("Debug source:", 1)[0])  # the object is named by the caller already
    return bounded(text, 500) or exc.__class__.__name__


def _os_error(where: str, exc: OSError) -> ApplicationError:
    """A local (or socket) OSError of the store: transient (EIO, a timeout, a stale mount…) or final (permissions,
    a read-only or full volume) by its errno."""
    if isinstance(exc, PermissionError):
        return ApplicationError(f"{where}: permission denied", type="ArtifactError", non_retryable=True)
    detail = exc.strerror or bounded(str(exc), 300) or exc.__class__.__name__
    if errno_class(exc.errno) == FINAL:
        return ApplicationError(f"{where}: {detail}", type="ArtifactError", non_retryable=True)
    return ApplicationError(f"{where}: {detail}", type="ArtifactUnavailable")


# ------------------------------------------------------------------------------------------------ sealing
class Sealer:
    """AES-256-GCM with the payload keyring: SEALED + key id length + key id + nonce + ciphertext. A study
    participant's artifacts (scope `<study>--P002`, `_results-<study>--P002`) are sealed under their data key
    (core/datakeys.py), so erasing them also makes every copy of them unreadable (old object versions, backups)."""

    def __init__(self, keyring: Any, data_keys: Any = None) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self.keyring, self.data_keys = keyring, data_keys
        self._ciphers = {k.id: AESGCM(k.secret) for k in keyring.keys}

    def seal(self, data: bytes, scope: str | None = None) -> bytes:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        from core.datakeys import subject_of

        subject = subject_of(scope) if self.data_keys is not None else None
        key_id = ""
        if subject is not None:
            try:
                key_id, secret = self.data_keys.for_subject(subject)
                cipher = AESGCM(secret)
            except OSError as exc:      # no writable data-key folder here: the keyring key (core/codec.py warns)
                from core.codec import warn_no_data_keys

                warn_no_data_keys(self.data_keys.folder, exc)
                key_id = ""
        if not key_id:
            key_id, cipher = self.keyring.newest.id, self._ciphers[self.keyring.newest.id]
        raw_id = key_id.encode()
        nonce = secrets.token_bytes(NONCE_BYTES)
        head = SEALED + bytes([len(raw_id)]) + raw_id
        return head + nonce + cipher.encrypt(nonce, data, head)

    def _data_cipher(self, key_id: str, what: str) -> Any:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        from core.datakeys import KeyErased, is_data_key

        if not is_data_key(key_id) or self.data_keys is None:
            return None
        try:
            return AESGCM(self.data_keys.secret(key_id))
        except KeyErased:
            raise ApplicationError(f"artifact {what} was erased (its participant's data key was destroyed)",
                                   type="ArtifactNotFound", non_retryable=True) from None
        except FileNotFoundError:
            return None

    def open(self, blob: bytes, what: str) -> bytes:
        from cryptography.exceptions import InvalidTag

        n = len(SEALED)
        key_len = blob[n] if len(blob) > n else 0
        head = blob[:n + 1 + key_len]
        key_id = head[n + 1:].decode("utf-8", "replace")
        nonce, body = blob[len(head):len(head) + NONCE_BYTES], blob[len(head) + NONCE_BYTES:]
        cipher = self._ciphers.get(key_id) or self._data_cipher(key_id, what)
        if cipher is None:
            raise ApplicationError(f"artifact {what} is sealed with key {key_id!r}, which is not in the keyring "
                                   f"(COLLOQUY_CODEC_KEYS_FILE holds {', '.join(self.keyring.ids)})",
                                   type="ArtifactError", non_retryable=True)
        try:
            return cipher.decrypt(nonce, body, head)
        except InvalidTag:
            raise ApplicationError(f"artifact {what} does not decrypt (changed or truncated)", type="ArtifactError",
                                   non_retryable=True) from None


@functools.lru_cache(maxsize=8)
def _sealer_for(path: str, mtime_ns: int) -> Sealer:
    from core.codec import Keyring
    from core.datakeys import DataKeys, data_keys_dir

    keyring = Keyring.load(path)
    return Sealer(keyring, DataKeys(data_keys_dir(Path(path)), keyring))


def _sealer() -> Sealer | None:
    """The keyring of COLLOQUY_CODEC_KEYS_FILE (reloaded when the file changes), or None when it is not set."""
    from core.codec import KeyringError, keys_file

    path = keys_file()
    if path is None:
        return None
    try:
        return _sealer_for(str(path), path.stat().st_mtime_ns)
    except (OSError, KeyringError) as exc:
        raise ApplicationError(f"artifact encryption: {exc}", type="ArtifactError", non_retryable=True) from None


# ------------------------------------------------------------------------------------------------ the store
class ArtifactStore:
    """put/get/read_chunk/read_optional over one backend. `ArtifactStore(root)` is a local store at `root`."""

    def __init__(self, root: Path | None = None, *, backend: Backend | None = None, encrypt: bool = False) -> None:
        self.backend: Backend = backend or LocalBackend(root or artifact_dir())
        self.encrypt = encrypt

    @property
    def root(self) -> Path:
        if not isinstance(self.backend, LocalBackend):
            raise AttributeError(f"{self.backend.describe()} has no local folder")
        return self.backend.root

    def describe(self) -> str:
        return self.backend.describe() + (" (encrypted)" if self.encrypt else "")

    def path_for(self, scope: str, name: str) -> Path:
        """The file of (scope, name) in a local store (tests and the local CLI; other code reads through get)."""
        return self.root / key_for(scope, name)

    def location(self, scope: str, name: str) -> str:
        return self.backend.uri(key_for(scope, name))

    def put(self, scope: str, name: str, content: str, content_type: str = "text/plain") -> ArtifactRef:
        data = content.encode("utf-8")
        if len(data) > MAX_ARTIFACT_BYTES:
            raise ApplicationError(f"artifact {name} is {len(data)} bytes, over the {MAX_ARTIFACT_BYTES} limit",
                                   type="ArtifactError", non_retryable=True)
        key = key_for(scope, name)
        sealer = _sealer() if self.encrypt else None
        if self.encrypt and sealer is None:
            raise ApplicationError("artifact encryption is on but COLLOQUY_CODEC_KEYS_FILE is not set",
                                   type="ArtifactError", non_retryable=True)
        self.backend.write(key, sealer.seal(data, scope) if sealer else data, content_type)
        return ArtifactRef(uri=self.backend.uri(key), name=name, sha256=hashlib.sha256(data).hexdigest(),
                           size_bytes=len(data), content_type=content_type, created_at=datetime.now(UTC))

    def get(self, ref: ArtifactRef | str) -> str:
        uri = ref.uri if isinstance(ref, ArtifactRef) else ref
        backend, key = self._locate(uri)
        try:
            data = self._plain(backend.read(key), uri)
        except FileNotFoundError as exc:
            raise ApplicationError(f"artifact {uri} not found", type="ArtifactNotFound", non_retryable=True) from exc
        if isinstance(ref, ArtifactRef) and hashlib.sha256(data).hexdigest() != ref.sha256:
            raise ApplicationError(f"artifact {uri} changed since it was written (sha256 mismatch)",
                                   type="ArtifactError", non_retryable=True)
        return data.decode("utf-8")

    def read_optional(self, scope: str, name: str) -> str | None:
        """The text at (scope, name), or None when there is none (results kept by `completed_once`, records)."""
        try:
            return self._plain(self.backend.read(key_for(scope, name)), name).decode("utf-8")
        except FileNotFoundError:
            return None

    def read_chunk(self, ref: ArtifactRef, offset: int, max_bytes: int) -> tuple[bytes, int]:
        """(bytes offset..offset+max_bytes, the artifact's size) of an artifact in this store. The whole is checked
        against `ref.sha256` by whoever puts the chunks together; a size that differs from the ref's is refused
        here already."""
        backend, key = self._locate(ref.uri)
        try:
            data, size = backend.read_range(key, offset, max_bytes)
            if size != ref.size_bytes:  # a sealed artifact (its size is the plain text's) or a changed one
                blob = backend.read(key)
                if blob.startswith(SEALED):
                    whole = self._plain(blob, ref.uri)
                    data, size = whole[offset:offset + max_bytes], len(whole)
        except FileNotFoundError as exc:
            raise ApplicationError(f"artifact {ref.name} not found in the worker's store ({self.describe()})",
                                   type="ArtifactNotFound", non_retryable=True) from exc
        if size != ref.size_bytes:
            raise ApplicationError(f"artifact {ref.name} changed since it was written ({size} bytes, not "
                                   f"{ref.size_bytes})", type="ArtifactError", non_retryable=True)
        return data, size

    def names(self, scope: str) -> list[str]:
        """The names in a scope (this store's backend only)."""
        folder = _safe(scope)
        return [k[len(folder) + 1:] for k in self.backend.keys(folder)]

    def delete(self, scope: str, name: str) -> bool:
        return self.backend.delete(key_for(scope, name))

    def delete_scope(self, scope: str) -> int:
        """Delete everything in a scope (an erasure); the number of objects deleted."""
        folder = _safe(scope)
        return sum(1 for key in self.backend.keys(folder) if self.backend.delete(key))

    def holds(self, ref: ArtifactRef | str) -> bool:
        """Whether this store can read the ref (its own backend, or this host's artifact folder)."""
        uri = ref.uri if isinstance(ref, ArtifactRef) else ref
        try:
            self._locate(uri)
        except ApplicationError:
            return False
        return True

    def _locate(self, uri: str) -> tuple[Backend, str]:
        key = self.backend.key_of(uri)
        if key is not None:
            return self.backend, key
        if not isinstance(self.backend, LocalBackend) and not uri.startswith("s3://"):
            local = LocalBackend(artifact_dir())  # refs written before the switch to object storage
            key = local.key_of(uri)
            if key is not None:
                return local, key
        raise ApplicationError(f"artifact {uri} is outside the store {self.describe()}", type="ArtifactError",
                               non_retryable=True)

    def _plain(self, blob: bytes, what: str) -> bytes:
        if not blob.startswith(SEALED):
            return blob
        sealer = _sealer()
        if sealer is None:
            raise ApplicationError(f"artifact {what} is encrypted: set COLLOQUY_CODEC_KEYS_FILE to the keys that "
                                   "sealed it", type="ArtifactError", non_retryable=True)
        return sealer.open(blob, what)

    @staticmethod
    def local_path(ref: ArtifactRef) -> Path | None:
        """The file of a `file://` ref (on the disk of the worker that wrote it), None for object storage."""
        return None if ref.uri.startswith("s3://") else _path_of(ref.uri)


@functools.lru_cache(maxsize=4)
def _backend(settings: ArtifactSettings) -> Backend:
    if settings.backend == "s3":
        assert settings.bucket is not None
        return S3Backend(settings.bucket, settings.endpoint, settings.region, settings.prefix)
    return LocalBackend(settings.root or artifact_dir())


def store() -> ArtifactStore:
    """The store the environment names (ArtifactSettings); the S3 client is made once per setting."""
    from core.codec import encryption_enabled

    try:
        settings = ArtifactSettings.from_env()
        encrypt = settings.encrypted(encryption_enabled())
    except ArtifactSettingsError as exc:
        raise ApplicationError(f"artifact store: {exc}", type="ArtifactError", non_retryable=True) from None
    return ArtifactStore(backend=_backend(settings), encrypt=encrypt)
