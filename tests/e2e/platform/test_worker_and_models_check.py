"""`colloquy worker` (a real process) + `colloquy models --check` against the dev server; SIGTERM shutdown."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from models.platform.workflow import ModelCheckReport

pytestmark = pytest.mark.dev_server
COLLOQUY = str(Path(sys.executable).parent / "colloquy")


async def until_polling(client, queue: str, limit_s: float = 180.0) -> None:
    """Wait until the worker polls both of its queues (the workflow queue and its -llm agents)."""
    from client.errors import CliError
    from client.worker_check import missing_queues

    for _ in range(int(limit_s / 0.5)):
        try:
            if not await missing_queues(client, queue):
                return
        except CliError:                 # the server did not answer in time: ask again
            pass
        await asyncio.sleep(0.5)
    raise AssertionError(f"no worker polled {queue} within {limit_s:.0f}s")


async def test_models_check_runs_every_agent_on_a_worker_process(dev_env, tmp_path):
    # the agents a fresh process registers (this test process may hold extra, test-only ones)
    listing = await asyncio.to_thread(subprocess.run, [sys.executable, "-c", (
        "import json, core.settings; from workers import registry; registry.llm_activities(); "
        "from activities.llm.config import AGENT_REGISTRY; print(json.dumps(sorted(AGENT_REGISTRY)))")],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[3])
    agents = json.loads(listing.stdout.strip().splitlines()[-1])
    assert "model_check" in agents
    # every agent is checked with its own output schema (answered by its offline responder); route_input's
    # model answers garbage twice: the check fails, naming the agent and why
    script = tmp_path / "offline-script.json"
    script.write_text(json.dumps({"route_input": [{"fault": "invalid_json"}, {"fault": "invalid_json"}]}))
    address = dev_env.client.service_client.config.target_host
    queue = f"e2e-{uuid.uuid4().hex[:6]}"
    env = {**os.environ, "TEMPORAL_ADDRESS": address, "COLLOQUY_TASK_QUEUE": queue,
           "COLLOQUY_OFFLINE_SCRIPT": str(script), "COLLOQUY_PROFILE": "offline"}
    worker = subprocess.Popen([COLLOQUY, "worker", "--register-search-attributes"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    try:
        await until_polling(dev_env.client, queue)       # what it needs, not a fixed delay (a slow start-up)
        check = await asyncio.to_thread(
            subprocess.run, [COLLOQUY, "models", "--check", "--timeout", "120"], env=env,
            capture_output=True, text=True, timeout=180)
        assert check.returncode == 1, check.stdout + check.stderr
        out = check.stdout
        assert f"{len(agents) - 1}/{len(agents)} agents answered" in out, check.stderr
        assert "error: agent route_input failed the check: route_input: offline model offline-low returned " \
               "invalid output twice" in check.stderr
        wf_id = re.search(r"Model check (model-check-\S+):", out).group(1)
        report = await dev_env.client.get_workflow_handle(wf_id, result_type=ModelCheckReport).result()
        assert sorted(r.agent for r in report.rows) == agents
        assert [r.agent for r in report.rows if not r.ok] == ["route_input"]
        assert {r.profile for r in report.rows} == {"offline"}
        by_agent = {r.agent: r for r in report.rows}
        assert by_agent["interview_planner"].output_schema == "PlanSnapshot"
        assert by_agent["interview_planner"].structured_output == "json_schema"
        assert by_agent["interview_writer"].structured_output == "text"
        assert report.totals.calls == len(agents)  # the failed check made its calls too

        worker.send_signal(signal.SIGTERM)
        output, _ = await asyncio.to_thread(worker.communicate, timeout=60)
        assert worker.returncode == 0, output
        assert f"polling {queue}, {queue}-llm" in output and "Colloquy worker stopped." in output
        assert "search attributes: all present" in output  # start_local registered them already
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


async def test_models_check_rejects_unknown_agents_before_starting_anything(dev_env):
    env = {**os.environ, "TEMPORAL_ADDRESS": dev_env.client.service_client.config.target_host}
    result = await asyncio.to_thread(subprocess.run, [COLLOQUY, "models", "--check", "--agent", "no_such_agent"],
                                     env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "unknown agent(s) no_such_agent" in result.stderr


async def test_search_attributes_are_registered_on_a_fresh_namespace(dev_env):
    from datetime import timedelta

    from google.protobuf.duration_pb2 import Duration
    from temporalio.api.workflowservice.v1 import RegisterNamespaceRequest

    from core.server import ensure_search_attributes
    from core.settings import SEARCH_ATTRIBUTES

    namespace = f"colloquy-sa-{uuid.uuid4().hex[:6]}"
    retention = Duration()
    retention.FromTimedelta(timedelta(days=1))
    await dev_env.client.workflow_service.register_namespace(
        RegisterNamespaceRequest(namespace=namespace, workflow_execution_retention_period=retention))
    assert sorted(await ensure_search_attributes(dev_env.client, namespace)) == sorted(SEARCH_ATTRIBUTES)
    assert await ensure_search_attributes(dev_env.client, namespace) == []
