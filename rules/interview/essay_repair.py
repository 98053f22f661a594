"""The Writer's repair: the model's essay is input, checked sentence by sentence like anything at a door
(rules/interview/essay_checks.py `reject`). A sentence that does not hold to the transcript is dropped — nothing
is fixed by inventing — and the essay says how much was dropped. When too little survives the essay falls back to
the extractive one (the interviewee's own sentences in order, `extractive_essay`, which the offline test double
writes too), labelled as such.

Too little survives (EXTRACTIVE when any holds):
- no sentence is kept, or fewer than MIN_KEPT_SHARE (half) of the model's sentences are;
- what is kept is not in the first person (`first_person`: no I/we while the interviewee says I/we).
The title is the model's when it passes `title_reject` (one of its content words was said, no debris, residue or
third person), else `title_fallback` (the analysis's title or the topic) — always the fallback when extractive.

    repaired = repair_essay(model_text, Speaker.of(answers, "Maya Chen"), title_fallback="On call")
    repaired.text, repaired.extractive, repaired.dropped   # {"unsupported": 2, "invented_quote": 1, ...}
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from rules.interview.entries import sentences as said_sentences
from rules.interview.essay_checks import (
    REASONS,
    Reason,
    Speaker,
    first_person,
    quote_failures,
    quotes_in,
    reject,
    said_verbatim,
    title_reject,
)

MIN_KEPT_SHARE = 0.5
MAX_ESSAY_CHARS = 100_000           # a longer answer is cut here (a 2,048-token essay is ~10,000 characters)
EXTRACTIVE_LABEL = "*extractive: the model's essay did not hold to the transcript"
GROUNDING_LABEL = "*grounding:"
_NOTES = (EXTRACTIVE_LABEL[:12], GROUNDING_LABEL)
_OPEN = {'"': '"', "“": "”", "«": "»", "„": "“"}
_ENDS = ".!?…"

Kind = Literal["title", "heading", "para", "quote", "item", "rule"]


@dataclass
class Block:
    kind: Kind
    prefix: str          # "## ", "> ", "- ", "1. ", ""
    text: str


def split_sentences(paragraph: str) -> list[str]:
    """Sentences, never cut inside a quote ("I said: "Stop. Now." and left." is one sentence)."""
    out: list[str] = []
    start, closer = 0, ""
    text = " ".join(paragraph.split())
    for i, c in enumerate(text):
        nxt = text[i + 1] if i + 1 < len(text) else " "
        if closer:
            if c == closer or c in "”»":
                closer = ""
                if i and text[i - 1] in _ENDS and nxt == " ":
                    out.append(text[start:i + 1].strip())
                    start = i + 1
            continue
        if c in _OPEN:
            closer = _OPEN[c]
        elif c in _ENDS and nxt == " ":
            out.append(text[start:i + 1].strip())
            start = i + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return [s for s in out if s]


def parse(text: str) -> list[Block]:
    """Markdown blocks: the first "# " line is the title; headings, block quotes, list items, rules, paragraphs."""
    blocks: list[Block] = []
    para: list[str] = []
    quote: list[str] = []

    def flush() -> None:
        if para:
            blocks.append(Block("para", "", " ".join(para)))
            para.clear()
        if quote:
            blocks.append(Block("quote", "> ", " ".join(quote)))
            quote.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(_NOTES):
            flush()
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", line)
        item = re.match(r"^([-*+]|\d+[.)])\s+(.*)$", line)
        if heading:
            flush()
            first = heading.group(1) == "#" and not any(b.kind == "title" for b in blocks)
            blocks.append(Block("title" if first else "heading", heading.group(1) + " ", heading.group(2).strip()))
        elif line.startswith(">"):
            if para:
                flush()
            quote.append(line.lstrip("> ").strip())
        elif re.match(r"^(?:-{3,}|\*{3,}|_{3,})$", line):
            flush()
            blocks.append(Block("rule", "", "---"))
        elif item:
            flush()
            blocks.append(Block("item", item.group(1) + " ", item.group(2).strip()))
        else:
            if quote:
                flush()
            para.append(line)
    flush()
    return blocks


def essay_sentences(text: str) -> list[str]:
    """The sentences of an essay as measured: headings, paragraphs, quotes and list items (not the title, nor the
    grounding note)."""
    return [s for b in parse(text) if b.kind not in ("title", "rule") for s in split_sentences(b.text)]


def extractive_essay(answers: Sequence[str], title: str, style: str = "standard") -> str:
    """The interviewee's own sentences in order, in paragraphs of 2 (punchy), 4 (standard) or 6 (reflective), and
    their longest sentence as a closing quote."""
    said = [s for a in answers for s in said_sentences(a)]
    if not said:
        return f"# {title}\n\nThere was nothing said to write about yet."
    per_paragraph = {"punchy": 2, "standard": 4, "reflective": 6}.get(style, 4)
    body = "\n\n".join(" ".join(said[i:i + per_paragraph]) for i in range(0, len(said), per_paragraph))
    best = max(said, key=len)
    return f"# {title}\n\n{body}\n\n> \"{best}\"\n"


@dataclass
class Repair:
    text: str
    title: str
    written: int = 0                                   # the model's sentences (title aside)
    kept: int = 0                                      # of those, kept (0 when extractive)
    dropped: dict[str, int] = field(default_factory=dict)   # reason → sentences dropped
    quotes_verified: int = 0
    quotes_dropped: list[str] = field(default_factory=list)
    extractive: bool = False
    note: str = ""


def _counts(dropped: dict[str, int]) -> str:
    return ", ".join(f"{n} {r.replace('_', ' ')}" for r, n in dropped.items() if n)


def repair_essay(text: str, who: Speaker, title_fallback: str, style: str = "standard") -> Repair:
    """The essay with every sentence that does not hold to the transcript dropped, or the labelled extractive
    essay when too little survives (see the module's docstring)."""
    text = text[:MAX_ESSAY_CHARS]
    dropped: dict[str, int] = {r: 0 for r in REASONS}
    quotes_dropped: list[str] = []
    quotes_ok = 0
    title = title_fallback
    out: list[Block] = []
    written = kept = 0
    kept_sentences: list[str] = []
    for block in parse(text):
        if block.kind == "title":
            text_title = block.text.strip(" *_")
            if text_title == title_fallback or title_reject(text_title, who) is None:
                title = text_title or title_fallback
            continue
        if block.kind == "rule":
            out.append(block)
            continue
        parts = split_sentences(block.text)
        written += len(parts)
        if block.kind == "quote" and not said_verbatim(block.text, who):    # a block quote is a quote
            dropped["invented_quote"] += len(parts)
            quotes_dropped.append(block.text[:300])
            continue
        keep: list[str] = []
        for s in parts:
            reason: Reason | None = reject(s, who, heading=block.kind == "heading")
            if reason == "invented_quote":
                quotes_dropped.extend(q[:300] for q in quote_failures(s, who))
            if reason is None:
                keep.append(s)
                quotes_ok += 1 if block.kind == "quote" else len(quotes_in(s))
            else:
                dropped[reason] += 1
        if keep:
            kept += len(keep)
            kept_sentences.extend(keep)
            out.append(Block(block.kind, block.prefix, " ".join(keep)))
    dropped = {r: n for r, n in dropped.items() if n}
    too_little = kept == 0 or kept < MIN_KEPT_SHARE * written or not first_person(kept_sentences, who)
    if too_little:                 # the model's title is not trusted either: the analysis's title or the topic
        title = title_fallback
        body = extractive_essay(who.answers, title, style)
        head, _, rest = body.partition("\n\n")
        detail = f"kept {kept} of {written} sentences" + (f": dropped {_counts(dropped)}" if dropped else "")
        note = f"{EXTRACTIVE_LABEL} ({detail})*"
        quoted = int(rest.rstrip().endswith('"'))          # its closing quote: the interviewee's own sentence
        return Repair(f"{head}\n\n{note}\n\n{rest}", title, written, 0, dropped, quoted, quotes_dropped[:50], True,
                      note)
    blocks = [b for i, b in enumerate(out) if b.kind != "heading" or
              any(n.kind in ("para", "quote", "item") for n in out[i + 1:i + 2])]
    while blocks and blocks[-1].kind in ("rule", "heading"):
        blocks.pop()
    body = _render(blocks)
    note = ""
    if dropped:
        note = (f"{GROUNDING_LABEL} dropped {written - kept} of {written} sentences that did not hold to the "
                f"transcript ({_counts(dropped)})*")
    essay = f"# {title}\n\n{body}" + (f"\n\n{note}" if note else "") + "\n"
    return Repair(essay, title, written, kept, dropped, quotes_ok, quotes_dropped[:50], False, note)


def _render(blocks: Sequence[Block]) -> str:
    chunks: list[str] = []
    for i, b in enumerate(blocks):
        line = f"{b.prefix}{b.text}"
        if b.kind == "item" and i and blocks[i - 1].kind == "item":
            chunks[-1] += "\n" + line
        else:
            chunks.append(line)
    return "\n\n".join(chunks)
