"""The bench's worker processes (bench/scale_processes.py) on a real dev server: one `colloquy worker --role all`
polls both queues; `--split-roles` (the deploy/k8s shape) starts a `--role workflows` and a `--role llm` process per
worker, each ready only once the server sees it poll its own role's queues (and on no other queue)."""

from __future__ import annotations

import uuid

import pytest

from bench.scale_processes import poller_pids, start_worker_processes
from core.pollers import check_queues
from core.settings import WorkerTuning

pytestmark = pytest.mark.dev_server


def _pids(checks) -> list[set[int]]:  # noqa: ANN001
    return [poller_pids(c) for c in checks]


@pytest.mark.parametrize("roles", [("all",), ("workflows", "llm")], ids=["one process", "roles split"])
async def test_each_process_polls_exactly_its_roles_queues(dev_env, roles, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    client = dev_env.client
    queue = f"bench-{uuid.uuid4().hex[:6]}"
    procs = await start_worker_processes(client, client.service_client.config.target_host, queue, 1, 0.0,
                                         WorkerTuning.from_env(), roles=roles)
    try:
        assert len(procs) == len(roles)
        workflows, llm = _pids(await check_queues(client, queue, "workflows")), _pids(await check_queues(client,
                                                                                                       queue, "llm"))
        for proc, role in zip(procs, roles, strict=True):
            on_workflows = all(proc.pid in s for s in workflows)
            on_llm = all(proc.pid in s for s in llm)
            assert (on_workflows, on_llm) == {"all": (True, True), "workflows": (True, False),
                                              "llm": (False, True)}[role], (role, workflows, llm)
    finally:
        for p in procs:
            await p.stop()
    assert all(p.final_cpu is not None and p.final_cpu > 0 for p in procs)
