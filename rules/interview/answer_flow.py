"""An answer is what the person sent (issue 35): the parts of one long answer are one answer, and the engine decides
once, after the last part.

Clients cut an answer longer than `max_entry_chars` into parts (rules/interview/answer_parts.py). Each part is an
entry; the engine must not take each for an answer (before: a new question was put in force between the parts,
"answered" by the rest of the text and never asked). Two ways a part says what it is:

- numbered (clients since this change): `answer_id` (the id the parts share), `part` (1-based) and `parts`
  (how many). The engine decides after the last part, or `answer_parts_wait_seconds` after the latest one (a
  client that died half-way does not stall the interview);
- by its id, as rooms opened before send them: `X`, `X-2`, `X-3`, … — part n continues the answer whose part n-1
  was the last interviewee entry (same client when both say theirs). The engine cannot know whether more come, so
  after a part that could have been cut (longer than half the entry limit: `split_answer` cuts no shorter unless a
  single word fills the limit) it waits `answer_settle_seconds` for the next one before deciding.

A part that arrives after the engine decided anyway (a client slower than the wait) still continues its answer: it is
filed with its first part's section and never answers, nor displaces, the question put in force since
(`TranscriptEntry.continues`). Pure functions: the session (rules/interview/session_intake.py) applies them.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from models.interview.entries import TranscriptEntry
from models.interview.workflow import AnswerInProgress

_SUFFIX = re.compile(r"^(?P<base>.+)-(?P<n>[0-9]{1,3})$")


def continues(entry: TranscriptEntry, answer: AnswerInProgress | None) -> bool:
    """Whether `entry` (an interviewee's) is a later part of `answer`, the last answer recorded."""
    if answer is None:
        return False
    if entry.client_id and answer.client_id and entry.client_id != answer.client_id:
        return False
    if entry.answer_id is not None:
        return entry.answer_id == answer.answer_id and (entry.part or 1) > 1
    m = _SUFFIX.match(entry.entry_id)
    return m is not None and m["base"] == answer.answer_id and int(m["n"]) == answer.received + 1


def begin(entry: TranscriptEntry, section_id: str | None, late: bool, now: datetime) -> AnswerInProgress:
    """The answer `entry` begins (its first part, or a whole answer)."""
    return AnswerInProgress(answer_id=entry.answer_id or entry.entry_id, entry_id=entry.entry_id,
                            section_id=section_id, late=late, received=entry.part or 1, parts=entry.parts,
                            last_at=now, last_chars=len(entry.text), client_id=entry.client_id)


def add_part(answer: AnswerInProgress, entry: TranscriptEntry, now: datetime) -> AnswerInProgress:
    return answer.model_copy(update={"entry_id": entry.entry_id, "received": max(answer.received + 1, entry.part or 0),
                                     "parts": entry.parts or answer.parts, "last_at": now,
                                     "last_chars": len(entry.text)})


def settles_at(answer: AnswerInProgress | None, *, max_entry_chars: int, settle_seconds: float,
               parts_wait_seconds: float) -> datetime | None:
    """When the engine may decide on `answer` (None: now — nothing more is expected)."""
    if answer is None:
        return None
    if answer.parts is not None:
        if answer.received >= answer.parts:
            return None
        return answer.last_at + timedelta(seconds=parts_wait_seconds)
    if answer.last_chars > max_entry_chars // 2 and settle_seconds > 0:
        return answer.last_at + timedelta(seconds=settle_seconds)
    return None
