"""Issue 35's defects in the pure session, as the shortest sequences that show them (items 1 and 2): the parts of one
answer were each an answer, and a late answer replaced the new section's question. Each runs with the change's patch
off too (`old`) and asserts the defect there."""

from __future__ import annotations

import pytest

from models.interview import patches
from models.interview.entries import TranscriptEntry
from rules.interview.session import Session
from tests.unit.interview.test_session import at
from tests.unit.interview.test_session import started as _started
from tests.unit.interview.test_session_regressions import decide

OLD, NEW = True, False


def adaptive(old: bool, off: str, **fields) -> Session:
    s = _started(mode="adaptive", **fields)
    s.patched = (lambda pid: pid != off) if old else (lambda _pid: True)
    return s


def answer(s: Session, now, entry_id: str, text: str = "An answer.", **fields) -> TranscriptEntry:
    return s.accept_entry(now, TranscriptEntry(entry_id=entry_id, speaker="interviewee", text=text, **fields))[0]


@pytest.mark.parametrize("old", [NEW, OLD])
def test_a_part_after_the_decision_neither_answers_nor_replaces_the_new_question(old):
    s = adaptive(old, patches.ANSWER_PARTS)
    decide(s, at(1), "How did the pager come to you?")
    answer(s, at(5), "a1", "The first part of a long answer.")
    decide(s, at(6), "What happened that night?")
    shown = s.question_entry_id
    part = answer(s, at(7), "a1-2", "The rest of it, late.")
    decide(s, at(8), "Something else entirely?")
    if old:
        assert s.question_entry_id != shown and not part.continues          # the defect: a question burned
        return
    assert part.continues and part.answer_id == "a1" and part.part == 2
    assert s.question_entry_id == shown


@pytest.mark.parametrize("old", [NEW, OLD])
def test_the_engine_waits_for_the_rest_of_a_long_answer(old):
    s = adaptive(old, patches.ANSWER_PARTS, max_entry_chars=100)
    decide(s, at(1), "How did the pager come to you?")
    answer(s, at(5), "a1", "word " * 19 + "end")                   # near the limit: it may go on
    assert (s.answer_settles_at(at(5)) is None) == old
    numbered = adaptive(old, patches.ANSWER_PARTS, max_entry_chars=100)
    answer(numbered, at(5), "b1", "short", answer_id="b1", part=1, parts=2)
    assert (numbered.answer_settles_at(at(6)) is None) == old
    answer(numbered, at(7), "b1-2", "short too", answer_id="b1", part=2, parts=2)
    assert numbered.answer_settles_at(at(7)) is None                       # the last part: decide now


@pytest.mark.parametrize("old", [NEW, OLD])
def test_a_late_answer_does_not_replace_the_new_sections_question(old):
    s = adaptive(old, patches.SEEN_QUESTION)
    decide(s, at(1), "How did the pager come to you?")
    first = s.question_entry_id
    end = s.runtime().deadline
    s.on_clock(end)
    assert s.current_section_id() == "practice"
    decide(s, end, "How do you measure a healthy rotation?")
    shown = s.question_entry_id
    late = answer(s, end + (at(3) - at(0)), "late1", "About the pager: nobody else wanted it.",
                  reply_to_question_id=first)
    decide(s, end + (at(4) - at(0)), "Something else entirely?")
    assert (late.section_id, late.late) == ("origins", True)
    if old:
        assert s.question_entry_id != shown                                 # the defect
        return
    assert late.continues and s.question_entry_id == shown
