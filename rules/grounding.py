"""The grounding check: is a quote the speaker's exact words? One pure function shared by everything that prints
quotes — the interview essay (activities/interview/writer.py), study findings (activities/study/) and their
reports, and query answers that quote notes (activities/query/synthesize_answer.py).

    check = check_quote('"Escalate early."', answers)        # answers: the texts the quote must come from
    check.verified       # True only for the exact words (whitespace and the outer quote marks aside)
    check.status         # verified | near_miss | not_found | empty
    check.reason         # for a near miss: what differs (one word changed, punctuation, spliced from two answers)

Verbatim means verbatim: the same words, the same capitalisation, the same punctuation, inside ONE answer. Only
runs of whitespace are normalised (line breaks in a transcript), typographic apostrophes and double quotes count as
their plain forms (’ as ', “ ” as "), and one pair of quote marks around the whole quote is ignored. A near miss is
never printed as a quote: callers flag it (and say why) instead.

`verbatim_span` adds word boundaries ("ight was a sett" is inside an answer but is nobody's words), and
`supported` asks whether a sentence that is not a quote holds to what was said: more than half of its content
words (stop words removed, rules/stopwords.py) were said by the person.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rules.stopwords import content_words, detect_language

Status = Literal["verified", "near_miss", "not_found", "empty"]
_OUTER_QUOTES = "\"'“”‘’«»„‚‹›「」"
_TOKEN = re.compile(r"\w+(?:['’]\w+)*", re.UNICODE)
MIN_SPLICE_WORDS = 3      # each part of a spliced quote has at least this many words


@dataclass(frozen=True)
class QuoteCheck:
    quote: str                  # the quote as checked (outer quote marks and extra whitespace removed)
    status: Status
    source: int | None = None   # index of the answer it was found in (verified), or the nearest one (near miss)
    reason: str = ""

    @property
    def verified(self) -> bool:
        return self.status == "verified"

    @property
    def flag(self) -> str:
        """One line for a report: why this is not printed as a quote."""
        if self.verified:
            return ""
        return {"near_miss": f"near miss: {self.reason}", "not_found": "not found in the transcript",
                "empty": "empty quote"}[self.status]


def clean_quote(quote: str) -> str:
    """Whitespace collapsed and one pair of quote marks around the whole quote removed."""
    text = " ".join(quote.split())
    if len(text) >= 2 and text[0] in _OUTER_QUOTES and text[-1] in _OUTER_QUOTES:
        text = text[1:-1].strip()
    return text


def _plain(text: str) -> str:
    return text.translate(_PLAIN)


_PLAIN = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})


def _tokens(text: str) -> list[str]:
    return [t.lower().replace("’", "'") for t in _TOKEN.findall(text)]


def _contains(hay: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return n > 0 and any(hay[i:i + n] == needle for i in range(len(hay) - n + 1))


def _word_edits(a: list[str], b: list[str], limit: int) -> int:
    """Word-level edit distance between a and b, capped at limit + 1 (small inputs: a quote and a window)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, wa in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, wb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (wa != wb))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def _changed_words(q: list[str], source: list[str]) -> int | None:
    """The fewest word edits turning q into a stretch of source (None if more than allowed: len(q) // 8, at
    least 1). With at most `limit` edits one of `limit + 1` chunks of q is intact, so only windows anchored on a
    chunk's occurrence are compared (fast on long answers)."""
    limit = max(1, len(q) // 8)
    step = max(1, len(q) // (limit + 1))
    starts: set[int] = set()
    for offset in range(0, len(q), step):
        chunk = q[offset:offset + step]
        for i in range(len(source) - len(chunk) + 1):
            if source[i:i + len(chunk)] == chunk:
                starts.update(range(max(0, i - offset - limit), i - offset + limit + 1))
    best: int | None = None
    for start in sorted(starts):
        for size in range(max(1, len(q) - limit), len(q) + limit + 1):
            window = source[start:start + size]
            if len(window) < size:
                break
            d = _word_edits(q, window, limit)
            if d <= limit and (best is None or d < best):
                best = d
    return best


def _splice(q: list[str], sources: list[list[str]]) -> tuple[int, int] | None:
    """(i, j) when q's start is in answer i and the rest in answer j (i != j, or far apart in one answer)."""
    for cut in range(MIN_SPLICE_WORDS, len(q) - MIN_SPLICE_WORDS + 1):
        head, tail = q[:cut], q[cut:]
        heads = [i for i, s in enumerate(sources) if _contains(s, head)]
        if not heads:
            continue
        for j, s in enumerate(sources):
            if _contains(s, tail):
                for i in heads:
                    if i != j:
                        return i, j
                    # the same answer: spliced when the two parts are not adjacent there
                    if not _contains(s, q):
                        return i, j
    return None


def check_quote(quote: str, sources: Sequence[str]) -> QuoteCheck:
    """Check `quote` against the texts it must be taken from (a speaker's answers, one text each)."""
    text = clean_quote(quote)
    q = _tokens(text)
    if not q:
        return QuoteCheck(text, "empty")
    flat = [" ".join(s.split()) for s in sources]
    plain = _plain(text)
    for i, s in enumerate(flat):
        if plain in _plain(s):
            return QuoteCheck(text, "verified", i)
    toks = [_tokens(s) for s in flat]
    for i, t in enumerate(toks):
        if _contains(t, q):
            return QuoteCheck(text, "near_miss", i, "the words match but the punctuation or capitalisation differs")
    spliced = _splice(q, toks)
    if spliced is not None:
        i, j = spliced
        where = f"answers {i + 1} and {j + 1}" if i != j else f"two places in answer {i + 1}"
        return QuoteCheck(text, "near_miss", i, f"spliced from {where}")
    best: tuple[int, int] | None = None
    for i, t in enumerate(toks):
        d = _changed_words(q, t) if len(q) >= 3 else None
        if d is not None and (best is None or d < best[1]):
            best = (i, d)
    if best is not None:
        return QuoteCheck(text, "near_miss", best[0],
                          f"{best[1]} word{'s' if best[1] > 1 else ''} differ{'' if best[1] > 1 else 's'} from "
                          f"answer {best[0] + 1}")
    return QuoteCheck(text, "not_found")


def is_verbatim(quote: str, sources: Sequence[str]) -> bool:
    """Whether `quote` is one source's exact words (`check_quote(...).verified`): the one verbatim rule that every
    caller keeping or dropping quotes uses (essay, analysis, section summaries, study findings, query answers)."""
    return check_quote(quote, sources).verified


_QUOTED_SPAN = re.compile(r"([\"“])([^\"”\n]{12,})([\"”])")


def quoted_spans(text: str) -> list[str]:
    """The spans a text prints as quotes ("…" or “…”, at least 12 characters)."""
    return [m.group(2) for m in _QUOTED_SPAN.finditer(text)]


def flag_unverified(text: str, sources: Sequence[str]) -> tuple[str, list[QuoteCheck]]:
    """The text with every quoted span that is not verbatim un-quoted and flagged in brackets (it is never printed
    as a quote), and the checks of all quoted spans."""
    checks: list[QuoteCheck] = []

    def replace(m: re.Match[str]) -> str:
        check = check_quote(m.group(2), sources)
        checks.append(check)
        if check.verified:
            return m.group(0)
        return f"{m.group(2)} [unverified quote — {check.flag}]"

    return _QUOTED_SPAN.sub(replace, text), checks


def verbatim_span(quote: str, sources: Sequence[str]) -> bool:
    """`is_verbatim`, and on word boundaries: the quote's words are a run of one source's words."""
    check = check_quote(quote, sources)
    if not check.verified or check.source is None:
        return False
    return _contains(_tokens(sources[check.source]), _tokens(check.quote))


# A sentence is supported when MORE than this share of its content words were said by the person.
SUPPORT_SHARE = 0.5


@dataclass(frozen=True)
class Vocabulary:
    """What one person said, ready for `supported`: the language, the content-word stems, every word said."""
    lang: str | None
    stems: frozenset[str]
    words: frozenset[str]

    @classmethod
    def of(cls, sources: Sequence[str]) -> Vocabulary:
        lang = detect_language(sources)
        return cls(lang, frozenset(w for s in sources for w in content_words(s, lang)),
                   frozenset(w for s in sources for w in _tokens(s)))


def support_share(sentence: str, said: Vocabulary) -> float:
    """The share of `sentence`'s content words that the person said (1.0 when it has none)."""
    words = content_words(sentence, said.lang)
    if not words:
        return 1.0
    return sum(w in said.stems for w in words) / len(words)


def supported(sentence: str, said: Vocabulary) -> bool:
    """Most (more than SUPPORT_SHARE) of the sentence's content words were said by the person."""
    return support_share(sentence, said) > SUPPORT_SHARE
