"""An answer longer than the engine accepts (`SessionState.max_entry_chars`) goes in as several entries, cut between
sentences — people must not have to split it themselves. One rule for every client: `rehearse`, `join` and the
browser room (client/web/split.js is the same rule in JavaScript; tests/fixtures/interview/answer_split_vectors.json
holds inputs and the parts both must give, checked by a unit test here and by a browser test there).

The rule, on the text without surrounding whitespace (lengths count characters, i.e. code points, as the engine
does):
- while more than `limit` characters are left, cut at the latest position p (p <= limit) that ends a sentence,
  if p > limit // 2: after `. ! ? …` followed by whitespace or the end, or after `。！？` (no space needed), in
  both cases after any closing quotes or brackets that follow;
- else at the latest whitespace within the first `limit` characters;
- else after exactly `limit` characters (one very long word);
- each part loses the whitespace around it; nothing else is dropped or changed.
Whitespace is the explicit set WHITESPACE (the same in both languages: Python's and JavaScript's own differ).
"""

from __future__ import annotations

WHITESPACE = frozenset(" \t\n\r\f\v\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
                       "\u200a\u2028\u2029\u202f\u205f\u3000")
SENTENCE_ENDS = frozenset(".!?…")          # a sentence ends here when whitespace (or the end) follows
CJK_SENTENCE_ENDS = frozenset("。！？")      # ... and here even when nothing but text follows
CLOSERS = frozenset("\"'”’)]」』）》")        # closing quotes/brackets that stay with the sentence they close


def strip_ws(chars: list[str]) -> list[str]:
    start, end = 0, len(chars)
    while start < end and chars[start] in WHITESPACE:
        start += 1
    while end > start and chars[end - 1] in WHITESPACE:
        end -= 1
    return chars[start:end]


def _ends_sentence(chars: list[str], p: int) -> bool:
    """Whether a cut before chars[p] ends a sentence (chars[:p] is the part)."""
    if p < len(chars) and chars[p] in CLOSERS:
        return False                      # the closer belongs with the sentence before it
    i = p - 1
    while i >= 0 and chars[i] in CLOSERS:
        i -= 1
    if i < 0:
        return False
    if chars[i] in CJK_SENTENCE_ENDS:
        return True
    return chars[i] in SENTENCE_ENDS and (p == len(chars) or chars[p] in WHITESPACE)


def _cut(chars: list[str], limit: int) -> int:
    """Where the first part ends, for a text longer than `limit` (0 < cut <= limit)."""
    for p in range(limit, limit // 2, -1):
        if _ends_sentence(chars, p):
            return p
    for p in range(limit, 0, -1):
        if chars[p] in WHITESPACE:
            return p
    return limit


def split_answer(text: str, limit: int) -> list[str]:
    """The answer in parts of at most `limit` characters, cut between sentences (else words); [] for a blank one."""
    if limit < 1:
        raise ValueError(f"the entry limit must be at least 1 character, not {limit}")
    chars = strip_ws(list(text))
    parts: list[str] = []
    while len(chars) > limit:
        cut = _cut(chars, limit)
        parts.append("".join(strip_ws(chars[:cut])))
        chars = strip_ws(chars[cut:])
    if chars:
        parts.append("".join(chars))
    return parts


def parts_note(parts: int, limit: int) -> str:
    """What a client says when an answer went in as several entries."""
    return (f"your answer was sent in {parts} parts (it was longer than one entry may be: {limit:,} characters; "
            f"cut between sentences)") if parts > 1 else ""
