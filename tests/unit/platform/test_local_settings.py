"""The `local` profile's settings (activities/llm/local.py): how a structured call's decoding is constrained
(COLLOQUY_LOCAL_GRAMMAR) and how a chat format without a system role keeps the system prompt (Gemma)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from activities.llm import local

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


@pytest.mark.parametrize(("grammar", "expected"), [
    ("schema", {"type": "json_object", "schema": SCHEMA}),
    ("json", {"type": "json_object"}),
    ("off", None),
])
def test_each_grammar_setting_gives_its_response_format(grammar, expected):
    assert local.response_format(SCHEMA, grammar) == expected
    assert local.response_format(None, grammar) is None  # free text is never constrained


def test_grammar_setting_defaults_to_the_schema_and_names_the_choices(monkeypatch):
    monkeypatch.delenv("COLLOQUY_LOCAL_GRAMMAR", raising=False)
    assert local.grammar_setting() == "schema"
    monkeypatch.setenv("COLLOQUY_LOCAL_GRAMMAR", " OFF ")
    assert local.grammar_setting() == "off"
    monkeypatch.setenv("COLLOQUY_LOCAL_GRAMMAR", "regex")
    with pytest.raises(ValueError, match="schema, json, off"):
        local.grammar_setting()


_roles = st.sampled_from(["system", "user", "assistant"])
_messages = st.lists(st.fixed_dictionaries({"role": _roles, "content": st.text(max_size=30)}), max_size=6)


@given(_messages)
def test_folding_the_system_prompt_keeps_every_word_and_leaves_no_system_message(messages):
    folded = local.fold_system(messages)
    assert all(m["role"] != "system" for m in folded)
    text = "\n".join(m["content"] for m in folded)
    for m in messages:
        assert m["content"].strip() in text
    others = [m["role"] for m in messages if m["role"] != "system"]
    system = "".join(m["content"] for m in messages if m["role"] == "system").strip()
    added = ["user"] if system and "user" not in others else []
    assert [m["role"] for m in folded] == added + others


def test_the_system_prompt_goes_before_the_first_user_message():
    folded = local.fold_system([{"role": "system", "content": "Answer in JSON."},
                                {"role": "user", "content": "Plan the interview."}])
    assert folded == [{"role": "user", "content": "Answer in JSON.\n\nPlan the interview."}]
