"""000 NotesState merge: append, never overwrite; Jaccard dedup (key ideas 0.7, contradictions 0.6, quotable
lines 0.8); section coverage quality only rises. Plus the helpers the prompts and the UI use."""

from __future__ import annotations

from models.interview.notes import NotesState, SectionCoverage

from .similarity import jaccard_sets, words

KEY_IDEA_THRESHOLD = 0.7
CONTRADICTION_THRESHOLD = 0.6
QUOTE_THRESHOLD = 0.8
QUALITY_ORDER = {"none": 0, "shallow": 1, "adequate": 2, "deep": 3}


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _append_unique_exact(existing: list, new: list, key) -> list:
    seen = {_norm(key(x)) for x in existing}
    out = list(existing)
    for item in new:
        k = _norm(key(item))
        if k and k not in seen:
            out.append(item)
            seen.add(k)
    return out


def _append_unique_similar(existing: list, new: list, key, threshold: float) -> list:
    out = list(existing)
    if not new:
        return out
    kept = [words(key(x)) for x in out]      # each kept item's words, once
    for item in new:
        text = key(item)
        mine = words(text)
        if not text.strip() or any(jaccard_sets(mine, other) >= threshold for other in kept):
            continue
        out.append(item)
        kept.append(mine)
    return out


def merge_section_coverage(old: SectionCoverage, new: SectionCoverage) -> SectionCoverage:
    quality = new.coverage_quality if QUALITY_ORDER[new.coverage_quality] > QUALITY_ORDER[old.coverage_quality] \
        else old.coverage_quality
    points = list(old.key_points_covered)
    for p in new.key_points_covered:
        if _norm(p) not in {_norm(x) for x in points}:
            points.append(p)
    return SectionCoverage(id=old.id, section_title=old.section_title or new.section_title, coverage_quality=quality,
                           key_points_covered=points, missing_aspects=new.missing_aspects or old.missing_aspects,
                           suggested_followup=new.suggested_followup or old.suggested_followup)


def merge_notes(existing: NotesState, new: NotesState) -> NotesState:
    coverage = {c.id: c for c in existing.section_coverage}
    order = [c.id for c in existing.section_coverage]
    for c in new.section_coverage:
        if c.id in coverage:
            coverage[c.id] = merge_section_coverage(coverage[c.id], c)
        else:
            coverage[c.id] = c
            order.append(c.id)
    return NotesState(
        key_ideas=_append_unique_similar(existing.key_ideas, new.key_ideas,
                                         lambda k: f"{k.title} {k.description}", KEY_IDEA_THRESHOLD),
        stories=_append_unique_exact(existing.stories, new.stories, lambda s: s.title),
        claims=_append_unique_exact(existing.claims, new.claims, lambda c: c.text),
        gaps=_append_unique_exact(existing.gaps, new.gaps, lambda g: g.description),
        contradictions=_append_unique_similar(existing.contradictions, new.contradictions,
                                              lambda c: c.description, CONTRADICTION_THRESHOLD),
        section_coverage=[coverage[i] for i in order],
        quotable_lines=_append_unique_similar(existing.quotable_lines, new.quotable_lines, lambda q: q.text,
                                              QUOTE_THRESHOLD),
        possible_titles=_append_unique_exact(existing.possible_titles, new.possible_titles, lambda t: t),
    )


# ---------------------------------------------------------------------------------------------- helpers
def is_empty(notes: NotesState) -> bool:
    return not any([notes.key_ideas, notes.stories, notes.claims, notes.gaps, notes.contradictions,
                    notes.section_coverage, notes.quotable_lines, notes.possible_titles])


def coverage_for(notes: NotesState, section_id: str) -> str:
    for c in notes.section_coverage:
        if c.id == section_id:
            return c.coverage_quality
    return "none"


def counts(notes: NotesState) -> dict[str, int]:
    return {"key_ideas": len(notes.key_ideas), "stories": len(notes.stories), "claims": len(notes.claims),
            "gaps": len(notes.gaps), "contradictions": len(notes.contradictions),
            "quotable_lines": len(notes.quotable_lines), "possible_titles": len(notes.possible_titles)}


def diff_summary(before: NotesState, after: NotesState) -> str:
    """'2 ideas (scaling challenges, team dynamics), 1 story (the outage)' — for the activity log."""
    parts = []
    for label, attr, key in (("idea", "key_ideas", "title"), ("story", "stories", "title"),
                             ("claim", "claims", "text"), ("gap", "gaps", "description"),
                             ("contradiction", "contradictions", "description"),
                             ("quote", "quotable_lines", "text")):
        new = getattr(after, attr)[len(getattr(before, attr)):]
        if new:
            names = ", ".join(getattr(x, key)[:40] for x in new[:3])
            plural = label if len(new) == 1 else ("stories" if label == "story" else label + "s")
            parts.append(f"{len(new)} {plural} ({names})")
    return ", ".join(parts) or "nothing new"


def summary_text(notes: NotesState, limit: int = 12) -> str:
    """Compact notes for prompts."""
    lines = []
    if notes.key_ideas:
        lines.append("Key ideas:\n" + "\n".join(f"- {k.title}: {k.description}" for k in notes.key_ideas[-limit:]))
    if notes.stories:
        lines.append("Stories:\n" + "\n".join(f"- {s.title}: {s.summary}" for s in notes.stories[-limit:]))
    if notes.claims:
        lines.append("Claims:\n" + "\n".join(f"- ({c.confidence}) {c.text}" for c in notes.claims[-limit:]))
    if notes.gaps:
        lines.append("Gaps:\n" + "\n".join(f"- {g.description} → {g.suggested_followup}" for g in notes.gaps[-limit:]))
    if notes.contradictions:
        lines.append("Contradictions:\n" + "\n".join(f"- {c.description}" for c in notes.contradictions[-limit:]))
    if notes.section_coverage:
        lines.append("Section coverage:\n" + "\n".join(f"- {c.id}: {c.coverage_quality}"
                                                       for c in notes.section_coverage))
    if notes.quotable_lines:
        lines.append("Quotable lines:\n" + "\n".join(f'- "{q.text}"' for q in notes.quotable_lines[-limit:]))
    return "\n\n".join(lines) or "(no notes yet)"
