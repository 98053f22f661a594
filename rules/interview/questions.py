"""The question in force and its answers (000's live loop, 003's engine contract).

A question is *in force* from the moment the engine presents it; once an interviewer entry asks it (every client
records the question it shows as the interviewer's entry) it *waits for its answer*. The engine never swaps a
waiting question (only an answer, a section end, a skip the person asked for or the end changes it) and never
presents again a question that was already answered — whatever the model proposes. Answered questions are kept as
short keys (a hash of the normalised text), the newest MAX_ANSWERED, so the carried state stays bounded."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from models.interview.entries import TranscriptEntry

MAX_ANSWERED = 500


def normalized(text: str) -> str:
    """Case and spacing do not make a different question."""
    return " ".join(text.casefold().split())


def key(text: str) -> str:
    return hashlib.sha256(normalized(text).encode()).hexdigest()[:16]


def unanswered(tail: Sequence[TranscriptEntry]) -> list[TranscriptEntry]:
    """The interviewer's entries since the interviewee last spoke (what the next answer answers)."""
    out: list[TranscriptEntry] = []
    for entry in reversed(tail):
        if entry.continues:
            continue        # a later part of an answer, or a late answer to an earlier question
        if entry.speaker != "interviewer":
            break
        out.append(entry)
    return out[::-1]


def record_answer(answered: list[str], tail: Sequence[TranscriptEntry]) -> list[str]:
    """`answered` after an interviewee entry answered whatever the interviewer asked since the last answer."""
    new = [key(e.text) for e in unanswered(tail)]
    if not new:
        return answered
    merged = [k for k in answered if k not in new] + list(dict.fromkeys(new))
    return merged[-MAX_ANSWERED:]


def is_repeat(text: str, answered: Sequence[str]) -> bool:
    """Proposing `text` would ask again a question already answered."""
    return key(text) in answered


def answered_keys(transcript: Sequence[TranscriptEntry]) -> list[str]:
    """The keys of the interviewer questions that got an answer in `transcript` (an earlier session's: a follow-up
    never asks them again), the newest MAX_ANSWERED."""
    answered: list[str] = []
    pending: list[str] = []
    for entry in transcript:
        if entry.speaker == "interviewer":
            pending.append(key(entry.text))
        elif entry.speaker == "interviewee" and pending:
            answered = [k for k in answered if k not in pending] + list(dict.fromkeys(pending))
            pending = []
    return answered[-MAX_ANSWERED:]
