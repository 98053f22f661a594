"""Issue 39: an answer typed on the terminal before the approval was requested must not approve the post that
comes next, unseen (client/writing/cli.py `_ask`)."""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import UTC, datetime

import pytest

from client.writing import cli
from models.writing.workflow import PendingApproval

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")


class _Handle:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str | None]] = []

    async def execute_update(self, name, inp, result_type=None):  # noqa: ANN001
        self.sent.append((inp.decision, inp.feedback))


def test_an_approve_typed_before_the_post_was_shown_is_discarded(monkeypatch):
    master, slave = os.openpty()
    tty = os.fdopen(slave, "r")
    try:
        monkeypatch.setattr(sys, "stdin", tty)
        os.write(master, b"approve\n")          # typed while the run was still drafting
        handle = _Handle()
        pending = PendingApproval(request_id="human-approval-1", state="human-approval", prompt="?",
                                  post_text="THE POST", since=datetime.now(UTC))

        async def answer_after_reading() -> None:
            await asyncio.sleep(0.3)             # the reviewer reads the post, then answers
            os.write(master, b"Name the GPU.\n")

        async def main() -> None:
            await asyncio.gather(cli._ask(handle, pending), answer_after_reading())

        asyncio.run(main())
    finally:
        tty.close()
        os.close(master)
    assert handle.sent == [("feedback", "Name the GPU.")]


def test_piped_answers_are_kept(tmp_path):
    piped = tmp_path / "answers.txt"
    piped.write_text("approve\n")
    with piped.open() as stream:
        assert cli.discard_typed_ahead(stream) is False and stream.readline() == "approve\n"
