"""Word error rate: (substitutions + deletions + insertions) / words of the reference, after the same
normalisation on both sides (case, punctuation, apostrophes, hyphens, whitespace, small English numbers). A plain edit distance over
words; no dependency."""

from __future__ import annotations

import re
import unicodedata

_DROP = re.compile(r"[^\w\s']", re.UNICODE)
#: English number words as digits on both sides (Whisper writes "4 hours" for "four hours"; neither is wrong)
NUMBERS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
                                                     "seventy": "70", "eighty": "80", "ninety": "90",
                                                     "hundred": "100"}


def words(text: str) -> list[str]:
    """The words compared: NFKC, case-folded, punctuation and hyphens to spaces, apostrophes kept inside
    words ("don't"), dropped at their edges; English number words up to twenty, the tens and "hundred" as
    digits."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("’", "'").replace("-", " ")
    text = _DROP.sub(" ", text)
    found = [w.strip("'") for w in text.split() if w.strip("'")]
    return [NUMBERS.get(w, w) for w in found]


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    """Levenshtein distance over words (one row at a time: O(len(hyp)) memory)."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h))
        prev = cur
    return prev[-1]


def word_error_rate(reference: str, hypothesis: str) -> float:
    """0.0 for a perfect transcript; may exceed 1.0 (insertions). An empty reference: 0.0 if the hypothesis is
    empty too, else 1.0."""
    ref, hyp = words(reference), words(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    return edit_distance(ref, hyp) / len(ref)


def corpus_wer(pairs: list[tuple[str, str]]) -> float:
    """WER over several utterances: total edits / total reference words (not a mean of rates)."""
    edits = total = 0
    for reference, hypothesis in pairs:
        ref = words(reference)
        edits += edit_distance(ref, words(hypothesis))
        total += len(ref)
    return edits / total if total else 0.0
