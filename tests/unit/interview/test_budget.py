"""rules/interview/budget.py: byte budgets that keep interview payloads bounded by construction."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from models.interview.entries import TranscriptEntry
from models.interview.names import MAX_ENTRY_CHARS
from models.interview.notes import Claim, KeyIdea, NotesState, QuotableLine, ResearchItem, SectionCoverage
from rules.interview import budget
from rules.interview.notes import merge_notes


def entry(i: int, chars: int = MAX_ENTRY_CHARS, ch: str = "漢") -> TranscriptEntry:
    return TranscriptEntry(entry_id=f"e{i}", speaker="interviewee", text=ch * chars)


def test_keep_count_respects_count_and_bytes_and_keeps_at_least_one():
    big = [entry(i) for i in range(40)]                     # 24 KB each
    kept = budget.keep_count(big, 40, budget.CARRY_TEXT_BYTES, budget.entry_bytes)
    assert 1 <= kept < 40 and sum(budget.entry_bytes(e) for e in big[-kept:]) <= budget.CARRY_TEXT_BYTES
    small = [entry(i, 20, "a") for i in range(100)]
    assert budget.keep_count(small, 40, budget.CARRY_TEXT_BYTES, budget.entry_bytes) == 40
    assert budget.keep_count([entry(0, 64_000)], 40, 10, budget.entry_bytes) == 1
    assert budget.keep_count([], 40, 10, budget.entry_bytes) == 0
    assert budget.over_budget(big, 40, budget.CARRY_TEXT_BYTES, budget.entry_bytes)
    assert not budget.over_budget(small, 40, budget.CARRY_TEXT_BYTES, budget.entry_bytes)


def test_chunks_are_bounded_consecutive_and_complete():
    lines = [entry(i).model_dump_json() for i in range(100)]
    groups = budget.chunks(lines)
    assert [line for g in groups for line in g] == lines
    assert all(budget.lines_bytes(g) <= budget.ARCHIVE_CHUNK_BYTES for g in groups)
    assert len(groups) > 1
    assert budget.chunks(["x" * (budget.ARCHIVE_CHUNK_BYTES + 5), "y"]) == [["x" * (budget.ARCHIVE_CHUNK_BYTES + 5)],
                                                                             ["y"]]


def test_part_names():
    assert budget.part_name("transcript-part-001.jsonl", 0) == "transcript-part-001.jsonl"
    assert budget.part_name("transcript-part-001.jsonl", 1) == "transcript-part-001-02.jsonl"
    assert budget.part_name("log", 2) == "log-03"


# ------------------------------------------------------------------------------ notes and research (carried-state-bounded)
TEXTS = st.text(st.sampled_from("ab漢 é"), max_size=9000)


@settings(max_examples=60, deadline=None)
@given(ideas=st.lists(TEXTS, max_size=40), quotes=st.lists(TEXTS, max_size=40), claims=st.lists(TEXTS, max_size=20),
       limit=st.integers(2_000, 200_000))
def test_shed_notes_fits_keeps_the_newest_and_the_coverage(ideas, quotes, claims, limit):
    notes = NotesState(key_ideas=[KeyIdea(title=str(i), description=t) for i, t in enumerate(ideas)],
                       quotable_lines=[QuotableLine(text=t) for t in quotes], claims=[Claim(text=t) for t in claims],
                       section_coverage=[SectionCoverage(id="s1", key_points_covered=["a point"])])
    shed = budget.shed_notes(notes, limit)
    assert budget.notes_bytes(shed) <= limit
    assert shed.section_coverage == notes.section_coverage
    for name in budget.NOTE_LISTS:
        before, after = getattr(notes, name), getattr(shed, name)
        assert before[len(before) - len(after):] == after            # the newest items, in order
    if budget.notes_bytes(notes) <= limit:
        assert shed is notes


def test_notes_from_a_long_interview_stay_within_the_budget():
    """The regression: merged notes grew by every NoteTaker window (96 KB each in a flood of long answers) until
    the carried state outgrew its input limit and the continued run was refused."""
    notes = NotesState()
    for window in range(20):
        found = NotesState(quotable_lines=[QuotableLine(text=f"{window}-{i} " + "漢" * 8000) for i in range(4)])
        notes = budget.shed_notes(merge_notes(notes, found))
        assert budget.notes_bytes(notes) <= budget.NOTES_BYTES
    assert notes.quotable_lines[-1].text.startswith("19-3 ")


def test_shed_research_keeps_the_newest_that_fit():
    items = [ResearchItem(topic=f"t{i}", summary="漢" * 4000) for i in range(30)]
    kept = budget.shed_research(items)
    assert kept == items[-len(kept):] and 1 <= len(kept) < 30
    assert sum(map(budget.model_bytes, kept)) <= budget.RESEARCH_BYTES
    assert budget.shed_research([]) == []


def test_carry_over_budget_never_counts_a_single_item():
    assert not budget.carry_over_budget([entry(0, 64_000)], budget.entry_bytes)
    assert budget.carry_over_budget([entry(i) for i in range(12)], budget.entry_bytes)
    assert not budget.carry_over_budget([entry(i) for i in range(3)], budget.entry_bytes)


def test_shed_notes_measures_exactly_when_it_empties_lists():
    """Emptying a list saves one byte less than its item and separator: the result is measured, not summed."""
    notes = NotesState(possible_titles=["t"], claims=[Claim(text="c")], key_ideas=[KeyIdea(title="k" * 50)])
    for limit in range(budget.notes_bytes(NotesState()), budget.notes_bytes(notes) + 1):
        assert budget.notes_bytes(budget.shed_notes(notes, limit)) <= limit
