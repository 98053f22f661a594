"""Presence (rules/interview/session.py): heartbeats turn it on; silence while IN_PROGRESS pauses (disconnect,
the clock keeps running); the next heartbeat resumes without presenting the question again."""

from datetime import timedelta

from models.interview.entries import Heartbeat
from tests.unit.interview.test_session import at, entry, started


def beat(client: str = "page-1", role: str = "interviewee", seq: int = 0) -> Heartbeat:
    return Heartbeat(client_id=client, role=role, seq=seq)  # type: ignore[arg-type]


def test_without_a_heartbeat_presence_is_off_and_silence_never_pauses():
    s = started(presence_timeout_seconds=5)
    assert not s.presence_on() and s.presence_deadline() is None
    before = s.next_due(at(1))
    s.on_clock(at(200))
    assert s.state.status == "IN_PROGRESS"
    assert before == s.next_due(at(1))


def test_silence_after_a_heartbeat_pauses_as_a_disconnect_and_the_clock_keeps_running():
    s = started(presence_timeout_seconds=5)
    out = s.heartbeat(at(10), beat())
    assert s.presence_on() and out.reschedule and out.events == []
    assert s.presence_deadline() == at(15) and s.next_due(at(10)) == at(15)
    s.heartbeat(at(12), beat(seq=1))
    assert s.presence_deadline() == at(17)
    out = s.on_clock(at(16))
    assert s.state.status == "IN_PROGRESS" and "SESSION_PAUSED" not in out.types()
    out = s.on_clock(at(17))
    assert out.types() == ["SESSION_PAUSED"] and out.events[0].payload["reason"] == "disconnect"
    assert s.state.status == "PAUSED" and s.state.paused_reason == "disconnect"
    assert s.view(at(17)).waiting_for.startswith("paused: waiting for the interviewee to reconnect")
    assert s.presence_deadline() is None
    deadline = s.runtime().deadline  # type: ignore[union-attr]
    assert deadline == at(300)       # the session clock is not moved by the pause


def test_a_heartbeat_after_the_disconnect_resumes_and_keeps_the_same_question():
    s = started(presence_timeout_seconds=5)
    question, qid = s.next_question(), s.state.question_event_id
    assert question and qid > 0
    s.heartbeat(at(10), beat())
    s.on_clock(at(15))
    assert s.state.status == "PAUSED"
    out = s.heartbeat(at(40), beat("page-2"))
    assert out.types() == ["SESSION_RESUMED"] and out.events[0].payload["reason"] == "reconnect"
    assert out.reschedule and s.state.status == "IN_PROGRESS"
    view = s.view(at(40))
    assert view.next_question == question and view.question_event_id == qid   # re-shown, not re-presented
    assert s.presence_deadline() == at(45)
    assert [e.type for e in s.log.events].count("PROMPT_PRESENTED") == 1


def test_a_pause_by_a_person_is_not_undone_by_heartbeats_and_resume_restarts_the_absence_count():
    s = started(presence_timeout_seconds=5)
    s.heartbeat(at(10), beat())
    s.control(at(11), "pause")
    out = s.heartbeat(at(12), beat(seq=1))
    assert s.state.status == "PAUSED" and out.events == []
    assert s.view(at(12)).waiting_for.startswith("paused: waiting for someone to resume")
    out = s.control(at(60), "resume")      # the page stopped at 12 s; absence counts from the resume
    assert out.reschedule and s.presence_deadline() == at(65)
    s.on_clock(at(64))
    assert s.state.status == "IN_PROGRESS"
    s.on_clock(at(65))
    assert s.state.status == "PAUSED"


def test_interviewer_heartbeats_and_timeout_zero_leave_presence_off():
    s = started(presence_timeout_seconds=5)
    s.heartbeat(at(10), beat("console", role="interviewer"))
    assert not s.presence_on()
    off = started(presence_timeout_seconds=0)
    off.heartbeat(at(10), beat())
    assert not off.presence_on() and off.state.interviewee_seen_at is None
    off.on_clock(at(10) + timedelta(seconds=100))
    assert off.state.status == "IN_PROGRESS"


def test_presence_survives_continue_as_new():
    from models.interview.workflow import InterviewState
    from rules.interview.session import Session

    s = started(presence_timeout_seconds=5)
    s.heartbeat(at(10), beat())
    carried = InterviewState.model_validate_json(s.carry(1, 0, 0).model_dump_json())
    again = Session(s.inp, s.wid, carried)
    assert again.presence_deadline() == at(15)


def test_an_ended_session_ignores_heartbeats():
    s = started(presence_timeout_seconds=5)
    s.accept_entry(at(5), entry("e-1", "interviewee", "Hello"))
    s.control(at(6), "end")
    out = s.heartbeat(at(7), beat())
    assert out.events == [] and not s.presence_on()
