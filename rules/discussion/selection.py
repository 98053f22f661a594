"""Final selection (seed 002, Phase 3): the highest-scored idea wins, whatever the leader prefers.

Only scored ideas at or above the level's MinScoreThreshold are considered. Ties on the overall score are
broken deterministically: higher feasibility, then higher impact, then the earlier round, then the lower id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from models.discussion.workflow import Idea, SelectionDecision
from rules.discussion.ideas import find_idea

TIE_BREAK_ORDER = ("feasibility", "impact", "round proposed (earlier wins)", "id (lower wins)")


def _id_number(idea: Idea) -> int:
    match = re.fullmatch(r"I(\d+)", idea.id)
    return int(match.group(1)) if match else 10**6


def rank_key(idea: Idea) -> tuple[float, float, float, int, int]:
    assert idea.overall is not None and idea.scores is not None
    return (-idea.overall, -idea.scores.feasibility, -idea.scores.impact, idea.proposed_in_round,
            _id_number(idea))


def rank(ideas: list[Idea]) -> list[Idea]:
    """Scored ideas, best first."""
    return sorted((i for i in ideas if i.overall is not None and i.scores is not None), key=rank_key)


def _tie_break(winner: Idea, tied: list[Idea]) -> str | None:
    """Which criterion separated the winner from the next idea with the same overall score."""
    if not tied:
        return None
    a, b = rank_key(winner), rank_key(tied[0])
    label = next(lbl for idx, lbl in enumerate(TIE_BREAK_ORDER, start=1) if a[idx] != b[idx])
    return f"tied at {winner.overall} with {', '.join(i.id for i in tied)}; broken by {label}"


@dataclass
class Outcome:
    kind: str  # selected | no_idea_met_threshold | no_ideas | unscored
    detail: str
    decision: SelectionDecision | None
    winner: Idea | None


def select_idea(ideas: list[Idea], threshold: float, *, leader_preference: str | None = None,
                leader_comment: str = "", rounds: int = 0, scoring_problem: str | None = None,
                leader_decides: bool = False) -> Outcome:
    """Decide the discussion's outcome from the scored pool. With `leader_decides` (no moderator in the team:
    seed 002 goes on to selection) an unscored pool is decided by the Team Leader's choice."""
    if not ideas:
        return Outcome("no_ideas", f"ideation produced no usable ideas in {rounds} round(s): nothing to score or "
                       "select (see the events for failed or skipped agents)", None, None)
    ranked = rank(ideas)
    preferred = find_idea(ideas, leader_preference)
    pref_id = preferred.id if preferred else None
    excerpt = re.sub(r"\s+", " ", leader_comment).strip()[:500]
    if not ranked and leader_decides and preferred is not None:
        reason = ("no moderator in the team, so no scores: the Team Leader's choice decides (seed 002: without a "
                  "moderator the discussion goes on to selection)")
        decision = SelectionDecision(idea_id=preferred.id, threshold=threshold, considered=[i.id for i in ideas],
                                     leader_preferred_idea_id=pref_id, leader_agrees=True,
                                     leader_comment_excerpt=excerpt, reason=reason)
        return Outcome("selected", f"selected {preferred.id} {preferred.title!r}: {reason}", decision, preferred)
    if not ranked:
        why = scoring_problem or "the moderator gave no usable scores"
        return Outcome("unscored", f"{len(ideas)} idea(s) but none scored ({why}): the score decides, so no idea "
                       "was selected", SelectionDecision(idea_id=None, threshold=threshold,
                                                          leader_preferred_idea_id=pref_id,
                                                          leader_comment_excerpt=excerpt,
                                                          reason="no scored ideas"), None)
    considered = [i for i in ranked if (i.overall or 0.0) >= threshold]
    if not considered:
        best = ranked[0]
        detail = (f"no idea reached the level's minimum score {threshold}: the best was {best.id} "
                  f"{best.title!r} at {best.overall}")
        return Outcome("no_idea_met_threshold", detail,
                       SelectionDecision(idea_id=None, threshold=threshold, leader_preferred_idea_id=pref_id,
                                         leader_comment_excerpt=excerpt, reason=detail), None)
    winner = considered[0]
    tied = [i for i in considered[1:] if i.overall == winner.overall]
    tie = _tie_break(winner, tied)
    agrees = None if pref_id is None else pref_id == winner.id
    reason = f"highest overall score {winner.overall} (threshold {threshold})"
    if tie:
        reason += f"; {tie}"
    if agrees is False:
        reason += f"; the leader preferred {pref_id}, but the score decides"
    decision = SelectionDecision(idea_id=winner.id, overall=winner.overall, threshold=threshold,
                                 considered=[i.id for i in considered], tie_break=tie,
                                 leader_preferred_idea_id=pref_id, leader_agrees=agrees,
                                 leader_comment_excerpt=excerpt, reason=reason)
    return Outcome("selected", f"selected {winner.id} {winner.title!r}: {reason}", decision, winner)
