"""How long recorded audio is kept: COLLOQUY_AUDIO_RETENTION_DAYS (unset or 0: as long as the transcripts)."""

from __future__ import annotations

from datetime import datetime, timedelta


def parse_days(value: str | None) -> float | None:
    """None: keep; else the number of days (ValueError for anything but a number >= 0)."""
    text = (value or "").strip()
    if not text:
        return None
    days = float(text)
    if days < 0 or days != days:
        raise ValueError(f"COLLOQUY_AUDIO_RETENTION_DAYS={text!r}: a number of days, 0 or more")
    return days or None


def expired(created: datetime, now: datetime, days: float | None) -> bool:
    return days is not None and now - created > timedelta(days=days)
