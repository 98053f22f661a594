"""What a live cycle sends each agent (issue: Scale): the listeners the delta since they last listened, every agent
what it reads (WindowLine: speaker, text, kind) and the notes as bounded text — never whole entries, notes or
research again — and when the live loop needs a timer at all (Session.decision_due)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from models.interview.entries import WindowLine
from models.interview.notes import KeyIdea, NotesState, OrchestratorDecision, ResearchItem
from rules.interview import cadence
from tests.unit.interview.test_session import T0, at, entry, started


def _talk(s, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        speaker = "interviewer" if i % 2 == 0 else "interviewee"
        s.accept_entry(at(i + 1), entry(f"e{i}", speaker, f"line {i}: " + "words " * 20))


def test_listeners_get_what_was_said_since_they_last_listened_plus_four_entries_of_context():
    s = started("adaptive")
    _talk(s, 30)
    s.state.processed_seq = 28                       # the last cycle saw 28 entries
    nt, rs = s.note_taker_input(), s.researcher_input(at(40))
    assert [w.text.split(":")[0] for w in nt.window] == [f"line {i}" for i in range(24, 30)]   # 4 + the 2 new
    assert rs.window == nt.window
    assert all(type(w) is WindowLine for w in nt.window)
    s.state.processed_seq = 0                        # nothing listened to yet: the newest 20 at most
    assert len(s.note_taker_input().window) == cadence.NOTES_WINDOW


def test_inputs_stay_flat_as_notes_and_research_grow():
    s = started("adaptive")
    _talk(s, 40)
    s.state.processed_seq = 38
    s.state.notes = NotesState(key_ideas=[KeyIdea(title=f"idea {i}", description="d " * 40) for i in range(200)])
    s.state.research = [ResearchItem(topic=f"topic {i}", summary="s " * 40) for i in range(100)]
    nt, orch = s.note_taker_input(), s.orchestrator_input(at(60))
    assert nt.notes is None and orch.notes is None                   # the whole notes never cross again
    assert nt.notes_text.count("idea ") == 12 and orch.notes_text == nt.notes_text   # the prompt's bounded text
    assert [r.topic for r in orch.research] == [f"topic {i}" for i in range(92, 100)]
    assert len(orch.window) == cadence.ORCHESTRATOR_WINDOW
    assert len(nt.model_dump_json()) < 6_000 and len(orch.model_dump_json()) < 12_000


def _decided(s, seconds: float) -> None:
    d = OrchestratorDecision.model_validate({"next_question": {"text": "Go on?", "source": "gap"},
                                             "phase": "opening"})
    s.present_decision(at(seconds), d, "orchestrator")


@pytest.mark.parametrize("engine_asks", [True, False])
def test_a_timer_is_due_only_while_a_decision_can_expire(engine_asks):
    s = started("adaptive")
    s.state.engine_asks = engine_asks                # False: a run from before, whose clients echoed the question
    assert s.decision_due() is None                  # nothing decided yet: an entry or the first cycle will
    s.accept_entry(at(1), entry("a1", "interviewee", "It started by accident."))
    _decided(s, 2)
    if not engine_asks:
        assert s.decision_due() == at(2) + timedelta(seconds=cadence.DECISION_REUSE_SECONDS)
        s.accept_entry(at(5), entry("q2", "interviewer", "Go on?"))
    assert s.decision_due() is None                  # a question waits for its answer: only an entry can change it
    s.accept_entry(at(9), entry("a2", "interviewee", "Then it became my job."))
    assert s.decision_due() is not None
    s.control(at(10), "pause")
    assert s.decision_due() is None                  # paused: silence costs nothing
    s.control(at(20), "resume")
    assert s.decision_due() == at(2) + timedelta(seconds=30)
    assert started("structured").decision_due() is None    # structured mode decides on answers only
    assert T0 < at(1)
