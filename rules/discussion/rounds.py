"""Round control (seed 002, Phase 2): who speaks in a round, and when an extra turn is due.

Order in a round: researcher → ideation (→ a top-up ideation turn when the pool is short of MinIdeas) →
critic → implementer (→ a deep-dive ideation turn answering the critique, levels with DeepDive) → leader synthesis.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.discussion.workflow import LevelRules


@dataclass(frozen=True)
class StepDecision:
    run: bool
    reason: str = ""


def step_decision(role: str, team: list[str], ideas_exist: bool) -> StepDecision:
    """Whether an exploration role speaks now; when not, why (recorded as an event)."""
    if role not in team:
        return StepDecision(False, f"no {role} in the team")
    if role in ("critic", "implementer") and not ideas_exist:
        what = "critique" if role == "critic" else "plan"
        return StepDecision(False, f"no ideas to {what} yet")
    return StepDecision(True)


def topup_needed(pool_size: int, rules: LevelRules) -> bool:
    """One extra ideation turn in a round when the pool holds fewer distinct ideas than the level's MinIdeas."""
    return pool_size < rules.min_ideas


def deep_dive_due(rules: LevelRules, ideas_exist: bool, feedback_given: bool) -> bool:
    """DeepDive levels give ideation a turn to answer the critic/implementer before the leader synthesizes."""
    return rules.deep_dive and ideas_exist and feedback_given


def message_id(seq: int, round_no: int, role: str) -> str:
    """Stable, readable message ids that double as artifact file stems: m03-r1-critic."""
    return f"m{seq:02d}-r{round_no}-{role}"


def ideation_instruction(round_no: int, mode: str, needed: int) -> str:
    """The seed's ideation prompts (round 1 / round 2+), plus the top-up and deep-dive variants."""
    if mode == "topup":
        return (f"The team still needs at least {needed} more distinct idea(s). Generate new ideas that differ "
                "clearly from the current ones")
    if mode == "refine":
        return ("Answer the critique and the implementation notes: refine the ideas that deserve it (set "
                "`refines` to the idea's id) or propose better replacements")
    if round_no <= 1:
        return "Generate creative ideas based on the discussion so far"
    return "Building on previous ideas and feedback, generate refined or new creative ideas"
