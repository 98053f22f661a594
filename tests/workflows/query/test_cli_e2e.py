"""The real `colloquy notes` command in a subprocess against the dev server, the worker in this process (so
the agents stay scripted): the question is asked in the terminal and answered on stdin via `clarify`."""

from __future__ import annotations

import asyncio
import os
import sys

from tests.workflows.query.helpers import analysis, answer, evaluation, finding, gap, no_update, plan, route

Q = "What should I do today?"


async def _colloquy(*args: str, stdin: bytes = b"") -> tuple[int, str]:
    env = dict(os.environ, COLUMNS="200", COLLOQUY_LOG_LEVEL="ERROR")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client.cli", *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, env=env)
    out, _ = await asyncio.wait_for(proc.communicate(stdin), timeout=90)
    return proc.returncode or 0, out.decode()


async def test_terminal_question_answered_on_stdin(dev_env, worker, offline, notes):
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(Q), plan(Q, action="clarify"))
    offline.script("analyze_evidence", analysis("insufficient", [finding("heavy bench", "2026-01-12#1")],
                                                [gap("how you feel", "subjective")]),
                   analysis("sufficient", [finding("you feel rested", "your answer")]))
    offline.script("clarify_gaps", {"questions": [{"question": "How do you feel today?", "options": ["tired",
                                                                                                 "rested"]}],
                                    "context_explanation": "Only you know how you feel.",
                                    "fallback_action": "a suggestion from your notes"})
    offline.script("synthesize_answer", answer("You are rested: a tempo run fits today.", ["2026-01-14#1"]))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    address = dev_env.client.service_client.config.target_host
    async with worker(dev_env.client) as queue:
        code, out = await _colloquy("notes", Q, "--address", address, "--task-queue", queue, "--notes-dir",
                                    str(notes), "--today", "2026-01-16", stdin=b"rested\n")
    assert code == 0, out
    assert "Only you know how you feel." in out
    assert "q1. How do you feel today? [tired / rested]" in out
    assert "You are rested: a tempo run fits today." in out
    assert "evidence: 2026-01-14#1" in out
    assert "rested" in offline.calls("analyze_evidence")[1].messages[-1]["content"]


async def test_cli_reports_a_failed_input_clearly(dev_env, worker, offline, notes):
    address = dev_env.client.service_client.config.target_host
    async with worker(dev_env.client) as queue:
        code, out = await _colloquy("notes", "x" * 20_001, "--address", address, "--task-queue", queue,
                                    "--notes-dir", str(notes))
    assert code == 1
    assert "error: the run failed: the input is 20001 characters, over the 20000 limit" in out
