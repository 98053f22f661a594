"""Member checking's corrections as the analysis reads them: a participant's correction of an answer (saved on the
read-back page) replaces that answer's words for the analysis — the digest reads the corrected transcript, every
quote is checked against the corrected answers and marks a quote taken from one as `corrected`. The transcript
itself is never rewritten: the exports print each correction beside the answer it corrects.

The latest correction of an answer wins; a correction names an answer (an interviewee entry) by its entry id, and
one naming anything else changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from models.interview.entries import TranscriptEntry
from models.study.workflow import Correction


def latest(corrections: Sequence[Correction]) -> dict[str, str]:
    """entry id -> the corrected text (the latest correction of each answer)."""
    out: dict[str, str] = {}
    for c in corrections:
        if c.text.strip():
            out[c.entry_id] = c.text.strip()
    return out


def corrected_entries(entries: Sequence[TranscriptEntry],
                      corrections: Sequence[Correction]) -> tuple[list[TranscriptEntry], set[str]]:
    """(the transcript as the analysis reads it: each corrected answer's text replaced by its correction, the entry
    ids of the answers that were corrected)."""
    new = latest(corrections)
    out: list[TranscriptEntry] = []
    changed: set[str] = set()
    for e in entries:
        if e.speaker == "interviewee" and e.entry_id in new:
            out.append(e.model_copy(update={"text": new[e.entry_id]}))
            changed.add(e.entry_id)
        else:
            out.append(e)
    return out, changed


def stale(corrections: int, digested: int) -> bool:
    """A digest that read fewer corrections than the participant has saved is redone before the analysis."""
    return corrections > digested
