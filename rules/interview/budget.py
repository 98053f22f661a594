"""Byte budgets that keep every interview payload under Temporal's 2 MiB limit by construction.

The largest valid input (entries of MAX_ENTRY_CHARS characters of 3-byte UTF-8, as fast as a client can send
them) must never push a payload over the limit: the continue-as-new state, an archive step's input, the final
transcript save and the export step. So texts held in workflow memory are measured in UTF-8 bytes:

- MEMORY_TEXT_BYTES: entry texts in memory (transcript tail + the events that quote them) above which the
  workflow continues as new at its next cycle, archiving the older ones to the artifact store;
- CARRY_TEXT_BYTES: what a continue-as-new carries of each (transcript tail, events tail), at most, besides the
  count limits (KEEP_ENTRIES, KEEP_EVENTS); the same bound applies to the final save and export inputs;
- ARCHIVE_CHUNK_BYTES: an archive step writes its lines in chunks of at most this many bytes (one activity
  each), so no archive input is larger, however many entries arrived at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from models.interview import InterviewEvent, TranscriptEntry

MEMORY_TEXT_BYTES = 768 * 1024
CARRY_TEXT_BYTES = 256 * 1024
ARCHIVE_CHUNK_BYTES = 512 * 1024
#: ids, timestamps, speaker... of one entry or event, on top of its text
OVERHEAD_BYTES = 256

T = TypeVar("T")


def entry_bytes(entry: TranscriptEntry) -> int:
    return len(entry.text.encode("utf-8")) + OVERHEAD_BYTES


def event_bytes(event: InterviewEvent) -> int:
    return sum(len(str(v).encode("utf-8")) for v in event.payload.values()) + OVERHEAD_BYTES


def memory_bytes(tail: Sequence[TranscriptEntry], events: Sequence[InterviewEvent]) -> int:
    return sum(entry_bytes(e) for e in tail) + sum(event_bytes(e) for e in events)


def keep_count(items: Sequence[T], keep: int, budget: int, size: Callable[[T], int]) -> int:
    """How many of the newest `items` to keep: at most `keep`, and no more than fit in `budget` bytes (always at
    least one, when there is one: a single entry is far below any budget)."""
    kept, total = 0, 0
    for item in reversed(items[-keep:] if keep > 0 else []):
        total += size(item)
        if kept and total > budget:
            break
        kept += 1
    return kept


def over_budget(items: Sequence[T], keep: int, budget: int, size: Callable[[T], int]) -> bool:
    """Whether the newest `keep` items hold more than `budget` bytes."""
    return sum(size(i) for i in (items[-keep:] if keep > 0 else [])) > budget


def chunks(lines: Sequence[str], budget: int = ARCHIVE_CHUNK_BYTES) -> list[list[str]]:
    """Consecutive lines in groups of at most `budget` UTF-8 bytes (a longer line is a group of its own)."""
    groups: list[list[str]] = []
    current: list[str] = []
    size = 0
    for line in lines:
        n = len(line.encode("utf-8")) + 1
        if current and size + n > budget:
            groups.append(current)
            current, size = [], 0
        current.append(line)
        size += n
    if current:
        groups.append(current)
    return groups


def lines_bytes(lines: Sequence[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


def part_name(name: str, index: int) -> str:
    """The name of an archive's `index`-th chunk (0: the name itself): transcript-part-001-02.jsonl."""
    if index == 0:
        return name
    stem, dot, ext = name.rpartition(".")
    return f"{stem}-{index + 1:02d}.{ext}" if dot else f"{name}-{index + 1:02d}"
