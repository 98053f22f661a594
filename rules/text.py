"""Small text helpers shared by every layer (pure)."""

from __future__ import annotations

import re

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def slug(text: str, limit: int = 40, *, empty: str = "x") -> str:
    """A lowercase, dash-separated, id- and filename-safe form of `text`, at most `limit` characters.

    `slug("What on-call taught me")` → `what-on-call-taught-me`. Used for workflow ids and artifact names.
    """
    s = _NON_ALNUM.sub("-", text.lower()).strip("-")
    return s[:limit].rstrip("-") or empty


def workflow_id(pipeline: str, text: str, short_id: str, limit: int = 40) -> str:
    """The default, meaningful workflow id of every pipeline: `<pipeline>-<slug of text>-<short id>`.

    `workflow_id("interview", "What on-call taught me", "a1b2c3")` → `interview-what-on-call-taught-me-a1b2c3`.
    """
    return f"{pipeline}-{slug(text, limit, empty=pipeline if pipeline != 'interview' else 'session')}-{short_id}"
