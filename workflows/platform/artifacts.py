"""ReadArtifactWorkflow: one chunk of an artifact, read by a worker whose store holds it, for a client that cannot
see the worker's disk (containers, k8s, another machine). Results carry `file://` refs on the worker's disk; the
client loops over chunks of ARTIFACT_CHUNK_BYTES (client/artifacts.py) and checks the whole against the ref's
sha256.

A helper, not a pipeline: `ColloquyPipeline=artifact` (set by the client at start and upserted here, patch
ARTIFACT_READ_SEARCH_ATTRIBUTES in models/platform/patches.py) lets the Web UI list leave these out:
`ColloquyPipeline != "artifact"`."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.artifacts import read_artifact_chunk
    from core import search_attributes as sa
    from models.platform.patches import ARTIFACT_READ_SEARCH_ATTRIBUTES
    from models.platform.workflow import (
        ARTIFACT_PIPELINE,
        READ_ARTIFACT_WORKFLOW_TYPE,
        ArtifactChunk,
        ArtifactChunkRequest,
    )
    from workflows.calls import call_activity


@workflow.defn(name=READ_ARTIFACT_WORKFLOW_TYPE)
class ReadArtifactWorkflow:
    @workflow.run
    async def run(self, request: ArtifactChunkRequest) -> ArtifactChunk:
        end = request.offset + request.max_bytes
        if workflow.patched(ARTIFACT_READ_SEARCH_ATTRIBUTES):
            sa.upsert(pipeline=ARTIFACT_PIPELINE)
            workflow.set_current_details(f"reading {request.ref.name} from byte {request.offset}")
        return await call_activity(read_artifact_chunk, request, kind="artifact",
                                   summary=f"read {request.ref.name} bytes {request.offset}-{end}",
                                   result_type=ArtifactChunk)
