"""Regression (found by tests/unit/interview/test_session_machine.py in a fresh-clone run, 2026-11-28): a
structured interview of two sections; the first ended by time and the engine put the second section's question in
force; the person answered it; the run continued as new keeping one entry (that answer), so the question itself left
the kept tail; the person answered the question in force again, stamped with it (`reply_to_question_id`), within
the first section's late grace — and the engine, not finding the stamped question in its tail, filed the answer
*late to the first section*. Invariant `attributed-to-the-question-seen`."""

from __future__ import annotations

import pytest

from models.interview import patches
from tests.interview_invariants import InvariantBroken
from tests.unit.interview.test_session_machine import SessionMachine


def _archived_after_an_answer(only_without: str | None = None) -> SessionMachine:
    """The generated sequence, up to the second answer (the machine checks every invariant at each step)."""
    m = SessionMachine()
    m.start(mode="structured", n_sections=2, n_questions=1, pools=False, duration=60, grace=15.0, presence=0.0,
            blanks=False, origin="person", settle=0.0, data=None)
    m.time_passes(late=False, seconds=30.0)                     # the first section ends by time: grace begins
    m.an_answer_to_the_question_seen(data=None, which="in force")
    m.continue_as_new(events=0, keep=1)                          # the question leaves the kept tail
    m.the_engine_tells_the_truth()
    if only_without is not None:                                 # a replayed run without this one marker
        m.s.patched = lambda patch_id: patch_id != only_without
    return m


def test_an_answer_to_the_question_in_force_is_not_filed_late_after_continue_as_new():
    m = _archived_after_an_answer()
    shown = m.s.question_entry_id
    assert shown not in {e.entry_id for e in m.s.state.transcript_tail}
    m.an_answer_to_the_question_seen(data=None, which="in force")     # raises InvariantBroken before the change
    answer = m.s.state.transcript_tail[-1]
    assert (answer.reply_to_question_id, answer.section_id, answer.late) == (shown, "s1", False)


def test_a_run_from_before_the_change_files_it_as_it_did():
    m = _archived_after_an_answer(only_without=patches.SEEN_AFTER_ARCHIVE)
    with pytest.raises(InvariantBroken, match="attributed-to-the-question-seen"):   # the defect, kept for histories
        m.an_answer_to_the_question_seen(data=None, which="in force")              # recorded before the change
    answer = m.s.state.transcript_tail[-1]
    assert (answer.section_id, answer.late) == ("s0", True)
