"""README's "Statuses" section: its table is the vocabulary in models/status.py, and its `temporal workflow list`
searches, run verbatim with the real `temporal` CLI against a dev server, find the runs they should."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import uuid
from pathlib import Path

import pytest
from temporalio.client import WorkflowExecutionStatus

from models.interview import names as interview
from models.interview.workflow import InterviewInput
from models.query import workflow as query
from models.status import STATUSES
from workers.main import running_workers

README = Path(__file__).resolve().parents[3] / "README.md"
SECTION = "### Statuses"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = re.search(r"^##", text[start + len(SECTION):], re.M)
    return text[start: start + len(SECTION) + end.start()] if end else text[start:]


def commands() -> list[str]:
    block = re.search(r"```bash\n(.*?)```", section(), re.S)
    assert block
    return [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def test_readme_table_is_the_status_vocabulary():
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \| (.+?) \|$", section(), re.M)
    assert {name: (meaning, pipelines) for name, meaning, pipelines in rows} == STATUSES


@pytest.mark.dev_server
async def test_readme_search_attribute_examples_find_their_runs(dev_env, offline):
    client = dev_env.client
    address = client.service_client.config.target_host
    live_id, bad_id = f"readme-live-{uuid.uuid4().hex[:6]}", f"readme-bad-{uuid.uuid4().hex[:6]}"
    async with running_workers(client) as queue:
        live = await client.start_workflow(interview.WORKFLOW_TYPE, InterviewInput(
            topic="on-call nights", duration_seconds=900), id=live_id, task_queue=queue)
        bad = await client.start_workflow(query.WORKFLOW_TYPE, {"txt": "typo"}, id=bad_id, task_queue=queue)
        try:
            for _ in range(100):
                if (await bad.describe()).status == WorkflowExecutionStatus.FAILED:
                    break
                await asyncio.sleep(0.1)
            env = dict(os.environ, TEMPORAL_ADDRESS=address,
                       PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
            expected = {"interview": live_id, "query": bad_id}
            cmds = commands()
            assert len(cmds) == 2
            for cmd in cmds:
                want = expected[re.search(r'ColloquyPipeline="(\w+)"', cmd).group(1)]
                out = ""
                for _ in range(50):   # visibility is eventually consistent
                    proc = await asyncio.create_subprocess_exec("bash", "-c", cmd, env=env,
                                                                stdout=asyncio.subprocess.PIPE,
                                                                stderr=asyncio.subprocess.STDOUT)
                    out = (await proc.communicate())[0].decode()
                    assert proc.returncode == 0, out
                    if want in out:
                        break
                    await asyncio.sleep(0.2)
                assert want in out, f"{cmd}\n{out}"
        finally:
            await live.terminate("readme test done")
