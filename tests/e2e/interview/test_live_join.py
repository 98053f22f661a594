"""`colloquy interview join` in a pseudo-terminal (pexpect), against the dev server and in-process workers: the
screen follows the session without Enter (a pushed question, the end), and an answer typed after the end is
reported and kept in the local outbox, not lost."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pexpect
import pytest

from models.interview.entries import TranscriptView
from models.interview.names import QUERY_TRANSCRIPT
from tests.e2e.interview.helpers import ROOT
from tests.workflows.interview.helpers import adaptive_plan, control, decision, start, state

pytestmark = pytest.mark.dev_server

FIRST = "How did you end up carrying the pager?"
SECOND = "Tell me about the worst night you had on call"


async def expect(child: pexpect.spawn, pattern: str, timeout: float = 30) -> str:
    """Wait for `pattern` on the terminal (in a thread: the workers run in this loop meanwhile)."""
    await asyncio.to_thread(child.expect, pattern, timeout=timeout)
    return child.before + child.after


async def test_join_is_live_in_a_terminal(dev_env, worker, offline, tmp_path):
    offline.script("interview_orchestrator", decision(FIRST, qid="q-origin"),
                   *[decision(SECOND, qid="q-worst", phase="deep_dive")] * 40)
    address = dev_env.client.service_client.config.target_host
    env = dict(os.environ, COLLOQUY_DATA_DIR=str(tmp_path), PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm",
               COLLOQUY_LOG_LEVEL="ERROR")
    async with worker(dev_env.client) as queue:
        h = await start(dev_env, queue, plan=adaptive_plan(), duration_seconds=40, cycle_seconds=1,
                        write_essay=False)
        await asyncio.sleep(0.5)
        child = pexpect.spawn(sys.executable, ["-m", "client.cli", "interview", "join", h.id, "--address", address,
                                               "--entry-prefix", "pty"],
                              cwd=str(ROOT), env=env, encoding="utf-8", dimensions=(50, 250), timeout=30)
        child.logfile_read = (tmp_path / "terminal.log").open("w")
        try:
            await expect(child, FIRST)
            # the phase changes at 15 % (6 s): shown, and the question in force waits for its answer (kept)
            seen = await expect(child, "phase: deep_dive", timeout=30)
            assert SECOND not in seen
            child.sendline("Honestly, by accident: I kept answering the pager at night.")
            # the next question, decided with the answer, is pushed to the screen — no key pressed
            seen = await expect(child, SECOND, timeout=30)
            assert "presence is not supported" not in seen    # the engine takes join's heartbeats
            # the interviewer (another client) ends the session: the end is on screen without Enter
            await control(h, "end")
            await expect(child, "the interview has ended", timeout=15)
            # ... and an answer typed after the end is reported and kept, not lost
            child.sendline("One more thing about that night.")
            await expect(child, "not delivered: the interview has ended", timeout=15)
            await asyncio.to_thread(child.expect, pexpect.EOF, timeout=15)
        finally:
            child.close(force=True)
        final = await state(h)
        view = await h.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
    mine = [(e.speaker, e.text) for e in view.entries if e.entry_id.startswith("pty-")]
    asked = [e.text for e in view.entries if e.client_id == "engine"]     # recorded by the engine, not by join
    assert asked[:2] == [FIRST, SECOND]
    assert mine == [("interviewee", "Honestly, by accident: I kept answering the pager at night.")]
    assert final.status in ("FINALIZING", "COMPLETED") and final.exit_reason == "ended_by_client"
    outbox = [json.loads(line) for line in (tmp_path / "join" / f"{h.id}.jsonl").read_text().splitlines()]
    states = {}
    for rec in outbox:
        states.setdefault(rec["entry_id"], []).append(rec["state"])
    texts = {rec["entry_id"]: rec["text"] for rec in outbox if rec["state"] == "typed"}
    late = next(i for i, t in texts.items() if t == "One more thing about that night.")
    assert states[late] == ["typed", "not_delivered"]
    delivered = next(i for i, t in texts.items() if t.startswith("Honestly"))
    assert states[delivered] == ["typed", "delivered"]
