"""Small helpers shared by the query agents: compact JSON for prompts, entry rendering, offline heuristics."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from models.query.parts import Entry

_WORD = re.compile(r"[a-z][a-z0-9']+")
STOP = {"the", "and", "was", "why", "how", "what", "when", "which", "did", "does", "my", "me", "i", "is", "are",
        "last", "this", "week", "month", "today", "yesterday", "show", "feel", "felt", "should", "could", "do",
        "for", "with", "about", "have", "has", "had", "been", "from", "that", "there", "their", "your", "you",
        "get", "got", "it", "its", "in", "on", "of", "to", "a", "an", "so", "be", "am", "can", "tell", "after",
        "before", "way", "much", "many", "progress", "doing", "going", "also", "then", "than"}


def dump(value: Any) -> str:
    """Compact JSON for prompt variables (pydantic models, lists of them, dicts)."""
    if isinstance(value, BaseModel):
        return value.model_dump_json(exclude_none=True)
    if isinstance(value, list) and value and isinstance(value[0], BaseModel):
        return "[" + ", ".join(v.model_dump_json(exclude_none=True) for v in value) + "]"
    if value in (None, "", [], {}):
        return "(none)"
    return json.dumps(value, default=str, ensure_ascii=False)


def render_entries(entries: list[Entry]) -> str:
    if not entries:
        return "(no entries)"
    lines = []
    for e in entries:
        line = f"[{e.id}] {e.timestamp:%Y-%m-%d %H:%M} {e.raw_content.strip()}"
        for c in e.corrections:
            line += f"\n    [correction] {c.strip()}"
        if e.domain_data:
            line += f"\n    parsed: {json.dumps(e.domain_data, default=str)}"
        lines.append(line)
    return "\n".join(lines)


def content_words(text: str) -> list[str]:
    out: list[str] = []
    for w in _WORD.findall(text.lower()):
        if w not in STOP and len(w) > 2 and w not in out:
            out.append(w)
    return out
