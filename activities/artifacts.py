"""The artifact store: large texts (transcripts, essays, drafts, reports) live here; histories hold ArtifactRef.

Local directory by default (COLLOQUY_ARTIFACT_DIR, else .data/artifacts). Writes are atomic (temp file +
rename) and content-addressed by sha256, so a retried activity writes the same ref twice harmlessly.

`ArtifactStore` is synchronous (plain file I/O). Activities never call it on the worker's event loop: each storage
activity (here, activities/interview/storage.py, activities/writing/storage.py, the discussion transcript and
report) is an `async def` that runs its synchronous body with `asyncio.to_thread`, like the query pipeline's
storage. Agent code inside an async activity should do the same around `store().get/put`.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import os
import re
import tempfile
import typing
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlparse

import structlog
from pydantic import TypeAdapter
from temporalio import activity
from temporalio.exceptions import ApplicationError

from core.settings import artifact_dir
from models.common import ArtifactRef, PutArtifactInput
from models.platform import ArtifactChunk, ArtifactChunkRequest

F = TypeVar("F", bound=Callable[..., Any])
log = structlog.get_logger("colloquy.artifacts")
_SAFE = re.compile(r"[^A-Za-z0-9._\-]+")
MAX_ARTIFACT_BYTES = 50 * 1024 * 1024


def _safe(part: str) -> str:
    cleaned = _SAFE.sub("_", part).strip("._")
    if not cleaned:
        raise ApplicationError(f"invalid artifact path component {part!r}", type="ArtifactError", non_retryable=True)
    return cleaned


class ArtifactStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or artifact_dir()).resolve()

    def path_for(self, scope: str, name: str) -> Path:
        return self.root / _safe(scope) / _safe(name)

    def put(self, scope: str, name: str, content: str, content_type: str = "text/plain") -> ArtifactRef:
        data = content.encode("utf-8")
        if len(data) > MAX_ARTIFACT_BYTES:
            raise ApplicationError(f"artifact {name} is {len(data)} bytes, over the {MAX_ARTIFACT_BYTES} limit",
                                   type="ArtifactError", non_retryable=True)
        path = self.path_for(scope, name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except PermissionError as exc:
            raise ApplicationError(f"cannot write artifact {path}: permission denied", type="ArtifactError",
                                   non_retryable=True) from exc
        except OSError as exc:
            raise ApplicationError(f"cannot write artifact {path}: {exc.strerror}", type="ArtifactError") from exc
        return ArtifactRef(uri=path.as_uri(), name=name, sha256=hashlib.sha256(data).hexdigest(),
                           size_bytes=len(data), content_type=content_type, created_at=datetime.now(UTC))

    def get(self, ref: ArtifactRef | str) -> str:
        uri = ref.uri if isinstance(ref, ArtifactRef) else ref
        path = _path_of(uri)
        if not path.resolve().is_relative_to(self.root):
            raise ApplicationError(f"artifact {uri} is outside the store {self.root}", type="ArtifactError",
                                   non_retryable=True)
        try:
            data = path.read_bytes()
        except FileNotFoundError as exc:
            raise ApplicationError(f"artifact {uri} not found", type="ArtifactNotFound", non_retryable=True) from exc
        if isinstance(ref, ArtifactRef) and hashlib.sha256(data).hexdigest() != ref.sha256:
            raise ApplicationError(f"artifact {uri} changed since it was written (sha256 mismatch)",
                                   type="ArtifactError", non_retryable=True)
        return data.decode("utf-8")

    def read_chunk(self, ref: ArtifactRef, offset: int, max_bytes: int) -> tuple[bytes, int]:
        """(bytes offset..offset+max_bytes, the file's size) of an artifact in this store. The whole is checked
        against `ref.sha256` by whoever puts the chunks together; a size that differs from the ref's is refused
        here already."""
        path = self._inside(ref.uri)
        try:
            with path.open("rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                fh.seek(offset)
                data = fh.read(max_bytes)
        except FileNotFoundError as exc:
            raise ApplicationError(f"artifact {ref.name} not found in the worker's store {self.root}",
                                   type="ArtifactNotFound", non_retryable=True) from exc
        if size != ref.size_bytes:
            raise ApplicationError(f"artifact {ref.name} changed since it was written ({size} bytes, not "
                                   f"{ref.size_bytes})", type="ArtifactError", non_retryable=True)
        return data, size

    def _inside(self, uri: str) -> Path:
        path = _path_of(uri)
        if not path.resolve().is_relative_to(self.root):
            raise ApplicationError(f"artifact {uri} is outside the store {self.root}", type="ArtifactError",
                                   non_retryable=True)
        return path

    @staticmethod
    def local_path(ref: ArtifactRef) -> Path:
        return _path_of(ref.uri)


def _path_of(uri: str) -> Path:
    """file:// URIs are percent-encoded (`Path.as_uri`): a root with a space or non-ASCII name must round-trip."""
    if uri.startswith("file://"):
        return Path(unquote(urlparse(uri).path))
    return Path(uri)


def store() -> ArtifactStore:
    return ArtifactStore()


# ----------------------------------------------------------------------------------- completed once
#: The artifact store's folder of completed activity results (per workflow), see `completed_once`.
RESULTS_SCOPE = "_results"


def completed_once(fn: F) -> F:
    """Decorate an artifact-writing activity (under its `@activity.defn` / `@SPEC.activity`): once an attempt has
    completed, its result is kept in the artifact store under the hash of (workflow run, activity name, input); a
    later attempt with the same input — its completion was lost to a worker killed after the model answered, or
    to a server outage — returns that result instead of calling the model again. Completed work is never redone
    or thrown away. Outside an activity (unit tests call agents directly) it is the plain function."""
    result_type: Any = None

    @functools.wraps(fn)
    async def wrapper(inp: Any) -> Any:
        nonlocal result_type
        try:
            info = activity.info()
        except RuntimeError:
            return await fn(inp)
        if result_type is None:
            result_type = TypeAdapter(typing.get_type_hints(fn)["return"])
        payload = inp.model_dump_json() if hasattr(inp, "model_dump_json") else json.dumps(inp, default=str,
                                                                                             sort_keys=True)
        digest = hashlib.sha256(f"{info.workflow_run_id}\n{info.activity_type}\n{payload}".encode()).hexdigest()[:40]
        scope, name = f"{RESULTS_SCOPE}-{info.workflow_id}", f"{info.activity_type}-{digest}.json"
        path = store().path_for(scope, name)
        try:
            kept = await asyncio.to_thread(path.read_text, encoding="utf-8")
            log.info("activity.result_reused", activity=info.activity_type, attempt=info.attempt, file=str(path))
            return result_type.validate_json(kept)
        except (FileNotFoundError, ValueError):
            pass
        result = await fn(inp)
        await asyncio.to_thread(store().put, scope, name, result_type.dump_json(result).decode(), "application/json")
        return result

    return typing.cast(F, wrapper)


def _put_artifact(inp: PutArtifactInput) -> ArtifactRef:
    return store().put(inp.scope, inp.name, inp.content, inp.content_type)


@activity.defn(name="put_artifact")
async def put_artifact(inp: PutArtifactInput) -> ArtifactRef:
    return await asyncio.to_thread(_put_artifact, inp)


def _get_artifact(ref: ArtifactRef) -> str:
    return store().get(ref)


@activity.defn(name="get_artifact")
async def get_artifact(ref: ArtifactRef) -> str:
    return await asyncio.to_thread(_get_artifact, ref)


def _read_artifact_chunk(req: ArtifactChunkRequest) -> ArtifactChunk:
    import base64

    data, size = store().read_chunk(req.ref, req.offset, req.max_bytes)
    return ArtifactChunk(offset=req.offset, data_b64=base64.b64encode(data).decode("ascii"), total_bytes=size)


@activity.defn(name="read_artifact_chunk")
async def read_artifact_chunk(req: ArtifactChunkRequest) -> ArtifactChunk:
    """One chunk of an artifact for a client that cannot see this worker's disk (ReadArtifactWorkflow)."""
    return await asyncio.to_thread(_read_artifact_chunk, req)


ACTIVITIES = [put_artifact, get_artifact, read_artifact_chunk]
