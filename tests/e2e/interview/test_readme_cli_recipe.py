"""The README's "Use it with the Temporal CLI" block, run VERBATIM with the `temporal` binary from .venv/bin
against a dev server started on 127.0.0.1 at a free port (the `dev_env` fixture), with a worker running."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

from client.interview.cli import session_state, wait_for_state
from models.interview.entries import TranscriptView
from models.interview.names import QUERY_TRANSCRIPT, TASK_QUEUE

pytestmark = pytest.mark.dev_server

README = Path(__file__).resolve().parents[3] / "README.md"
SECTION = "## Use it with the Temporal CLI"


def recipe_commands() -> list[str]:
    """The shell commands of the section's first bash block (continuations joined, comments dropped)."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index(SECTION):]
    nxt = re.search(r"^## ", section[len(SECTION):], re.M)
    section = section[: len(SECTION) + nxt.start()] if nxt else section
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "the README section has no ```bash block"
    commands: list[str] = []
    pending = ""
    for line in block.group(1).splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line
        if line.endswith("\\"):
            pending += "\n"
            continue
        commands.append(pending)
        pending = ""
    assert not pending, "a command ends with a dangling backslash"
    return commands


def test_recipe_shows_start_signal_update_query_and_result():
    cmds = recipe_commands()
    kinds = [" ".join(c.split()[:3]) for c in cmds]
    assert kinds[0] == "temporal workflow start"
    assert all(c.startswith("temporal workflow ") for c in cmds)
    assert {"temporal workflow signal", "temporal workflow query", "temporal workflow result"} <= set(kinds)
    assert any("update execute" in c and "--name submit_entry" in c for c in cmds)
    assert all('--address "$TEMPORAL_ADDRESS"' in c for c in cmds)
    assert "--type InterviewWorkflow --task-queue colloquy" in cmds[0]


async def _sh(command: str, address: str) -> tuple[int, str]:
    env = dict(os.environ, TEMPORAL_ADDRESS=address, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    proc = await asyncio.create_subprocess_exec("bash", "-c", command, env=env, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode()


async def test_readme_recipe_runs_verbatim(dev_env, worker, offline):
    address = dev_env.client.service_client.config.target_host
    cmds = recipe_commands()
    wf_id = re.search(r"--workflow-id (\S+)", cmds[0]).group(1)
    outputs: list[tuple[str, int, str]] = []
    async with worker(dev_env.client, TASK_QUEUE):
        handle = dev_env.client.get_workflow_handle(wf_id)
        for cmd in cmds:
            code, out = await _sh(cmd, address)
            outputs.append((cmd, code, out))
            if "workflow start" in cmd:
                # A person reads the start output before typing on; the planner needs a moment.
                await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS", 60)
            if "--name transcript_entry" in cmd:
                for _ in range(100):  # the signal is asynchronous: see it land before querying
                    view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
                    if any(e.entry_id == "a1" for e in view.entries):
                        break
                    await asyncio.sleep(0.05)
        final = await session_state(handle)
        view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)

    def find(fragment: str) -> tuple[int, str]:
        hits = [(c, o) for cmd, c, o in outputs if re.search(fragment, cmd)]
        assert hits, f"no README command contains {fragment!r}"
        return hits[0]

    code, out = find("workflow start")
    assert code == 0 and "Running execution" in out and wf_id in out, out
    code, out = find("--type session_state")
    assert code == 0 and '"status"' in out and '"phase"' in out and "next_question" in out, out
    code, out = find('"entry_id": "q1"')
    assert code == 0 and "What was your worst night on call?" in out and "interviewer_instructions" in out, out
    code, out = find("--name transcript_entry")
    assert code == 0 and "Signal workflow succeeded" in out, out
    code, out = find('"speaker": "narrator"')
    assert code != 0 and "narrator" in out and "speaker" in out.lower(), out
    code, out = find(r"--type transcript$")
    assert code == 0 and "Black Friday" in out and '"q1"' in out and '"x1"' not in out, out
    code, out = find("--type event_log")
    assert code == 0 and "CANDIDATE_MESSAGE" in out and "INTERVIEW_STARTED" in out, out
    code, out = find("--name session_control")
    assert code == 0 and "Signal workflow succeeded" in out, out
    code, out = find("workflow result")
    assert code == 0 and "COMPLETED" in out and "essay" in out, out
    assert final.status == "COMPLETED"
    said = [e.entry_id for e in view.entries if e.client_id != "engine"]      # (and the engine's own questions)
    assert said == ["q1", "a1"]
