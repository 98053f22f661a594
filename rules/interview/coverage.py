"""Question coverage (000) and dimension coverage flags (003 §6.2)."""

from __future__ import annotations

from models.interview.plan import PlanSnapshot, SectionSnapshot

from .similarity import jaccard, words

MATCH_THRESHOLD = 0.6
FLAG_ORDER = {"not_covered": 0, "partially_covered": 1, "covered": 2}


def all_questions(plan: PlanSnapshot):
    for section in plan.sections:
        for q in section.questions:
            yield section, q


def find_matching_question_id(question_text: str, plan: PlanSnapshot, asked: set[str]) -> str | None:
    """Best unasked plan question with Jaccard similarity > 0.6 (000 fallback matching)."""
    best: tuple[float, str] | None = None
    for _, q in all_questions(plan):
        if q.id in asked:
            continue
        score = jaccard(question_text, q.text)
        if score > MATCH_THRESHOLD and (best is None or score > best[0]):
            best = (score, q.id)
    return best[1] if best else None


def resolve_asked_question(source_question_id: str | None, text: str, plan: PlanSnapshot,
                           asked: set[str]) -> tuple[str | None, str]:
    """(question id to mark, method): the direct id when it is a plan id, else Jaccard matching."""
    ids = {q.id for _, q in all_questions(plan)}
    if source_question_id and source_question_id in ids:
        return source_question_id, "direct_id"
    match = find_matching_question_id(text, plan, asked)
    return (match, "jaccard") if match else (None, "none")


def section_line(section: SectionSnapshot, asked: set[str]) -> str:
    done = sum(1 for q in section.questions if q.id in asked)
    return f"{section.title} [{done}/{len(section.questions)} asked, {section.importance} importance]"


def plan_coverage_text(plan: PlanSnapshot, asked: set[str]) -> str:
    """The plan as the Orchestrator sees it: per-section counts, then ✓ ASKED / ○ NOT ASKED lines."""
    lines: list[str] = []
    for section in plan.sections:
        lines.append(f"### {section.id}: {section_line(section, asked)}")
        for q in section.questions:
            mark = "✓ ASKED" if q.id in asked else "○ NOT ASKED"
            lines.append(f"{mark} [id: {q.id}] [P{q.priority}] {q.text}")
    return "\n".join(lines)


def coverage_summary(plan: PlanSnapshot, asked: set[str]) -> list[str]:
    return [section_line(s, asked) for s in plan.sections]


# ---------------------------------------------------------------------------------- 003 dimension flags
def initial_flags(section: SectionSnapshot) -> dict[str, str]:
    return {d.name: "not_covered" for d in section.required_dimensions}


def keyword_assessment(section: SectionSnapshot, text: str) -> dict[str, str]:
    """Lightweight heuristic evaluator (003 §6.2 MVP): a dimension whose keywords appear is at least partially
    covered; when half or more of its keywords (or its name's words) appear, it is covered."""
    said = words(text)
    out: dict[str, str] = {}
    for dim in section.required_dimensions:
        keys = {w for k in (dim.keywords or [dim.name]) for w in words(k)}
        if not keys:
            continue
        hits = len(keys & said)
        if hits and hits * 2 >= len(keys):
            out[dim.name] = "covered"
        elif hits:
            out[dim.name] = "partially_covered"
    return out


def merge_flags(flags: dict[str, str], *assessments: dict[str, str]) -> dict[str, str]:
    """Coverage only ever goes up (not_covered → partially_covered → covered); unknown dimensions ignored."""
    merged = dict(flags)
    for assessment in assessments:
        for dim, status in assessment.items():
            if dim in merged and status in FLAG_ORDER and FLAG_ORDER[status] > FLAG_ORDER[merged[dim]]:
                merged[dim] = status
    return merged


def coverage_satisfied(flags: dict[str, str]) -> bool:
    return bool(flags) and all(v == "covered" for v in flags.values())
