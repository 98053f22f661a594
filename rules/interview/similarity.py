"""Word-set Jaccard similarity (000: question matching > 0.6; notes dedup 0.7 / 0.6 / 0.8)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9']+")


def words(text: str) -> set[str]:
    return {w.strip("'") for w in _WORD.findall(text.lower()) if w.strip("'")}


def jaccard(a: str, b: str) -> float:
    return jaccard_sets(words(a), words(b))


def jaccard_sets(wa: set[str], wb: set[str]) -> float:
    if not wa and not wb:
        return 1.0
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def is_duplicate(text: str, existing: list[str], threshold: float) -> bool:
    """Similar enough (>= threshold) to one already kept."""
    mine = words(text)
    return any(jaccard_sets(mine, words(other)) >= threshold for other in existing)
