"""Regression (found by tests/unit/interview/test_session_machine.py in a CI run, 2026-11-28): a structured
follow-up was asked; the person then answered an *earlier* question (an aside: it answers nothing put in force
since); the run continued as new keeping one entry — the aside — so the next run saw no turn-taking entry in its
tail, took the follow-up for answered, and swapped it for the next one: 'Can you give a concrete example of the
stakes?' (asked, unanswered) became 'What would you add about the stakes?'. Invariant
`question-stays-until-answered`."""

from __future__ import annotations

from datetime import UTC, datetime

from models.interview.entries import TranscriptEntry
from models.interview.workflow import InterviewInput
from rules.interview.session import Session

T0 = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)


def _session(patched: bool) -> Session:
    s = Session(InterviewInput(topic="Stakes", mode="structured"), "interview-regression")
    s.patched = lambda _patch_id: patched
    s.state.transcript_tail = [
        TranscriptEntry(entry_id="a1", speaker="interviewee", text="An answer to the opening.", received_at=T0),
        TranscriptEntry(entry_id="question-5", speaker="interviewer",
                        text="Can you give a concrete example of the stakes?", received_at=T0),
        TranscriptEntry(entry_id="e9", speaker="interviewee", text="My answer to that one.", received_at=T0,
                        continues=True),  # filed with the question seen earlier: an aside
    ]
    return s


def _carried(s: Session) -> Session:
    s.archive_transcript(1)
    state = type(s.state).model_validate_json(s.state.model_dump_json())   # as Temporal carries it
    return Session(s.inp.model_copy(update={"carried": state}), "interview-regression", state)


def test_a_question_followed_only_by_an_aside_still_waits_after_continue_as_new():
    before = _session(patched=True)
    assert before._question_waiting()
    after = _carried(before)
    after.patched = lambda _patch_id: True
    assert [e.entry_id for e in after.state.transcript_tail] == ["e9"]
    assert after._question_waiting(), "the follow-up asked before the aside no longer waits for its answer"
    assert after.question_asked() == "Can you give a concrete example of the stakes?"


def test_a_run_from_before_the_change_archives_as_it_did():
    after = _carried(_session(patched=False))     # a replayed run without the patch marker
    assert after.state.last_turn is None and not after._question_waiting()


def test_a_turn_in_the_tail_is_newer_than_the_remembered_one():
    s = _carried(_session(patched=True))
    s.state.transcript_tail.append(TranscriptEntry(entry_id="e10", speaker="interviewee", text="The answer.",
                                                   received_at=T0))
    assert not s._question_waiting()
