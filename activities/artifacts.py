"""The artifact store's activities and `completed_once`. The store itself (one interface; a local folder or
S3-compatible object storage, chosen by the environment) is activities/artifact_store.py; `ArtifactStore` and
`store()` are re-exported here for the code that imported them from this module.

The store is synchronous (file I/O, blocking S3 calls). Activities never call it on the worker's event loop: each
storage activity (here, activities/interview/storage.py, activities/writing/storage.py, the discussion transcript
and report) is an `async def` that runs its synchronous body with `asyncio.to_thread`, like the query pipeline's
storage. Agent code inside an async activity should do the same around `store().get/put`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import time
import typing
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

import structlog
from pydantic import TypeAdapter
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.artifact_store import MAX_ARTIFACT_BYTES, ArtifactStore, store
from models.common import ArtifactRef, PutArtifactInput
from models.platform.workflow import ArtifactChunk, ArtifactChunkRequest

__all__ = ["ACTIVITIES", "MAX_ARTIFACT_BYTES", "RESULTS_SCOPE", "ArtifactStore", "completed_once", "get_artifact",
           "patiently", "put_artifact", "put_patiently", "read_artifact_chunk", "store"]

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
log = structlog.get_logger("colloquy.artifacts")


# ----------------------------------------------------------------------------------- an outage of the store
#: How long an agent activity rides out an outage of the artifact store (a restart of the object store) in place,
#: heartbeating, before its attempt fails: about the artifact policy's own retry window (rules/policies.py), so an
#: agent's few attempts (meant for the model) are not spent in seconds on a store that is restarting.
STORE_PATIENCE = timedelta(seconds=60)
PATIENCE_FIRST_WAIT_S = 0.5
PATIENCE_MAX_WAIT_S = 5.0


async def patiently(attempt: Callable[[], Awaitable[T]], what: str) -> T:
    """`attempt()`, tried again while it fails only because the artifact store is unavailable (ArtifactUnavailable:
    an outage, throttling), for up to STORE_PATIENCE, heartbeating meanwhile; any other failure, or the same one
    after that, is raised as it is (Temporal's retry policy takes over)."""
    deadline = time.monotonic() + STORE_PATIENCE.total_seconds()
    wait = PATIENCE_FIRST_WAIT_S
    while True:
        try:
            return await attempt()
        except ApplicationError as exc:
            if exc.type != "ArtifactUnavailable" or time.monotonic() + wait > deadline:
                raise
            log.warning("artifact_store.unavailable_waiting", what=what, wait_s=wait, error=str(exc)[:300])
        with contextlib.suppress(RuntimeError):   # outside an activity (unit tests) there is nothing to beat
            activity.heartbeat()
        await asyncio.sleep(wait)
        wait = min(wait * 2, PATIENCE_MAX_WAIT_S)


async def put_patiently(scope: str, name: str, content: str, content_type: str = "text/plain") -> ArtifactRef:
    """`store().put` off the event loop, riding out an outage of the store (`patiently`): an agent's output is
    kept, not thrown away with its model call."""
    return await patiently(lambda: asyncio.to_thread(store().put, scope, name, content, content_type),
                           f"write {scope}/{name}")


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
        artifacts = store()
        kept = await patiently(lambda: asyncio.to_thread(artifacts.read_optional, scope, name), f"read {name}")
        if kept is not None:
            try:
                result = result_type.validate_json(kept)
            except ValueError:
                pass
            else:
                log.info("activity.result_reused", activity=info.activity_type, attempt=info.attempt,
                         file=artifacts.location(scope, name))
                return result
        # an attempt that failed only on the store (reading its inputs, writing its output) is tried again in place
        result = await patiently(lambda: fn(inp), info.activity_type)
        await put_patiently(scope, name, result_type.dump_json(result).decode(), "application/json")
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
