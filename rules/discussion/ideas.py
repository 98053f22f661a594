"""The idea pool: cleaning what ideation returns, numbering, refining and de-duplicating ideas.

Rules:
- at most MAX_IDEAS_PER_ANSWER ideas are taken from one answer (the seed asks for 3-5); the rest are dropped;
- an idea without a title or a description is dropped;
- `refines: "I2"` (an existing id) replaces I2's description/rationale (its id, title and scores stay);
- an idea whose title matches an existing one (same words, or Jaccard >= DUPLICATE_JACCARD on title words)
  is a duplicate and dropped, as is one repeating an idea of the same answer;
- ids are I1, I2, ... in order of acceptance, never reused; the pool holds at most MAX_POOL ideas.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from models.discussion.workflow import Idea, IdeaDraft
from rules.discussion.levels import MAX_IDEAS_PER_ANSWER

MAX_POOL = 20
DUPLICATE_JACCARD = 0.8
TITLE_MAX = 120
DESCRIPTION_MAX = 1500
RATIONALE_MAX = 600
_STOPWORDS = {"a", "an", "the", "of", "for", "to", "and", "or", "in", "on", "with", "by", "our", "your", "via"}


def _clean(text: str | None, limit: int) -> str:
    text = re.sub(r"\s+", " ", text or "").strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def normalize_title(title: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", title.lower()).split())


def title_words(title: str) -> set[str]:
    return {w for w in normalize_title(title).split() if w not in _STOPWORDS}


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def is_duplicate(title_a: str, title_b: str) -> bool:
    if normalize_title(title_a) == normalize_title(title_b):
        return True
    wa, wb = title_words(title_a), title_words(title_b)
    return bool(wa) and bool(wb) and jaccard(wa, wb) >= DUPLICATE_JACCARD


def _number(idea_id: str) -> int:
    match = re.fullmatch(r"[Ii](\d+)", idea_id.strip())
    return int(match.group(1)) if match else 0


def find_idea(pool: list[Idea], ref: str | None) -> Idea | None:
    """An idea by id ('I2', 'i2', '2', '#2') or by exact (normalized) title."""
    if not ref or not ref.strip():
        return None
    key = ref.strip().lstrip("#")
    if key.isdigit():
        key = f"I{key}"
    for idea in pool:
        if idea.id.lower() == key.lower():
            return idea
    norm = normalize_title(ref)
    for idea in pool:
        if norm and normalize_title(idea.title) == norm:
            return idea
    return None


@dataclass
class MergeResult:
    pool: list[Idea]
    added: list[str] = field(default_factory=list)
    refined: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # one sentence per dropped draft


def merge_ideas(pool: list[Idea], drafts: list[IdeaDraft], round_no: int) -> MergeResult:
    """Add an ideation answer to the pool (returns a new pool; the input is not changed)."""
    result = MergeResult(pool=[idea.model_copy(deep=True) for idea in pool])
    next_number = max((_number(i.id) for i in pool), default=0) + 1
    if len(drafts) > MAX_IDEAS_PER_ANSWER:
        extra = drafts[MAX_IDEAS_PER_ANSWER:]
        result.dropped.append(f"{len(extra)} idea(s) beyond the first {MAX_IDEAS_PER_ANSWER} of one answer "
                              f"ignored: {', '.join(repr(_clean(d.title, 40)) for d in extra)}")
        drafts = drafts[:MAX_IDEAS_PER_ANSWER]
    touched: set[str] = set()
    for draft in drafts:
        title = _clean(draft.title, TITLE_MAX)
        description = _clean(draft.description, DESCRIPTION_MAX)
        rationale = _clean(draft.rationale, RATIONALE_MAX)
        if not title or not description:
            result.dropped.append(f"idea {title or '(untitled)'!r} dropped: it has no "
                                  f"{'title' if not title else 'description'}")
            continue
        target = find_idea(result.pool, draft.refines) if draft.refines else None
        if target is not None:
            if target.id in touched:
                result.dropped.append(f"second refinement of {target.id} in one answer ignored")
                continue
            target.description = description
            if rationale:
                target.rationale = rationale
            if round_no not in target.refined_in_rounds and round_no != target.proposed_in_round:
                target.refined_in_rounds.append(round_no)
            touched.add(target.id)
            result.refined.append(target.id)
            continue
        duplicate = next((i for i in result.pool if is_duplicate(i.title, title)), None)
        if duplicate is not None:
            result.dropped.append(f"idea {title!r} dropped: duplicate of {duplicate.id} {duplicate.title!r}")
            continue
        if len(result.pool) >= MAX_POOL:
            result.dropped.append(f"idea {title!r} dropped: the pool already holds {MAX_POOL} ideas")
            continue
        idea = Idea(id=f"I{next_number}", title=title, description=description, rationale=rationale,
                    proposed_in_round=round_no)
        next_number += 1
        touched.add(idea.id)
        result.pool.append(idea)
        result.added.append(idea.id)
    return result
