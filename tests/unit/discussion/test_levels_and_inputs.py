import pytest

from models.discussion.workflow import DiscussionInput
from rules.discussion.inputs import (
    MAX_TOPIC_CHARS,
    normalized_team,
    topic_keyword,
    validate_input,
)
from rules.discussion.levels import LEVELS, rules_for


def test_level_table_is_the_seeds():
    table = {name: (r.max_rounds, r.min_ideas, r.deep_dive, r.min_score_threshold) for name, r in LEVELS.items()}
    assert table == {"standard": (1, 3, False, 6.0), "extended": (2, 4, True, 7.0), "full": (3, 5, True, 7.5)}


def test_unknown_level_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown level 'huge': use standard, extended, full"):
        rules_for("huge")


def test_rules_for_returns_a_copy():
    rules_for("standard").max_rounds = 9
    assert LEVELS["standard"].max_rounds == 1


def test_valid_input_has_no_errors():
    assert validate_input(DiscussionInput(topic="x", level="full", models={"critic": "openai/gpt-4o"})) == []


def test_every_problem_is_named():
    errors = validate_input(DiscussionInput(topic="  ", level="epic", team=["critic", "wizard"],
                                            models={"critic": " ", "bard": "x", "moderator": "m"}))
    text = "\n".join(errors)
    assert "the topic is empty" in text
    assert "unknown level 'epic': use standard, extended, full" in text
    assert "unknown role(s) in the team: wizard" in text
    assert "the team needs a leader" in text and "the team needs a ideation" in text
    assert "empty model id for role 'critic'" in text
    assert "model given for unknown role 'bard'" in text
    assert "model given for role 'moderator', which is not in the team" in text


def test_oversized_topic_and_odd_model_ids_are_rejected():
    errors = validate_input(DiscussionInput(topic="y" * (MAX_TOPIC_CHARS + 1), models={"leader": "gpt 4o"}))
    assert any(f"limit is {MAX_TOPIC_CHARS}" in e for e in errors)
    assert any("not a litellm model id" in e for e in errors)


def test_team_is_put_in_speaking_order_without_duplicates():
    assert normalized_team(["moderator", "ideation", "leader", "ideation"]) == ["leader", "ideation", "moderator"]


def test_topic_keyword_is_one_short_line():
    assert topic_keyword("a\n  b\tc") == "a b c"
    long = topic_keyword("word " * 100)
    assert len(long) == 100 and long.endswith("…")


@pytest.mark.parametrize("model", ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "gpt 4o",
                                   "openai/gpt-4o;rm", "'quoted'"])
def test_model_ids_get_one_check_whatever_their_markup(model):
    """Issue 39: `<img …>` was refused for its space while `<script>…` was accepted."""
    errors = validate_input(DiscussionInput(topic="x", models={"leader": model}))
    assert len(errors) == 1 and "is not a litellm model id" in errors[0], errors
    old = validate_input(DiscussionInput(topic="x", models={"leader": model}), strict=False)
    assert old == ([] if " " not in model else old) and len(old) <= 1  # runs started before: whitespace only


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "ollama/llama3.1:8b-instruct-q4_K_M",
                                   "@cf/meta/llama-3-8b-instruct", "bedrock/anthropic.claude-v2",
                                   "together_ai/meta-llama/Llama-3-70b-chat-hf", "openrouter/x/y:free"])
def test_real_model_ids_pass(model):
    assert validate_input(DiscussionInput(topic="x", models={"leader": model})) == []


def test_a_role_named_twice_in_the_team_is_refused_as_a_model_given_twice_is():
    """Issue 39: duplicate --team entries were merged silently while a role given two models is refused."""
    errors = validate_input(DiscussionInput(topic="x", team=["leader", "ideation", "critic", "critic"]))
    assert errors == ["the team names 'critic' more than once: give each role once"]
    assert validate_input(DiscussionInput(topic="x", team=["leader", "ideation", "critic", "critic"]),
                          strict=False) == []


def test_the_writing_cli_uses_the_same_model_id_check():
    from client.writing.cli import parse_models

    with pytest.raises(ValueError, match="is not a litellm model id"):
        parse_models("openai/gpt-4o-mini,<script>alert(1)</script>")
    assert parse_models("openai/gpt-4o-mini,ollama/llama3.1:8b") == ["openai/gpt-4o-mini", "ollama/llama3.1:8b"]
