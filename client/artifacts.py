"""Reading a run's artifacts from any client: through Temporal, never from the `file://` path in a result (that
path is on the worker's disk, which a client in another container or on another machine cannot see).

    text = await read_artifact(client, ref, task_queue)

Each chunk (ARTIFACT_CHUNK_BYTES) is one short ReadArtifactWorkflow on the run's task queue; a worker whose store
holds the file reads it (`read_artifact_chunk`). The whole is checked against the ref's sha256.

    text = await read_artifact_text(client, ref, task_queue)

is what `colloquy serve` uses: this process's own artifact store when it holds the ref (the same object storage
as the workers, or the same folder on this host), else a worker as above — so a `serve` with a data dir of its
own, or several `serve` replicas, open every finished run's essay and report.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta

from temporalio.client import Client, WorkflowFailureError
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ApplicationError, FailureError

from client.errors import CliError, ExitCode
from client.worker_check import require_worker
from models.common import ArtifactRef
from models.platform.workflow import (
    ARTIFACT_CHUNK_BYTES,
    ARTIFACT_PIPELINE,
    READ_ARTIFACT_WORKFLOW_TYPE,
    ArtifactChunk,
    ArtifactChunkRequest,
)


def helper_attributes(pipeline: str) -> TypedSearchAttributes:
    """`ColloquyPipeline=<pipeline>` from the start of a helper workflow (artifact reads, rehearsal answers), so the
    Web UI's list can leave helpers out (`ColloquyPipeline != "artifact"`) before their first workflow task."""
    from core import search_attributes as sa

    return TypedSearchAttributes([SearchAttributePair(sa.PIPELINE, pipeline)])


MAX_READ_BYTES = 50 * 1024 * 1024  # the artifact store's own limit (activities/artifacts.py)
CHUNK_TIMEOUT = timedelta(seconds=60)


async def read_artifact_bytes(client: Client, ref: ArtifactRef, task_queue: str,
                              chunk_bytes: int = ARTIFACT_CHUNK_BYTES) -> bytes:
    if ref.size_bytes > MAX_READ_BYTES:
        raise CliError(f"artifact {ref.name} is {ref.size_bytes} bytes, over the {MAX_READ_BYTES} read limit",
                       ExitCode.REFUSED)
    await require_worker(client, task_queue, agents=False)
    data = bytearray()
    while True:
        request = ArtifactChunkRequest(ref=ref, offset=len(data), max_bytes=chunk_bytes)
        try:
            chunk: ArtifactChunk = await client.execute_workflow(
                READ_ARTIFACT_WORKFLOW_TYPE, request, id=f"artifact-read-{uuid.uuid4().hex[:12]}",
                task_queue=task_queue, result_type=ArtifactChunk, execution_timeout=CHUNK_TIMEOUT,
                static_summary=f"read {ref.name} from byte {len(data)}", search_attributes=helper_attributes(
                    ARTIFACT_PIPELINE))
        except WorkflowFailureError as exc:
            raise _artifact_error(exc, ref) from None
        piece = base64.b64decode(chunk.data_b64)
        data += piece
        if not piece or len(data) >= chunk.total_bytes:
            break
    if hashlib.sha256(data).hexdigest() != ref.sha256:
        raise CliError(f"artifact {ref.name} changed since it was written (sha256 mismatch)", ExitCode.REFUSED)
    return bytes(data)


async def read_artifact(client: Client, ref: ArtifactRef, task_queue: str,
                        chunk_bytes: int = ARTIFACT_CHUNK_BYTES) -> str:
    """The artifact's text, read through a worker on `task_queue` (the run's own queue)."""
    return (await read_artifact_bytes(client, ref, task_queue, chunk_bytes)).decode("utf-8")


def _artifact_error(exc: WorkflowFailureError, ref: ArtifactRef) -> CliError:
    cause: BaseException | None = exc.cause
    while isinstance(cause, FailureError) and not isinstance(cause, ApplicationError) and cause.cause is not None:
        cause = cause.cause
    if isinstance(cause, ApplicationError) and cause.type in ("ArtifactNotFound", "ArtifactError"):
        return CliError(cause.message, ExitCode.REFUSED)
    return CliError(f"cannot read artifact {ref.name}: {getattr(cause, 'message', None) or cause or exc}",
                    ExitCode.FAILED)


async def read_artifact_text(client: Client, ref: ArtifactRef,
                             task_queue: str | Callable[[], Awaitable[str]]) -> str:
    """The artifact's text through this process's store (activities/artifact_store.py) when it holds the ref, else
    through a worker on `task_queue` (or the queue the callable finds, asked only then). Store errors other than
    "not here" are CliErrors (REFUSED)."""
    from activities.artifact_store import store

    try:
        own = store()
        if own.holds(ref):
            return await asyncio.to_thread(own.get, ref)
    except ApplicationError as exc:
        if exc.type != "ArtifactNotFound":  # a file:// ref of another host's folder at the same path: ask a worker
            raise CliError(exc.message, ExitCode.REFUSED) from None
    return await read_artifact(client, ref, task_queue if isinstance(task_queue, str) else await task_queue())


def checked_store_settings() -> str:
    """The artifact store the environment names, described (`colloquy worker` and `serve` print it at start);
    unusable settings are a CliError (exit 2) before anything starts, not a failure in every activity."""
    from core.codec import encryption_enabled
    from core.settings import ArtifactSettings, ArtifactSettingsError

    try:
        settings = ArtifactSettings.from_env()
        sealed = settings.encrypted(encryption_enabled())
    except ArtifactSettingsError as exc:
        raise CliError(f"artifact store: {exc}", ExitCode.USAGE) from None
    return settings.describe() + (", encrypted with the payload keys" if sealed else "")
