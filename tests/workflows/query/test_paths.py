"""The door (issue 38, item 2): a notes workflow started with a path that is not inside the worker's roots fails at
once, non-retryably, with one clear line — before any activity runs, so nothing is read or written.

Before: `{"notes_dir": "/etc"}` wrote /etc/logs/… and /etc/.notes.lock; `{"directory": "../../../../etc"}` walked
the worker's /etc. Starts here are raw JSON, as `temporal workflow start --input` sends them.
"""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from models.query.workflow import (
    CONTEXT_WORKFLOW_TYPE,
    IMPORT_WORKFLOW_TYPE,
    REPARSE_WORKFLOW_TYPE,
    WORKFLOW_TYPE,
)
from tests.conftest import replay
from tests.workflows.query.helpers import recording


async def _refusal(client, queue: str, workflow_type: str, raw: dict) -> ApplicationError:  # noqa: ANN001
    handle = await client.start_workflow(workflow_type, raw, id=f"paths-{uuid.uuid4().hex[:8]}", task_queue=queue)
    with pytest.raises(WorkflowFailureError) as info:
        await handle.result()
    cause = info.value.cause
    assert isinstance(cause, ApplicationError)
    return cause


@pytest.mark.parametrize("workflow_type, raw, field", [
    (WORKFLOW_TYPE, {"text": "slept 8h", "notes_dir": "OUTSIDE"}, "notes_dir"),
    (WORKFLOW_TYPE, {"text": "slept 8h", "notes_dir": "../outside"}, "notes_dir"),
    (IMPORT_WORKFLOW_TYPE, {"directory": "../../../../etc"}, "directory"),
    (IMPORT_WORKFLOW_TYPE, {"directory": "/etc"}, "directory"),
    (IMPORT_WORKFLOW_TYPE, {"directory": "tmp/journal", "notes_dir": "C:/notes"}, "notes_dir"),
    (IMPORT_WORKFLOW_TYPE, {"directory": "tmp/journal", "files": ["../outside/secret.md"]}, "files[0]"),
    (CONTEXT_WORKFLOW_TYPE, {"notes_dir": "OUTSIDE"}, "notes_dir"),
    (REPARSE_WORKFLOW_TYPE, {"notes_dir": "~root"}, "notes_dir"),
])
async def test_a_path_outside_the_roots_fails_the_run_at_the_door(ts_env, worker, offline, tmp_path, workflow_type,
                                                                  raw, field):
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "secret.md").write_text("2024-01-01 private words")
    raw = {k: str(outside) if v == "OUTSIDE" else v for k, v in raw.items()}
    async with worker(ts_env.client) as queue:
        err = await _refusal(ts_env.client, queue, workflow_type, raw)
    assert err.type == "InvalidInput" and err.non_retryable
    assert err.message.startswith(f"invalid {workflow_type} input: paths name a place inside the worker's "
                                  "configured roots")
    assert f"{field}: " in err.message and "\n" not in err.message
    assert offline.calls() == []
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]     # no logs/, no .notes.lock


async def test_a_refused_start_replays(ts_env, worker, offline, tmp_path):
    """The door's run is the recorded history that pins its patch id (models/query/patches.py PATHS_AT_THE_DOOR)."""
    async with worker(ts_env.client) as queue:
        handle = await ts_env.client.start_workflow(WORKFLOW_TYPE, {"text": "slept 8h", "notes_dir": "/etc"},
                                                    id="paths-refused-replay", task_queue=queue)
        with pytest.raises(WorkflowFailureError):
            await handle.result()
        await replay(handle, record_as=recording("query_paths_refused"))


async def test_a_path_inside_the_roots_is_taken(ts_env, worker, offline, tmp_path):
    """A folder named inside the notes root (relative) is where the notes go; the root itself is the default."""
    from tests.workflows.query.helpers import no_update, route

    offline.script("route_input", route("log", []))
    offline.script("parse_log", {"date": "2026-01-16", "timestamp": "2026-01-16T08:00:00Z", "domain_data": {}})
    offline.script("observe_context", no_update())
    async with worker(ts_env.client) as queue:
        handle = await ts_env.client.start_workflow(
            WORKFLOW_TYPE, {"text": "Rest day.", "notes_dir": "alice", "today": "2026-01-16"},
            id=f"paths-{uuid.uuid4().hex[:8]}", task_queue=queue)
        await handle.result()
    assert (tmp_path / "alice" / "logs").is_dir()


# ------------------------------------------------------------------------------------------ the HTTP door
@pytest.mark.parametrize("body", [{"text": "slept 8h", "notes_dir": "/etc"},
                                  {"text": "slept 8h", "directory": "../../../../etc"}])
async def test_the_notes_api_takes_no_path_from_a_request(tmp_path, body):
    """POST /notes/input: the notes folder is the server's (`--notes-dir`), never the request's."""
    from aiohttp.test_utils import TestClient, TestServer

    from client.query.cli import build_api

    async def no_temporal():  # noqa: ANN202 — a refused request never reaches Temporal
        raise AssertionError("a refused request started a workflow")

    async with TestClient(TestServer(build_api(no_temporal, "q", "fitness", None), host="127.0.0.1")) as http:
        response = await http.post("/input", json=body)
        assert response.status == 400
        assert "a request names no folder" in (await response.json())["error"]


def test_the_notes_api_refuses_a_notes_folder_outside_the_root_at_start_up(tmp_path):
    from client.errors import CliError
    from client.query.cli import build_api

    with pytest.raises(CliError, match="outside the notes root"):
        build_api(None, "q", "fitness", str(tmp_path.parent))
    build_api(None, "q", "fitness", str(tmp_path / "alice"))   # inside: fine
