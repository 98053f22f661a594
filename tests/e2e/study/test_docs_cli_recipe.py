"""docs/study.md's "With the Temporal CLI" block, run VERBATIM with the `temporal` binary against a dev server at a
free port (TEMPORAL_ADDRESS), with a worker on the `colloquy` task queue."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

from models.study.workflow import TASK_QUEUE

pytestmark = pytest.mark.dev_server

DOC = Path(__file__).resolve().parents[3] / "docs" / "study.md"
SECTION = "## With the Temporal CLI"


def recipe_commands() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index(SECTION):]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "the section has no ```bash block"
    commands, pending = [], ""
    for line in block.group(1).splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line
        if line.endswith("\\"):
            pending += "\n"
            continue
        commands.append(pending)
        pending = ""
    return commands


async def _sh(command: str, address: str) -> tuple[int, str]:
    env = dict(os.environ, TEMPORAL_ADDRESS=address, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    proc = await asyncio.create_subprocess_exec("bash", "-c", command, env=env, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode()


async def test_docs_recipe_runs_verbatim(dev_env, worker, offline, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    address = dev_env.client.service_client.config.target_host
    cmds = recipe_commands()
    assert cmds[0].startswith("temporal workflow start --type StudyWorkflow --task-queue colloquy")
    outputs = []
    async with worker(dev_env.client, TASK_QUEUE):
        for cmd in cmds:
            outputs.append((cmd, *await _sh(cmd, address)))

    def find(fragment: str) -> tuple[int, str]:
        hits = [(c, o) for cmd, c, o in outputs if fragment in cmd]
        assert hits, fragment
        return hits[0]

    code, out = find("workflow start")
    assert code == 0 and "Running execution" in out, out
    code, out = find("--name add_participants")
    assert code == 0 and "participant_id:P001" in out and "link: http://127.0.0.1:8234/study/study-oncall/join/" in out, out
    code, out = find("--name progress")
    assert code == 0 and re.search(r'"invited":\s*1\b', out), out
    code, out = find("--name findings_draft")
    assert code == 0 and '"status"' in out and "draft" in out, out
    code, out = find("--name revoke_participant")
    assert code == 0 and "revoked" in out, out
    code, out = find("--name open_link")
    assert code != 0 and "no such study link" in out, out
    code, out = find("--name close_study")
    assert code == 0 and "enough" in out, out
    code, out = find("workflow result")
    assert code == 0 and "report.html" in out and "findings.md" in out, out
