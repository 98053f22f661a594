"""rules/interview/answer_flow.py: which entries continue an answer, and when the engine may decide on it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from models.interview.entries import TranscriptEntry
from rules.interview import answer_flow
from rules.interview.answer_parts import split_answer

T0 = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)


def _entry(entry_id: str, text: str = "x", **fields) -> TranscriptEntry:
    return TranscriptEntry(entry_id=entry_id, speaker="interviewee", text=text, **fields)


@given(words=st.lists(st.sampled_from(["pager.", "word", "なぜ？", "because", "Then!"]), min_size=1, max_size=300),
       limit=st.integers(20, 200), numbered=st.booleans())
def test_every_part_a_client_sends_continues_its_answer_and_the_engine_waits_for_the_last(words, limit, numbered):
    parts = split_answer(" ".join(words), limit)
    answer = None
    for i, text in enumerate(parts, start=1):
        fields = {"answer_id": "a1", "part": i, "parts": len(parts)} if numbered and len(parts) > 1 else {}
        entry = _entry("a1" if i == 1 else f"a1-{i}", text, **fields)
        if i == 1:
            assert not answer_flow.continues(entry, answer)
            answer = answer_flow.begin(entry, "s0", False, T0)
        else:
            assert answer_flow.continues(entry, answer)
            answer = answer_flow.add_part(answer, entry, T0)
        due = answer_flow.settles_at(answer, max_entry_chars=limit, settle_seconds=2, parts_wait_seconds=30)
        if i < len(parts):
            assert due is not None and due > T0, f"part {i} of {len(parts)}: the engine would decide now"
    if numbered and len(parts) > 1:
        assert answer_flow.settles_at(answer, max_entry_chars=limit, settle_seconds=2, parts_wait_seconds=30) is None


def test_what_does_not_continue_an_answer():
    answer = answer_flow.begin(_entry("a1"), "s0", False, T0)
    assert not answer_flow.continues(_entry("a1-3"), answer)                 # a part skipped: not this answer's
    assert not answer_flow.continues(_entry("b1-2"), answer)                 # another answer's part
    assert not answer_flow.continues(_entry("a1-2", client_id="other"), answer.model_copy(update={"client_id": "me"}))
    assert not answer_flow.continues(_entry("x", answer_id="a1", part=1, parts=2), answer)
    assert answer_flow.continues(_entry("x", answer_id="a1", part=2, parts=2), answer)


def test_a_short_last_part_or_all_numbered_parts_in_needs_no_wait():
    short = answer_flow.begin(_entry("a1", "short"), "s0", False, T0)
    assert answer_flow.settles_at(short, max_entry_chars=100, settle_seconds=2, parts_wait_seconds=30) is None
    half = answer_flow.begin(_entry("a1", "y" * 60, answer_id="a1", part=1, parts=3), "s0", False, T0)
    assert answer_flow.settles_at(half, max_entry_chars=100, settle_seconds=2,
                                  parts_wait_seconds=30) == T0 + timedelta(seconds=30)
