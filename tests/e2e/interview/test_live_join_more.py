"""`colloquy interview join` in a pseudo-terminal (pexpect) against the dev server and in-process workers: a long
answer goes in as several entries cut between sentences (and join says so), section boundaries and time warnings
are printed as they happen, and Ctrl-C keeps the half-typed line for the next join and exits 130."""

from __future__ import annotations

import asyncio
import os
import sys

import pexpect
import pytest

from models.interview.entries import TranscriptView
from models.interview.names import QUERY_TRANSCRIPT
from rules.interview.answer_parts import split_answer
from tests.e2e.interview.helpers import LIMIT, LONG, ROOT
from tests.e2e.interview.test_live_join import FIRST, expect
from tests.workflows.interview.helpers import adaptive_plan, decision, start

pytestmark = pytest.mark.dev_server


def _join(dev_env, wid: str, tmp_path, prefix: str, log: str) -> pexpect.spawn:  # noqa: ANN001
    env = dict(os.environ, COLLOQUY_DATA_DIR=str(tmp_path), PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm",
               COLLOQUY_LOG_LEVEL="ERROR")
    child = pexpect.spawn(sys.executable, ["-m", "client.cli", "interview", "join", wid, "--address",
                                           dev_env.client.service_client.config.target_host, "--entry-prefix", prefix],
                          cwd=str(ROOT), env=env, encoding="utf-8", dimensions=(50, 250), timeout=30)
    child.logfile_read = (tmp_path / log).open("w")
    return child


async def _interviewee(h) -> list[tuple[str, str]]:  # noqa: ANN001
    view = await h.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
    return [(e.entry_id, e.text) for e in view.entries if e.speaker == "interviewee"]


async def _numbering(h) -> list[tuple[str | None, int | None, int | None, bool]]:  # noqa: ANN001
    view = await h.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
    return [(e.answer_id, e.part, e.parts, e.continues) for e in view.entries if e.speaker == "interviewee"]


async def test_join_splits_long_answers_and_shows_section_boundaries(dev_env, worker, offline, tmp_path):
    offline.script("interview_orchestrator", *[decision(FIRST, qid="q-origin")] * 60)
    async with worker(dev_env.client) as queue:
        h = await start(dev_env, queue, plan=adaptive_plan(), duration_seconds=40, cycle_seconds=1,
                        write_essay=False, max_entry_chars=LIMIT, warning_thresholds_seconds=[6])
        await asyncio.sleep(0.5)
        child = _join(dev_env, h.id, tmp_path, "pty", "terminal.log")
        try:
            await expect(child, FIRST)
            child.sendline(LONG)
            await expect(child, "your answer was sent in 3 parts", timeout=15)
            seen = await expect(child, "New section: Practice", timeout=40)
            assert "0:06 left in this section (Origins)" in seen
            assert "Section ended: Origins (its time is up)" in seen
            child.sendline("/quit")
            await asyncio.to_thread(child.expect, pexpect.EOF, timeout=15)
        finally:
            child.close(force=True)
        answers, numbering = await _interviewee(h), await _numbering(h)
    assert answers == [(f"pty-2-a{'-' + str(n) if n > 1 else ''}", part)
                       for n, part in enumerate(split_answer(LONG, LIMIT), start=1)]
    # numbered, one answer: the later parts continue it (the engine decided once, after the last)
    assert numbering == [("pty-2-a", 1, 3, False), ("pty-2-a", 2, 3, True), ("pty-2-a", 3, 3, True)]


async def test_ctrl_c_keeps_the_draft_for_the_next_join_and_exits_130(dev_env, worker, offline, tmp_path):
    offline.script("interview_orchestrator", *[decision(FIRST, qid="q-origin")] * 40)
    draft = "I was about to say that the pager"
    async with worker(dev_env.client) as queue:
        h = await start(dev_env, queue, plan=adaptive_plan(), duration_seconds=600, cycle_seconds=1,
                        write_essay=False)
        await asyncio.sleep(0.5)
        child = _join(dev_env, h.id, tmp_path, "one", "terminal-1.log")
        try:
            await expect(child, FIRST)
            child.send(draft)
            await asyncio.sleep(0.5)
            child.sendintr()
            await expect(child, "your unsent text is saved in", timeout=15)
            await asyncio.to_thread(child.expect, pexpect.EOF, timeout=15)
        finally:
            child.close(force=True)
        assert child.exitstatus == 130, child.exitstatus
        saved = tmp_path / "join" / f"{h.id}.draft.txt"
        assert saved.read_text(encoding="utf-8") == draft
        assert await _interviewee(h) == []

        # the next join offers it in the prompt: Enter sends it (plus what is typed after it)
        child = _join(dev_env, h.id, tmp_path, "two", "terminal-2.log")
        try:
            await expect(child, "you left this unsent when you pressed Ctrl-C last time")
            await expect(child, "you> " + draft)
            child.sendline(" rang every night.")
            await asyncio.sleep(2)
            child.sendline("/quit")
            await asyncio.to_thread(child.expect, pexpect.EOF, timeout=15)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0
        assert [t for _, t in await _interviewee(h)] == [draft + " rang every night."]
        assert not saved.exists()


async def test_an_answer_begun_on_the_old_question_is_filed_with_it(dev_env, worker, offline, tmp_path):
    """Typing starts while the first section's question is on screen; Enter comes after the section changed: the
    answer is stamped with the question seen at the first keystroke, filed late to that section, and the new
    section's question stays in force (before: stamped at Enter, with the new section)."""
    second = "How do you measure whether an on-call rotation is healthy?"
    offline.script("interview_orchestrator", decision(FIRST, qid="q-origin"), decision(second, qid="q-measure"),
                   *[decision(f"And then, part {i}?", source="gap") for i in range(40)])
    async with worker(dev_env.client) as queue:
        h = await start(dev_env, queue, plan=adaptive_plan(), duration_seconds=40, write_essay=False)
        await asyncio.sleep(0.5)
        child = _join(dev_env, h.id, tmp_path, "seen", "terminal-seen.log")
        try:
            await expect(child, FIRST)
            child.send("I ended up with the pager because")
            await expect(child, second, timeout=40)
            child.sendline(" nobody else wanted it.")
            await expect(child, "you>", timeout=15)
            await asyncio.sleep(1)
            child.sendline("/quit")
            await asyncio.to_thread(child.expect, pexpect.EOF, timeout=15)
        finally:
            child.close(force=True)
        view = await h.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
    asked = {e.text: e for e in view.entries if e.speaker == "interviewer"}
    answer = next(e for e in view.entries if e.speaker == "interviewee")
    assert answer.reply_to_question_id == asked[FIRST].entry_id
    assert (answer.section_id, answer.late, answer.continues) == (asked[FIRST].section_id, True, True)
