"""000: opening (first 15 %), deep_dive (middle), wrap_up (final 15 %) by elapsed time."""

from __future__ import annotations

OPENING_END = 0.15
WRAP_UP_START = 0.85
PHASES = ("opening", "deep_dive", "wrap_up")


def phase_for(elapsed_seconds: float, target_seconds: float) -> str:
    if target_seconds <= 0:
        return "wrap_up"
    progress = elapsed_seconds / target_seconds
    if progress < OPENING_END:
        return "opening"
    if progress >= WRAP_UP_START:
        return "wrap_up"
    return "deep_dive"


def phase_boundaries(target_seconds: float) -> list[tuple[float, str]]:
    """Elapsed seconds at which each later phase begins (the workflow arms one timer per boundary)."""
    return [(target_seconds * OPENING_END, "deep_dive"), (target_seconds * WRAP_UP_START, "wrap_up")]


def progress_percent(elapsed_seconds: float, target_seconds: float) -> int:
    if target_seconds <= 0:
        return 100
    return max(0, min(100, round(100 * elapsed_seconds / target_seconds)))
