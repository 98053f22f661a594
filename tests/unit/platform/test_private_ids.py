"""Workflow ids never carry a person's words (issue 21): the Temporal server keeps ids in clear (its database, WAL,
logs, Web UI) even with payload encryption on. Every pipeline's id helper gives `<pipeline>-<random>`."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from client.discussion import cli as discuss
from client.query import cli as notes
from client.writing import cli as write
from rules.text import workflow_id

WORDS = st.lists(st.from_regex(r"[a-z]{4,12}", fullmatch=True), min_size=1, max_size=8).map(" ".join)


@given(text=WORDS)
def test_no_helper_puts_the_text_in_the_id(text):
    ids = [notes.workflow_id_for("fitness", text), discuss.workflow_id_for(text), write.workflow_id_for(text),
           workflow_id("interview", text, "a1b2c3"), workflow_id("study", text, "a1b2c3")]
    for wid in ids:
        assert not any(word in wid for word in text.split()), wid


def test_the_issue_s_note_leaves_no_trace_in_its_id():
    wid = notes.workflow_id_for("fitness", "psychiatrist appointment, sertraline 50mg")
    assert re.fullmatch(r"notes-fitness-[0-9a-f]{12}", wid)
    assert notes.workflow_id_for("fitness", "same words") != notes.workflow_id_for("fitness", "same words")
