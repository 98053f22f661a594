"""The user's clock: an IANA time zone (or a fixed offset) to the UTC offset a QueryRequest carries (pure)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_OFFSET = re.compile(r"^(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$", re.I)


def utc_offset_minutes(tz: str, at: datetime | None = None) -> int:
    """Minutes east of UTC for `tz` at `at` (default now): 'Asia/Seoul' → 540, '+05:30' → 330, 'UTC' → 0.
    Raises ValueError with a readable message for an unknown zone."""
    name = tz.strip()
    if name.upper() in ("UTC", "GMT", "Z"):
        return 0
    m = _OFFSET.match(name)
    if m:
        minutes = int(m[2]) * 60 + int(m[3] or 0)
        if minutes > 14 * 60:
            raise ValueError(f"time zone offset {tz!r} is outside -14:00..+14:00")
        return minutes if m[1] == "+" else -minutes
    try:
        zone = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {tz!r}: use an IANA name like Asia/Seoul or an offset like "
                         "+09:00") from None
    delta = (at or datetime.now(UTC)).astimezone(zone).utcoffset()
    return int(delta.total_seconds() // 60) if delta else 0
