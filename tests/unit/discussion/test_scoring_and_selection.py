from models.discussion.workflow import Idea, IdeaEvaluation
from rules.discussion.scoring import apply_evaluations, overall_score
from rules.discussion.selection import select_idea


def pool(n=3):
    return [Idea(id=f"I{k}", title=f"Idea {k}", description="d", proposed_in_round=1 + (k > 2))
            for k in range(1, n + 1)]


def ev(idea_id, f, i, im, c, co):
    return IdeaEvaluation(idea_id=idea_id, feasibility=f, innovation=i, impact=im, clarity=c, completeness=co)


def scored(*evs, ideas=None):
    return apply_evaluations(ideas or pool(), list(evs)).ideas


def test_overall_is_the_mean_of_five_criteria():
    ideas = scored(ev("I1", 10, 9, 8, 7, 6))
    assert ideas[0].overall == 8.0 and overall_score(ideas[0].scores) == 8.0
    assert scored(ev("I1", 7, 7, 7, 7, 8))[0].overall == 7.2


def test_unknown_duplicate_and_missing_evaluations_are_reported():
    r = apply_evaluations(pool(), [ev("I1", 5, 5, 5, 5, 5), ev("I1", 9, 9, 9, 9, 9), ev("I7", 1, 1, 1, 1, 1),
                                   ev("idea 2", 6, 6, 6, 6, 6)])
    assert r.ideas[0].overall == 5.0  # first evaluation counts
    assert r.ideas[1].overall == 6.0  # matched by title
    assert r.ideas[2].overall is None
    text = "\n".join(r.warnings)
    assert "scored I1 twice" in text and "unknown idea 'I7'" in text and "did not score I3" in text


def test_highest_score_wins_over_the_leaders_preference():
    ideas = scored(ev("I1", 9, 9, 9, 9, 9), ev("I2", 6, 6, 6, 6, 6), ev("I3", 7, 7, 7, 7, 7))
    out = select_idea(ideas, 6.0, leader_preference="I2", leader_comment="I love I2")
    assert out.kind == "selected" and out.winner.id == "I1"
    assert out.decision.leader_preferred_idea_id == "I2" and out.decision.leader_agrees is False
    assert "the leader preferred I2, but the score decides" in out.decision.reason
    assert out.decision.considered == ["I1", "I3", "I2"]


def test_threshold_excludes_low_scores():
    ideas = scored(ev("I1", 7, 7, 7, 7, 7), ev("I2", 6, 6, 6, 6, 6), ev("I3", 5, 5, 5, 5, 5))
    out = select_idea(ideas, 7.0)
    assert out.winner.id == "I1" and out.decision.considered == ["I1"]
    none = select_idea(ideas, 7.5)
    assert none.kind == "no_idea_met_threshold" and none.winner is None
    assert "the best was I1 'Idea 1' at 7.0" in none.detail and "7.5" in none.detail


def test_ties_break_on_feasibility_then_impact_then_round_then_id():
    # same overall 7.0; I2 has the higher feasibility
    out = select_idea(scored(ev("I1", 6, 8, 7, 7, 7), ev("I2", 8, 6, 7, 7, 7)), 6.0)
    assert out.winner.id == "I2" and "broken by feasibility" in out.decision.tie_break
    # same overall and feasibility; I1 has the higher impact
    out = select_idea(scored(ev("I1", 7, 6, 8, 7, 7), ev("I2", 7, 8, 6, 7, 7)), 6.0)
    assert out.winner.id == "I1" and "broken by impact" in out.decision.tie_break
    # identical scores: the earlier round (I1, round 1) beats I3 (round 2)
    out = select_idea(scored(ev("I3", 7, 7, 7, 7, 7), ev("I1", 7, 7, 7, 7, 7)), 6.0)
    assert out.winner.id == "I1" and "round proposed" in out.decision.tie_break
    # identical scores and round: the lower id
    out = select_idea(scored(ev("I2", 7, 7, 7, 7, 7), ev("I1", 7, 7, 7, 7, 7)), 6.0)
    assert out.winner.id == "I1" and "id (lower wins)" in out.decision.tie_break


def test_no_ideas_and_unscored_outcomes_explain_themselves():
    out = select_idea([], 6.0, rounds=2)
    assert out.kind == "no_ideas" and "no usable ideas in 2 round(s)" in out.detail
    out = select_idea(pool(), 6.0, scoring_problem="there is no moderator in the team")
    assert out.kind == "unscored" and "there is no moderator in the team" in out.detail and out.winner is None
