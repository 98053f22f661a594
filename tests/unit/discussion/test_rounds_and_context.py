from activities.discussion.context import ContextMessage, build_context, format_ideas
from models.discussion.workflow import Idea
from rules.discussion.levels import LEVELS
from rules.discussion.rounds import (
    deep_dive_due,
    ideation_instruction,
    message_id,
    step_decision,
    topup_needed,
)

TEAM = ["leader", "researcher", "ideation", "critic", "implementer", "moderator"]


def test_critic_and_implementer_need_ideas():
    assert not step_decision("critic", TEAM, False).run
    assert step_decision("critic", TEAM, False).reason == "no ideas to critique yet"
    assert step_decision("implementer", TEAM, True).run
    assert step_decision("researcher", TEAM, False).run
    assert step_decision("researcher", ["leader", "ideation"], True).reason == "no researcher in the team"


def test_topup_and_deep_dive_follow_the_level():
    assert topup_needed(2, LEVELS["standard"]) and not topup_needed(3, LEVELS["standard"])
    assert topup_needed(4, LEVELS["full"])
    assert not deep_dive_due(LEVELS["standard"], True, True)
    assert deep_dive_due(LEVELS["extended"], True, True)
    assert not deep_dive_due(LEVELS["full"], True, False) and not deep_dive_due(LEVELS["full"], False, True)


def test_seed_prompts_for_ideation():
    assert ideation_instruction(1, "generate", 3) == "Generate creative ideas based on the discussion so far"
    assert ideation_instruction(2, "generate", 3).startswith("Building on previous ideas and feedback")
    assert "at least 2 more" in ideation_instruction(1, "topup", 2)
    assert message_id(3, 1, "critique") == "m03-r1-critique"


def test_context_has_the_seeds_shape():
    ideas = [Idea(id="I1", title="Compost", description="hub", proposed_in_round=1, overall=7.5)]
    text = build_context("Food waste", [ContextMessage("leader", "team", "Kickoff!")], ideas)
    assert text == ("Topic: Food waste\n\nPrevious Discussion:\n[leader -> team]: Kickoff!\n\n"
                    "Current Ideas:\n1. [I1] Compost - hub\n   Score: 7.5/10")
    assert format_ideas([]) == "(no ideas yet)"


def test_long_context_keeps_kickoff_and_recent_messages():
    msgs = [ContextMessage("leader", "team", "KICKOFF")] + [ContextMessage("critic", "team", f"msg{n} " + "x" * 900)
                                                             for n in range(40)]
    text = build_context("t", msgs, [], max_chars=6000)
    assert len(text) <= 6000
    assert "KICKOFF" in text and "msg39" in text and "msg0 " not in text
    assert "earlier message(s) omitted for length" in text


def test_one_huge_message_is_cut():
    text = build_context("t", [ContextMessage("researcher", "team", "y" * 20_000)], [])
    assert "characters cut]" in text and len(text) < 7000
