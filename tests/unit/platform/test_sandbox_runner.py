"""The workflow sandbox with its entry code compiled once (workers/sandbox.py): the same sandbox as the SDK's.

What must hold on it, whatever runs: a workflow cannot reach what the sandbox restricts, each run gets its own fresh
copy of the workflow's module, and every workflow worker `colloquy worker` builds uses it. Should the SDK's private
shape change, `usable()` turns False and the first test here fails (the worker would fall back to the SDK's runner,
slower, and nobody would know)."""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from tests.unit.platform.sandbox_probe import RUNS, ReadsTheClock
from workers.main import build_workers
from workers.sandbox import CompiledSandboxRunner, compiled, sandbox_runner, usable


def test_the_pinned_sdk_still_has_the_shape_the_runner_relies_on():
    assert usable(), "temporalio's sandbox changed: revisit workers/sandbox.py"
    assert isinstance(sandbox_runner(), CompiledSandboxRunner)


@pytest.mark.parametrize("runner", [SandboxedWorkflowRunner(), CompiledSandboxRunner()], ids=["sdk", "compiled"])
async def test_restrictions_and_a_fresh_module_per_run_as_the_sdks_sandbox(ts_env, runner):
    client: Client = ts_env.client
    queue = f"sandbox-{uuid.uuid4().hex[:8]}"
    before = compiled.cache_info().hits
    async with Worker(client, task_queue=queue, workflows=[ReadsTheClock], workflow_runner=runner):
        results = [await client.execute_workflow(ReadsTheClock.run, id=f"{queue}-{i}", task_queue=queue)
                   for i in range(3)]
    assert results == [["RestrictedWorkflowAccessError", "1"]] * 3
    assert RUNS == []  # the worker's own copy of the module never ran the workflow
    if isinstance(runner, CompiledSandboxRunner):
        assert compiled.cache_info().hits > before  # the entry strings were compiled once and reused


async def test_every_workflow_worker_colloquy_builds_uses_it(ts_env):
    workers = build_workers(ts_env.client, task_queue=f"sandbox-{uuid.uuid4().hex[:8]}", role="all")
    runners = [w.config().get("workflow_runner") for w in workers if w.config().get("workflows")]
    assert runners and all(isinstance(r, CompiledSandboxRunner) for r in runners)
