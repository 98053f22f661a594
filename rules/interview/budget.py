"""Byte budgets that keep every interview payload under Temporal's 2 MiB limit by construction.

The largest valid input (entries of MAX_ENTRY_CHARS characters of 3-byte UTF-8, as fast as a client can send
them) must never push a payload over the limit: the continue-as-new state, an archive step's input, the final
transcript save and the export step. So texts held in workflow memory are measured in UTF-8 bytes:

- MEMORY_TEXT_BYTES: entry texts in memory (transcript tail + the events that quote them) above which the
  workflow continues as new at its next cycle, archiving the older ones to the artifact store;
- CARRY_TEXT_BYTES: what a continue-as-new carries of each (transcript tail, events tail), at most, besides the
  count limits (KEEP_ENTRIES, KEEP_EVENTS); the same bound applies to the final save and export inputs;
- ARCHIVE_CHUNK_BYTES: an archive step writes its lines in chunks of at most this many bytes (one activity
  each), so no archive input is larger, however many entries arrived at once;
- NOTES_BYTES, RESEARCH_BYTES: the NoteTaker's merged notes and the Researcher's items, which grow with every
  window of a long interview: past these, the oldest items of the largest list go first (`shed_oldest`).

Together (tails, notes, research, and the small rest) they keep the carried state under `MAX_CARRIED_BYTES`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel

from models.interview.entries import TranscriptEntry
from models.interview.notes import NotesState, ResearchItem
from models.interview.workflow import InterviewEvent

MEMORY_TEXT_BYTES = 768 * 1024
CARRY_TEXT_BYTES = 256 * 1024
ARCHIVE_CHUNK_BYTES = 512 * 1024
NOTES_BYTES = 192 * 1024
RESEARCH_BYTES = 64 * 1024
#: ids, timestamps, speaker... of one entry or event, on top of its text
OVERHEAD_BYTES = 256

T = TypeVar("T")


def entry_bytes(entry: TranscriptEntry) -> int:
    return len(entry.text.encode("utf-8")) + OVERHEAD_BYTES


def event_bytes(event: InterviewEvent) -> int:
    return sum(len(str(v).encode("utf-8")) for v in event.payload.values()) + OVERHEAD_BYTES


def memory_bytes(tail: Sequence[TranscriptEntry], events: Sequence[InterviewEvent]) -> int:
    return sum(entry_bytes(e) for e in tail) + sum(event_bytes(e) for e in events)


def carry_over_budget(items: Sequence[T], size: Callable[[T], int]) -> bool:
    """Whether `items`, carried whole, hold more than CARRY_TEXT_BYTES (a single item never counts as over)."""
    return len(items) > 1 and sum(size(i) for i in items) > CARRY_TEXT_BYTES


def model_bytes(item: BaseModel) -> int:
    return len(item.model_dump_json().encode("utf-8"))


NOTE_LISTS = ("key_ideas", "stories", "claims", "gaps", "contradictions", "quotable_lines", "possible_titles")


def notes_bytes(notes: NotesState) -> int:
    return model_bytes(notes)


def shed_notes(notes: NotesState, limit: int = NOTES_BYTES) -> NotesState:
    """`notes` within `limit` bytes: the oldest items of the largest list go first, one at a time (section
    coverage, one per plan section, stays). Unchanged when already within."""
    sizes = {name: [len(_item_json(x)) + 1 for x in getattr(notes, name)] for name in NOTE_LISTS}
    total = notes_bytes(notes)
    if total <= limit:
        return notes
    drop = dict.fromkeys(NOTE_LISTS, 0)
    while total > limit:
        name = max(NOTE_LISTS, key=lambda n: (sum(sizes[n][drop[n]:]), n))
        if drop[name] >= len(sizes[name]):
            break   # nothing left to shed but section coverage
        total -= sizes[name][drop[name]]
        drop[name] += 1
    shed = notes.model_copy(update={name: getattr(notes, name)[drop[name]:] for name in NOTE_LISTS})
    while notes_bytes(shed) > limit:   # (the sum above misses a byte per list it empties: measured exactly here)
        name = max(NOTE_LISTS, key=lambda n: (len(getattr(shed, n)), n))
        if not getattr(shed, name):
            break
        shed = shed.model_copy(update={name: getattr(shed, name)[1:]})
    return shed


def _item_json(item: object) -> bytes:
    return (item.model_dump_json() if isinstance(item, BaseModel) else json.dumps(item, ensure_ascii=False)).encode()


def shed_research(items: list[ResearchItem], limit: int = RESEARCH_BYTES) -> list[ResearchItem]:
    """The newest research items that fit in `limit` bytes (the Orchestrator is sent only the newest few)."""
    return items[len(items) - keep_count(items, len(items), limit, model_bytes):] if items else items


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
