"""Small text helpers the study's renderers share: counted nouns, and answers whose lines can never read as a
speaker's line."""

from __future__ import annotations

import re

CONTINUATION = "    "     # a transcript's continuation lines start with it: only a turn's first line names a speaker
# every line break a text viewer may show: \r\n, \n, \r, VT, FF, FS/GS/RS, NEL, LINE / PARAGRAPH SEPARATOR
_BREAK = re.compile("\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def plural(n: int, one: str, many: str | None = None) -> str:
    """`1 participant`, `2 participants` (`many` for irregular plurals)."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def continued(text: str) -> str:
    """A turn's text with every line after its first indented: a line of an answer (say "Interviewer: …") never
    stands at a line's start, where a reader or a QDA tool's speaker auto-coding takes it for a new turn."""
    return _BREAK.sub("\n" + CONTINUATION, text)
