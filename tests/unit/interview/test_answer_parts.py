"""Long answers are split between sentences, the same way in every client (rules/interview/answer_parts.py; the
browser's client/web/split.js is checked against the same vectors in tests/e2e/interview/test_browser_split.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.interview.answer_parts import WHITESPACE, split_answer

VECTORS = json.loads((Path(__file__).parents[2] / "fixtures" / "interview" / "answer_split_vectors.json")
                     .read_text(encoding="utf-8"))["vectors"]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_the_shared_vectors(vector: dict) -> None:
    assert split_answer(vector["text"], vector["limit"]) == vector["parts"]


def _bare(text: str) -> str:
    return "".join(c for c in text if c not in WHITESPACE)


# Text made of the characters the rule looks at, plus anything at all.
ALPHABET = st.sampled_from(list("ab .!?…。！？\"'”」）\n\t\u3000\u00a0😀字") + ["\x1c", "\ufeff"]) | st.characters()
TEXT = st.lists(ALPHABET, max_size=400).map("".join)


@given(TEXT, st.integers(min_value=1, max_value=60))
def test_parts_fit_lose_nothing_and_keep_order(text: str, limit: int) -> None:
    parts = split_answer(text, limit)
    assert all(0 < len(p) <= limit for p in parts)
    assert all(p[0] not in WHITESPACE and p[-1] not in WHITESPACE for p in parts)
    assert _bare("".join(parts)) == _bare(text)                 # nothing dropped, nothing reordered
    if len("".join(c for c in text).strip("".join(WHITESPACE))) <= limit:
        assert len(parts) <= 1                                   # a short answer is never split


@given(st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=12), min_size=1, max_size=30),
       st.integers(min_value=30, max_value=80))
def test_sentences_are_kept_whole_when_they_fit(words: list[str], limit: int) -> None:
    """Sentences shorter than limit // 2 characters are never cut inside (there is always a sentence end in the
    second half of the window)."""
    sentences, sentence = [], []
    for i, w in enumerate(words):
        sentence.append(w)
        if i % 3 == 2:
            sentences.append(" ".join(sentence) + ".")
            sentence = []
    if sentence:
        sentences.append(" ".join(sentence) + ".")
    sentences = [s[: limit // 2 - 2] + "." if len(s) >= limit // 2 else s for s in sentences]
    for part in split_answer(" ".join(sentences), limit):
        assert part.endswith(".")


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        split_answer("text", 0)
