"""Applying the moderator's evaluations: five 0-10 criteria, overall = their mean (2 decimals)."""

from __future__ import annotations

from dataclasses import dataclass, field

from models.discussion.workflow import Idea, IdeaEvaluation, Scores
from rules.discussion.ideas import find_idea

CRITERIA = ("feasibility", "innovation", "impact", "clarity", "completeness")


def overall_score(scores: Scores) -> float:
    return round(sum(getattr(scores, c) for c in CRITERIA) / len(CRITERIA), 2)


@dataclass
class ScoringResult:
    ideas: list[Idea]
    warnings: list[str] = field(default_factory=list)

    @property
    def scored(self) -> list[Idea]:
        return [i for i in self.ideas if i.overall is not None]


def apply_evaluations(ideas: list[Idea], evaluations: list[IdeaEvaluation]) -> ScoringResult:
    """Scores onto the pool. Unknown ids and repeated evaluations are ignored, missing ideas stay unscored;
    each case is reported as a warning."""
    result = ScoringResult(ideas=[i.model_copy(deep=True) for i in ideas])
    seen: set[str] = set()
    for ev in evaluations:
        idea = find_idea(result.ideas, ev.idea_id)
        if idea is None:
            result.warnings.append(f"the moderator scored an unknown idea {ev.idea_id!r}: ignored")
            continue
        if idea.id in seen:
            result.warnings.append(f"the moderator scored {idea.id} twice: the first evaluation counts")
            continue
        seen.add(idea.id)
        idea.scores = Scores(**{c: getattr(ev, c) for c in CRITERIA})
        idea.overall = overall_score(idea.scores)
        idea.pros = [p for p in ev.pros if p.strip()][:8]
        idea.cons = [c for c in ev.cons if c.strip()][:8]
        idea.feedback = ev.feedback.strip()[:1500]
    missing = [i.id for i in result.ideas if i.id not in seen]
    if missing:
        result.warnings.append(f"the moderator did not score {', '.join(missing)}: left unscored, not eligible")
    return result
