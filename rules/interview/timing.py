"""003 §5: section durations, deadlines, T-2:00 / T-0:30 warnings and the 15 s late grace."""

from __future__ import annotations

from datetime import datetime, timedelta

from models.interview.plan import SectionSnapshot

IMPORTANCE_WEIGHT = {"high": 3, "medium": 2, "low": 1}
DEFAULT_WARNINGS = (120, 30)
LATE_GRACE_SECONDS = 15.0


def allocate_durations(sections: list[SectionSnapshot], total_seconds: int) -> list[int]:
    """Seconds per section. Explicit durations are kept; the rest of `total_seconds` is shared by importance."""
    if not sections:
        return []
    fixed = sum(s.duration_seconds or 0 for s in sections)
    free = [i for i, s in enumerate(sections) if not s.duration_seconds]
    if not free:
        return [int(s.duration_seconds or 0) for s in sections]
    remaining = max(len(free), total_seconds - fixed)
    weights = [IMPORTANCE_WEIGHT.get(sections[i].importance, 2) for i in free]
    out = [int(s.duration_seconds or 0) for s in sections]
    given = 0
    for n, i in enumerate(free):
        share = remaining - given if n == len(free) - 1 else int(remaining * weights[n] / sum(weights))
        out[i] = max(1, share)
        given += out[i]
    return out


def fit_durations(durations: list[int], total_seconds: int) -> list[int]:
    """`durations` scaled to add up to `total_seconds` (each at least 1 s; the last takes the rounding)."""
    if not durations:
        return []
    weights = [max(1, d) for d in durations]
    out = [max(1, int(total_seconds * w / sum(weights))) for w in weights]
    out[-1] = total_seconds - sum(out[:-1])
    while out[-1] < 1:                                   # rounding up the small ones overdrew: take from the largest
        largest = max(range(len(out) - 1), key=lambda i: out[i])
        out[largest] -= 1
        out[-1] += 1
    return out


def warnings_due(deadline: datetime, now: datetime, thresholds: list[int], sent: list[int],
                 section_seconds: float) -> list[int]:
    """Warning thresholds (seconds before the deadline) that are due now and not yet sent.

    A threshold longer than the section itself is never sent (a 90 s section gets no T-2:00 warning)."""
    due = []
    for t in sorted(thresholds, reverse=True):
        if t in sent or t >= section_seconds:
            continue
        if now >= deadline - timedelta(seconds=t):
            due.append(t)
    return due


def next_warning_at(deadline: datetime, thresholds: list[int], sent: list[int],
                    section_seconds: float) -> datetime | None:
    pending = [deadline - timedelta(seconds=t) for t in thresholds if t not in sent and t < section_seconds]
    return min(pending) if pending else None


def in_grace(now: datetime, ended_at: datetime | None, grace_seconds: float = LATE_GRACE_SECONDS) -> bool:
    """True while an entry arriving now still belongs (late) to the section that ended at `ended_at`."""
    return ended_at is not None and ended_at <= now < ended_at + timedelta(seconds=grace_seconds)


def seconds_between(start: datetime, end: datetime) -> float:
    return (end - start).total_seconds()


def fmt_clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"
