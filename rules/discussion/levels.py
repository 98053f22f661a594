"""The seed's decision table, exactly as given (seed 002, "Decision Rules")."""

from __future__ import annotations

from models.discussion.workflow import LevelRules

LEVELS: dict[str, LevelRules] = {
    "standard": LevelRules(level="standard", max_rounds=1, min_ideas=3, deep_dive=False, min_score_threshold=6.0),
    "extended": LevelRules(level="extended", max_rounds=2, min_ideas=4, deep_dive=True, min_score_threshold=7.0),
    "full": LevelRules(level="full", max_rounds=3, min_ideas=5, deep_dive=True, min_score_threshold=7.5),
}

# The seed asks ideation for 3-5 ideas per answer.
MAX_IDEAS_PER_ANSWER = 5


def rules_for(level: str) -> LevelRules:
    try:
        return LEVELS[level].model_copy()
    except KeyError:
        raise ValueError(f"unknown level {level!r}: use {', '.join(LEVELS)}") from None
