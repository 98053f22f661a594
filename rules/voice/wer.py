"""Word error rate: (substitutions + deletions + insertions) / words of the reference, after the same
normalisation on both sides (case, punctuation, apostrophes, hyphens, whitespace, small English numbers). A plain edit distance over
words; no dependency.

Languages written without spaces between words (Japanese, Chinese: `CHARACTER_LANGUAGES`) are scored by character
error rate instead: the same edit distance over characters, punctuation and spaces left out (`error_rate`)."""

from __future__ import annotations

import re
import unicodedata

#: Arabic short-vowel marks (tashkeel) and the tatweel: optional in writing, so dropped on both sides
_ARABIC_OPTIONAL = re.compile("[\u0640\u064b-\u0652\u0670]")
#: English number words as digits on both sides (Whisper writes "4 hours" for "four hours"; neither is wrong)
NUMBERS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
                                                     "seventy": "70", "eighty": "80", "ninety": "90",
                                                     "hundred": "100"}
#: scored by characters: their words are not separated by spaces
CHARACTER_LANGUAGES = frozenset({"ja", "zh", "yue", "th", "lo", "km", "my"})


def _kept(ch: str) -> bool:
    """Letters, digits and combining marks (a Devanagari vowel sign is part of its word), and the apostrophe."""
    return ch == "'" or unicodedata.category(ch)[0] in "LNM"


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold().replace("’", "'").replace("-", " ")
    text = _ARABIC_OPTIONAL.sub("", text)
    return "".join(ch if _kept(ch) else " " for ch in text)


def words(text: str) -> list[str]:
    """The words compared: NFKC, case-folded, punctuation and hyphens to spaces (letters, digits and combining
    marks kept), apostrophes kept inside words ("don't"), dropped at their edges, Arabic's optional vowel marks
    dropped; English number words up to twenty, the tens and "hundred" as digits."""
    found = [w.strip("'") for w in _clean(text).split() if w.strip("'")]
    return [NUMBERS.get(w, w) for w in found]


def characters(text: str) -> list[str]:
    """The characters compared for a language written without spaces: the same normalisation as `words`, then
    every letter, digit or mark on its own (spaces and punctuation left out)."""
    return [ch for ch in _clean(text) if not ch.isspace() and ch != "'"]


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
    return _corpus(pairs, words)


def corpus_cer(pairs: list[tuple[str, str]]) -> float:
    """Character error rate over several utterances: total edits / total reference characters."""
    return _corpus(pairs, characters)


def _corpus(pairs: list[tuple[str, str]], units) -> float:  # noqa: ANN001
    edits = total = 0
    for reference, hypothesis in pairs:
        ref = units(reference)
        edits += edit_distance(ref, units(hypothesis))
        total += len(ref)
    return edits / total if total else 0.0


def metric_for(language: str) -> str:
    """"CER" for a language written without spaces (by its primary subtag), else "WER"."""
    return "CER" if language.replace("_", "-").split("-")[0].lower() in CHARACTER_LANGUAGES else "WER"


def error_rate(pairs: list[tuple[str, str]], language: str) -> float:
    """The language's error rate over (reference, transcript) pairs: CER for ja, zh and the like, else WER."""
    return corpus_cer(pairs) if metric_for(language) == "CER" else corpus_wer(pairs)
