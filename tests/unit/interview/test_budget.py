"""rules/interview/budget.py: byte budgets that keep interview payloads bounded by construction."""

from __future__ import annotations

from models.interview import MAX_ENTRY_CHARS, TranscriptEntry
from rules.interview import budget


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
