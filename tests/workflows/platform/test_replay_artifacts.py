"""ReadArtifactWorkflow (the client's chunked artifact reads): a fresh run replays, and its recorded history
(tests/histories/platform_read_artifact.json) pins the patch ARTIFACT_READ_SEARCH_ATTRIBUTES
(models/platform/patches.py). Re-record after an intended change: COLLOQUY_RECORD_HISTORIES=1."""

from __future__ import annotations

import base64
import os

from activities.artifact_store import ArtifactStore
from core import search_attributes as sa
from models.platform.workflow import (
    ARTIFACT_PIPELINE,
    READ_ARTIFACT_WORKFLOW_TYPE,
    ArtifactChunk,
    ArtifactChunkRequest,
)
from tests.conftest import HISTORIES, replay, replay_recorded

NAME = "platform_read_artifact"


def _recording() -> str | None:
    if os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1" or not (HISTORIES / f"{NAME}.json").exists():
        return NAME
    return None


async def test_an_artifact_read_replays(ts_env, worker, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    ref = ArtifactStore(tmp_path / "artifacts").put("replay", "essay.md", "# An essay\n\nkept whole.\n")
    async with worker(ts_env.client) as queue:
        handle = await ts_env.client.start_workflow(
            READ_ARTIFACT_WORKFLOW_TYPE, ArtifactChunkRequest(ref=ref, max_bytes=8), id="artifact-read-replay",
            task_queue=queue, result_type=ArtifactChunk)
        chunk = await handle.result()
        assert base64.b64decode(chunk.data_b64) == b"# An ess" and chunk.total_bytes == ref.size_bytes
        desc = await handle.describe()
        assert desc.typed_search_attributes.get(sa.PIPELINE) == ARTIFACT_PIPELINE
        await replay(handle, record_as=_recording())


async def test_recorded_history_replays():
    await replay_recorded(NAME)
