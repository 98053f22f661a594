"""Phases (15 % / 85 %), section timing (durations, warnings, 15 s grace), entries (validation, closing,
merging), the event log, transcript windows, decision reuse and researcher topic freshness."""

from datetime import UTC, datetime, timedelta

import pytest

from models.interview.entries import TranscriptEntry
from models.interview.notes import (
    Contradiction,
    Gap,
    NextQuestion,
    NotesState,
    OrchestratorDecision,
    ResearchItem,
)
from models.interview.plan import PlanSnapshot, SectionSnapshot
from rules.grounding import is_verbatim
from rules.interview import cadence, timing
from rules.interview.entries import (
    EntryError,
    is_closing_remark,
    merge_transcripts,
    validate_action,
    validate_entry,
)
from rules.interview.events import EventLog
from rules.interview.instructions import interviewer_instructions
from rules.interview.phases import phase_boundaries, phase_for

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(("elapsed", "phase"), [(0, "opening"), (125.9, "opening"), (126, "deep_dive"),
                                                (713.9, "deep_dive"), (714, "wrap_up"), (900, "wrap_up")])
def test_phase_boundaries_at_15_and_85_percent_of_14_minutes(elapsed, phase):
    assert phase_for(elapsed, 840) == phase


def test_phase_boundaries_list_and_degenerate_target():
    assert phase_boundaries(840) == [(126.0, "deep_dive"), (714.0, "wrap_up")]
    assert phase_for(10, 0) == "wrap_up"
    assert phase_for(0, 360) == "opening" and phase_for(54, 360) == "deep_dive"   # a 6-minute follow-up


def test_durations_by_importance_and_explicit():
    secs = [SectionSnapshot(id="a", title="a", importance="high"), SectionSnapshot(id="b", title="b", importance="low")]
    assert timing.allocate_durations(secs, 840) == [630, 210]
    secs = [SectionSnapshot(id="a", title="a", duration_seconds=100), SectionSnapshot(id="b", title="b")]
    assert timing.allocate_durations(secs, 400) == [100, 300]


def test_warnings_at_t_minus_2_00_and_0_30_once_each_and_not_longer_than_the_section():
    deadline = T0 + timedelta(seconds=600)
    assert timing.warnings_due(deadline, T0 + timedelta(seconds=479), [120, 30], [], 600) == []
    assert timing.warnings_due(deadline, T0 + timedelta(seconds=480), [120, 30], [], 600) == [120]
    assert timing.warnings_due(deadline, T0 + timedelta(seconds=575), [120, 30], [120], 600) == [30]
    assert timing.warnings_due(deadline, T0 + timedelta(seconds=575), [120, 30], [120, 30], 600) == []
    assert timing.warnings_due(deadline, T0 + timedelta(seconds=580), [120, 30], [], 90) == [30]
    assert timing.next_warning_at(deadline, [120, 30], [120], 600) == deadline - timedelta(seconds=30)


def test_late_grace_is_15_seconds():
    end = T0
    assert timing.in_grace(T0 + timedelta(seconds=14.9), end)
    assert not timing.in_grace(T0 + timedelta(seconds=15), end)
    assert not timing.in_grace(T0, None)


def entry(**kw) -> TranscriptEntry:
    return TranscriptEntry(**{"entry_id": "e1", "speaker": "interviewee", "text": "hello", **kw})


@pytest.mark.parametrize(("fields", "message"), [
    ({"text": "   "}, "empty text"),
    ({"text": "x" * 101}, "is 101 characters; the limit is 100"),
    ({"speaker": "narrator"}, "unknown speaker 'narrator'"),
    ({"kind": "audio"}, "unknown entry kind 'audio'"),
    ({"entry_id": ""}, "entry_id is required"),
])
def test_bad_entries_are_rejected_with_clear_messages(fields, message):
    with pytest.raises(EntryError, match=message):
        validate_entry(entry(**fields), max_chars=100)


def test_speaker_aliases_are_normalised_and_actions_validated():
    assert validate_entry(entry(speaker="Expert"), 100).speaker == "interviewee"
    assert validate_entry(entry(speaker="candidate"), 100).speaker == "interviewee"
    assert validate_action(" Pause ") == "pause"
    with pytest.raises(EntryError, match="unknown session control action 'explode'"):
        validate_action("explode")


def test_closing_phrases():
    assert is_closing_remark("Well, thank you so much for your time today.")
    assert is_closing_remark("What a fascinating conversation!")
    assert not is_closing_remark("Thanks. What happened next?")
    assert not is_closing_remark("Thank you for sharing that. What happened next?")   # still asking
    # a topic turn after the thanks is a transition, not a goodbye
    assert not is_closing_remark("Thank you for sharing that. Let us turn to your years in Japan.")
    assert not is_closing_remark("Thank you for sharing that. Next, your time in Osaka.")
    assert not is_closing_remark("Thank you so much for that. Can you walk me through the migration")
    assert is_closing_remark("Thank you so much for your time and for sharing all of this. This has been a "
                             "wonderful conversation.")


def test_merge_transcripts_original_first_and_no_duplicates():
    prev = [entry(entry_id="a", session_id="s1", text="one"), entry(entry_id="b", session_id="s1", text="two")]
    cur = [entry(entry_id="a", session_id="s2", text="three"), entry(entry_id="a", session_id="s2", text="dup")]
    merged = merge_transcripts(prev, cur)
    assert [e.text for e in merged] == ["one", "two", "three"]
    said = [e.text for e in merged]
    assert is_verbatim('"two"', said) and not is_verbatim("four", said)
    assert not is_verbatim('"Two"', said)       # verbatim means the same capitalisation too (rules/grounding.py)


def test_event_log_is_append_only_monotonic_and_ordered():
    log = EventLog()
    a = log.append(T0, "system", "INTERVIEW_CREATED")
    b = log.append(T0 - timedelta(seconds=5), "candidate", "CANDIDATE_MESSAGE", {"text": "hi"})
    assert (a.event_id, b.event_id) == (1, 2) and b.timestamp == T0
    assert [e.event_id for e in log.after(1)] == [2]
    with pytest.raises(ValueError):
        log.append(T0, "system", "MADE_UP")
    with pytest.raises(ValueError):
        log.append(T0, "robot", "INTERVIEW_STARTED")
    archived, kept = log.split_for_archive(1)
    resumed = EventLog(kept, next_id=log.last_id + 1)
    assert resumed.append(T0, "system", "INTERVIEW_COMPLETED").event_id == 3 and len(archived) == 1


def test_windows_20_20_30():
    items = list(range(50))
    assert cadence.window(items, cadence.NOTES_WINDOW) == list(range(30, 50))
    assert cadence.window(items, cadence.ORCHESTRATOR_WINDOW) == list(range(20, 50))
    assert cadence.window(items[:5], 30) == items[:5]


def test_decision_reuse_only_without_new_content_and_under_30_seconds():
    assert cadence.should_reuse_decision(0, T0, T0 + timedelta(seconds=29))
    assert not cadence.should_reuse_decision(0, T0, T0 + timedelta(seconds=30))
    assert not cadence.should_reuse_decision(1, T0, T0 + timedelta(seconds=1))
    assert not cadence.should_reuse_decision(0, None, T0)
    assert not cadence.should_reuse_decision(0, T0, T0 + timedelta(seconds=1), context_changed=True)
    assert not cadence.should_run_listeners(0) and cadence.should_run_listeners(2)


def test_researcher_topics_are_fresh_again_after_300_seconds():
    seen = cadence.mark_researched({}, ["CAP theorem"], T0)
    assert cadence.fresh_topics(["cap  Theorem", "Raft"], seen, T0 + timedelta(seconds=299)) == ["Raft"]
    assert cadence.fresh_topics(["CAP theorem"], seen, T0 + timedelta(seconds=300)) == ["CAP theorem"]
    assert cadence.fresh_topics(["Raft", "raft"], {}, T0) == ["Raft"]


def test_interviewer_instructions_in_the_seed_format():
    d = OrchestratorDecision(phase="deep_dive", next_question=NextQuestion(text="You mentioned failing fast?"),
                             interviewer_brief="Natural follow-up.")
    notes = NotesState(gaps=[Gap(description="team structure unexplained")],
                       contradictions=[Contradiction(description="docs crucial vs shipped without docs")])
    research = [ResearchItem(topic="Fail Fast principle", summary="From manufacturing.", priority=1)]
    md = interviewer_instructions(d, notes, research)
    assert md.startswith("## Current Phase: DEEP_DIVE\n\n## Next Question to Ask\nYou mentioned failing fast?")
    for part in ("## How to Ask It\nNatural follow-up.", "## Research Context\n- **Fail Fast principle**: From manufacturing.",
                 "## Gaps to Explore (if natural)\n- team structure unexplained",
                 "## Contradictions to Clarify\n- docs crucial vs shipped without docs"):
        assert part in md
    fu = PlanSnapshot(topic="The outage", research_goal="g", angle="a", sections=[], is_follow_up=True,
                      follow_up_context="We covered rotations.")
    md = interviewer_instructions(d, NotesState(), [], fu)
    assert md.startswith("**IMPORTANT: This is a FOLLOW-UP conversation.**")
    assert "We covered rotations." in md and "## Research Context" not in md
