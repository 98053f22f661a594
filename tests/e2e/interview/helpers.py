"""Shared bits of the interview e2e tests: a worker in a subprocess (`colloquy worker`), small transcripts."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from contextlib import asynccontextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
COLLOQUY = Path(sys.executable).parent / "colloquy"

ANSWERS = [
    "Honestly, by accident: I kept answering the pager at night and after a year it became my job.",
    "Most of our outages were config changes, so we started reviewing config exactly like code.",
    "A certificate expired at 2 a.m. on Black Friday and the alert went to a channel nobody watched.",
    "We deleted every alert nobody had acted on in ninety days and cut our pages by seventy percent.",
    "We shipped without docs for six months during the monolith split and new hires paid for it.",
    "Blameless reviews only work if the person who pushed the button is in the room and not afraid.",
    "Escalate early. Nobody ever got fired for waking me up too soon.",
]
# A long answer and an entry limit it is over (it goes in as 3 entries, cut between sentences)
LIMIT = 200
LONG = ("I never planned to own on-call. It started with one bad night in March, when the payments service fell "
        "over and nobody else picked up. After that the pager simply stayed with me! We had no runbooks, no "
        "rotation and no budget for either. So I wrote the first runbook on a train, on my phone, in one go. "
        "Was it good? Not really, but it was something the next person could read at three in the morning.")
ESSAY = ('# The pager taught me\n\nI never planned to own on-call. "A certificate expired at 2 a.m. on Black Friday '
         'and the alert went to a channel nobody watched." That night changed how I think about alerts.\n')


def worker_env(artifacts: Path, script: dict | None = None, tmp: Path | None = None) -> dict[str, str]:
    env = dict(os.environ, COLLOQUY_PROFILE="offline", COLLOQUY_ARTIFACT_DIR=str(artifacts),
               LITELLM_LOCAL_MODEL_COST_MAP="True", COLLOQUY_LOG_LEVEL="WARNING")
    env.pop("COLLOQUY_OFFLINE_LATENCY_MS", None)
    env.pop("COLLOQUY_OFFLINE_SCRIPT", None)
    if script is not None:
        assert tmp is not None
        path = tmp / f"offline-script-{len(list(tmp.glob('offline-script-*')))}.json"
        path.write_text(json.dumps(script))
        env["COLLOQUY_OFFLINE_SCRIPT"] = str(path)
    return env


class WorkerProcess:
    """`colloquy worker` in its own process group: started, SIGKILLed (a crash) or stopped (SIGTERM). `wrap`: a
    command prefix that runs it elsewhere (a network namespace of the fault drill: tests/netns.py)."""

    def __init__(self, address: str, task_queue: str, env: dict[str, str], log: Path,
                 wrap: list[str] | None = None) -> None:
        self.address, self.task_queue, self.env, self.log = address, task_queue, env, log
        self.wrap = list(wrap or [])
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        out = open(self.log, "ab")  # noqa: SIM115  (kept open for the child's lifetime)
        self.proc = await asyncio.create_subprocess_exec(
            *self.wrap, str(COLLOQUY), "worker", "--address", self.address, "--task-queue", self.task_queue,
            cwd=str(ROOT), env=self.env, stdout=out, stderr=out, start_new_session=True)
        out.close()

    async def kill(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        await self.proc.wait()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 30)
            except TimeoutError:
                os.killpg(self.proc.pid, signal.SIGKILL)
                await self.proc.wait()


@asynccontextmanager
async def worker_process(address: str, task_queue: str, env: dict[str, str], log: Path):
    wp = WorkerProcess(address, task_queue, env, log)
    await wp.start()
    try:
        yield wp
    finally:
        await wp.stop()
