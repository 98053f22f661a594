"""Transcript entries: validation with clear messages, speakers, closing detection, merging, formatting."""

from __future__ import annotations

import re
from collections.abc import Sequence

from models.interview.entries import TranscriptEntry, WindowLine
from models.interview.names import CONTROL_ACTIONS, ENTRY_KINDS, SPEAKER_ALIASES

from .similarity import words

# 000 closing detection: an interviewer remark containing one of these ends the interview at once.
CLOSING_PHRASES = (
    "thank you so much for",
    "this has been a wonderful",
    "really appreciate you taking the time",
    "what a fascinating conversation",
    "thank you for sharing",
)
# ... unless the remark goes on: a turn to another topic or a request to say more means the interview goes on.
TOPIC_TURNS = tuple(re.compile(p) for p in (
    r"\blet(?:'s| us| me)\b", r"\bturn(?:ing)? to\b", r"\bmove (?:on|to)\b", r"\bmoving on\b", r"\bnext\b",
    r"\btell me\b", r"\btalk about\b", r"\bshift(?:ing)? to\b", r"\bback to\b", r"\bgo(?:ing)? deeper\b",
    r"\b(?:can|could|would|will) you\b", r"\bi(?:'d| would) (?:like|love) to (?:ask|hear|know|talk|turn|go)\b",
    r"\b(?:what|how) about\b", r"\bsay more\b", r"\bwalk me through\b", r"\bdescribe\b", r"\bexplain\b",
))
MAX_ENTRY_ID_CHARS = 200


#: why an entry, a control or an assistant query was refused: a closed set of language-free codes, so that a page can
#: word the refusal in its participant's language (client/web/interview/refusals.py); the English message stays
#: what the CLI, the Temporal CLI and the logs show
ENTRY_ID_MISSING = "entry_id_missing"
ENTRY_ID_TOO_LONG = "entry_id_too_long"      # length, limit
UNKNOWN_SPEAKER = "unknown_speaker"
UNKNOWN_KIND = "unknown_kind"
EMPTY_TEXT = "empty_text"
TOO_LONG = "too_long"                        # length, limit
OUT_OF_ORDER = "out_of_order"                # last, seq
ENDED = "ended"                              # the interview has ended: no more entries or controls
UNKNOWN_ACTION = "unknown_action"
QUERY_ID_MISSING = "query_id_missing"
QUERY_EMPTY = "query_empty"
QUERY_TOO_LONG = "query_too_long"            # length, limit
ASSISTANT_CLOSED = "assistant_closed"
REFUSAL_CODES = frozenset({ENTRY_ID_MISSING, ENTRY_ID_TOO_LONG, UNKNOWN_SPEAKER, UNKNOWN_KIND, EMPTY_TEXT, TOO_LONG,
                           OUT_OF_ORDER, ENDED, UNKNOWN_ACTION, QUERY_ID_MISSING, QUERY_EMPTY, QUERY_TOO_LONG,
                           ASSISTANT_CLOSED})


class EntryError(ValueError):
    """A rejected entry or control; the message says what is wrong and what is accepted (in English), `code` which
    of REFUSAL_CODES it is and `params` the numbers a translated sentence needs."""

    def __init__(self, message: str, *, code: str, **params: int) -> None:
        super().__init__(message)
        self.code, self.params = code, params

    def __reduce__(self) -> tuple[object, ...]:
        return _entry_error, (str(self), self.code, self.params)

    def details(self) -> dict[str, str | int]:
        """What a caller gets besides the message: {"code": ..., and the numbers}."""
        return {"code": self.code, **self.params}


def _entry_error(message: str, code: str, params: dict[str, int]) -> EntryError:
    return EntryError(message, code=code, **params)


def normalize_speaker(speaker: str) -> str | None:
    return SPEAKER_ALIASES.get((speaker or "").strip().lower())


def validate_entry(entry: TranscriptEntry, max_chars: int) -> TranscriptEntry:
    """Return the entry with its speaker normalised, or raise EntryError with a clear message."""
    if not entry.entry_id or not entry.entry_id.strip():
        raise EntryError("entry_id is required (a client-chosen unique id, e.g. a UUID)", code=ENTRY_ID_MISSING)
    if len(entry.entry_id) > MAX_ENTRY_ID_CHARS:
        raise EntryError(f"entry_id is {len(entry.entry_id)} characters; the limit is {MAX_ENTRY_ID_CHARS}",
                         code=ENTRY_ID_TOO_LONG, length=len(entry.entry_id), limit=MAX_ENTRY_ID_CHARS)
    speaker = normalize_speaker(entry.speaker)
    if speaker is None:
        raise EntryError(f"unknown speaker {entry.speaker!r}: use 'interviewer' or 'interviewee' "
                         f"(also accepted: {', '.join(sorted(k for k in SPEAKER_ALIASES if k not in ('interviewer', 'interviewee')))})",
                         code=UNKNOWN_SPEAKER)
    if entry.kind not in ENTRY_KINDS:
        raise EntryError(f"unknown entry kind {entry.kind!r}: use one of {', '.join(ENTRY_KINDS)}", code=UNKNOWN_KIND)
    if not entry.text or not entry.text.strip():
        raise EntryError(f"entry {entry.entry_id!r} has empty text: nothing to record", code=EMPTY_TEXT)
    if len(entry.text) > max_chars:
        raise EntryError(f"entry {entry.entry_id!r} is {len(entry.text)} characters; the limit is {max_chars} "
                         f"— split it into several entries", code=TOO_LONG, length=len(entry.text), limit=max_chars)
    return entry.model_copy(update={"speaker": speaker})


def validate_action(action: str) -> str:
    normalized = (action or "").strip().lower()
    if normalized not in CONTROL_ACTIONS:
        raise EntryError(f"unknown session control action {action!r}: use one of {', '.join(CONTROL_ACTIONS)}",
                         code=UNKNOWN_ACTION)
    return normalized


def is_closing_remark(text: str) -> bool:
    """000's closing phrases, when nothing follows them: no question and no turn to another topic ("Thank you for
    sharing that. What happened next?" or "... Let us turn to your years in Japan." is a transition, not a
    goodbye; a live model says that mid-interview)."""
    lower = text.lower()
    return (any(phrase in lower for phrase in CLOSING_PHRASES) and "?" not in text
            and not any(turn.search(lower) for turn in TOPIC_TURNS))


def is_closing_remark_v1(text: str) -> bool:
    """The rule before topic turns were recognised (kept for workflow histories recorded with it)."""
    lower = text.lower()
    return "?" not in text and any(phrase in lower for phrase in CLOSING_PHRASES)


def word_count(text: str) -> int:
    return len(text.split())


def speaker_label(speaker: str) -> str:
    return "Interviewer" if speaker == "interviewer" else "Interviewee"


def format_transcript(entries: Sequence[TranscriptEntry | WindowLine]) -> str:
    """'Speaker: text' lines (code entries fenced) — what the agents read."""
    lines = []
    for e in entries:
        if e.kind == "code":
            lines.append(f"{speaker_label(e.speaker)} (code):\n```\n{e.text}\n```")
        else:
            lines.append(f"{speaker_label(e.speaker)}: {e.text}")
    return "\n".join(lines)


def merge_transcripts(previous: list[TranscriptEntry], current: list[TranscriptEntry]) -> list[TranscriptEntry]:
    """000 follow-ups: original first, then the follow-up, each in its own order; an entry id seen twice is
    kept once (the first)."""
    seen: set[str] = set()
    out = []
    for e in list(previous) + list(current):
        key = f"{e.session_id or ''}/{e.entry_id}"
        if key in seen:
            continue
        seen.add(key)
        out.append(e)
    return out


def dedupe_quotes(quotes: list[str], threshold: float = 0.8) -> list[str]:
    from .similarity import is_duplicate

    out: list[str] = []
    for q in quotes:
        if q.strip() and not is_duplicate(q, out, threshold):
            out.append(q)
    return out


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(words(s)) >= 4]
