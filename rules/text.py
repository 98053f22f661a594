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
    """The default workflow id of every pipeline: `<pipeline>-<short id>` — never words of `text`.

    Workflow ids are stored and logged in clear by the Temporal server (its database, WAL, logs, the Web UI) even
    with payload encryption on, so a note's or a topic's words must not be in them (`text` and `limit` are kept
    for the callers' sake and not used). `workflow_id("notes-fitness", "psychiatrist at 3", "a1b2c3")` →
    `notes-fitness-a1b2c3`.
    """
    del text, limit
    return f"{pipeline}-{short_id}"


_TAG = re.compile(r"<(?=[A-Za-z/!?])")


def escape_raw_html(markdown: str) -> str:
    """`markdown` with every raw HTML tag, comment or declaration made inert text (`<img onerror=…>` →
    `&lt;img onerror=…>`), so words a person typed are shown, never rendered or run, wherever the text is opened;
    a `<` that starts no tag (`a < b`) is kept."""
    return _TAG.sub("&lt;", markdown)
