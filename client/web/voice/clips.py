"""The recordings a spoken answer names (`audio_clips` of POST /room/ID/KEY/entry, client/web/interview/room.py): clips of
this interview that POST .../audio stored (client/web/voice/room.py)."""

from __future__ import annotations

import re

from activities.voice.store import AudioStore, audio_scope

CLIP_NAME = re.compile(r"^clip-[0-9a-f]{32}\.(wav|webm|ogg)$")
MAX_CLIPS_PER_ENTRY = 60


def audio_clips(value: object, wid: str) -> list[str] | None:
    """The `audio_clips` of an entry body: names of clips of this interview that are in the store (ValueError
    for anything else)."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_CLIPS_PER_ENTRY or \
            not all(isinstance(v, str) and CLIP_NAME.match(v) for v in value):
        raise ValueError(f"audio_clips: a list of at most {MAX_CLIPS_PER_ENTRY} clip names this room returned")
    store = AudioStore()
    missing = [v for v in value if not store.exists(audio_scope(wid), v)]
    if missing:
        raise ValueError(f"audio_clips: no such recording in this interview: {missing[0]}")
    return [f"{audio_scope(wid)}/{v}" for v in value] or None
