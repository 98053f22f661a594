"""Circuit-breaker condition expressions (seed 004 §13): a small safe evaluator. Any string either parses or gives
a ConditionError with a message — never another exception (Hypothesis), and never Python's eval."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.writing.workflow import BreakerState, CircuitBreakerConfig
from rules.writing import breaker
from rules.writing.conditions import ConditionError, cycle_in, normalise_rule, parse
from rules.writing.config import ConfigError, parse_config

SEED_RULES = {"state_visit_limit": "state_visits[state] >= 3",
              "cycle_detection": "A→B→A→B pattern in last 4 transitions",
              "transition_limit": "transition_count >= 20", "timeout": "elapsed_s >= 1800",
              "cost_limit": "total_cost_usd >= 5.00"}
PIECES = ["state_visits", "[", "]", "state", "'draft'", "transition_count", "elapsed_s", "total_cost_usd",
          "total_tokens", ">=", ">", "<=", "<", "==", "!=", "+", "-", "(", ")", "and", "or", "not", "3", "5.00",
          "0.5", "→", "A", "B", "pattern", "in", "last", "4", "transitions", "__import__('os')", "x", "'", '"',
          "**", "1e9", ".", ","]


def _ctx(**kw):
    base = {"state": "draft", "state_visits": {"draft": 3}, "transition_count": 20, "elapsed_s": 10.0,
            "total_cost_usd": 1.0, "total_tokens": 0, "entered": []}
    return {**base, **kw}


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=120), st.lists(st.sampled_from(PIECES), max_size=14).map(" ".join)))
def test_any_condition_string_parses_or_gives_a_clear_error(text):
    try:
        cond = parse(text)
    except ConditionError as exc:
        assert str(exc) and "Traceback" not in str(exc)
        return
    assert isinstance(cond.evaluate(_ctx()), bool)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="()-notand ", max_size=300))
def test_deep_nesting_is_an_error_not_a_recursion_crash(text):
    try:
        parse(text)
    except ConditionError:
        pass


def test_the_seeds_five_conditions_parse_and_mean_what_they_say():
    for name, text in SEED_RULES.items():
        assert parse(text).canonical() is not None, name
    assert parse(SEED_RULES["state_visit_limit"]).evaluate(_ctx())
    assert not parse(SEED_RULES["state_visit_limit"]).evaluate(_ctx(state_visits={"draft": 2}))
    assert parse("total_cost_usd >= 5.00").evaluate(_ctx(total_cost_usd=5.0))
    assert parse(SEED_RULES["cycle_detection"]).evaluate(_ctx(entered=["a", "b", "a", "b"]))
    assert not parse(SEED_RULES["cycle_detection"]).evaluate(_ctx(entered=["a", "b", "c", "b"]))


def test_compound_conditions_and_clear_errors():
    cond = parse("(transition_count >= 3 and state == 'synthesize') or state_visits['draft'] > 4")
    assert cond.evaluate(_ctx(state="synthesize", transition_count=3))
    assert not cond.evaluate(_ctx(state="draft", transition_count=3))
    for text, words in [("__import__('os').system('x') >= 1", 'unexpected ".system'),
                        ("__import__ >= 1", "unknown name '__import__'"),
                        ("transition_count", "expected a comparison"), ("state >= 3", "cannot compare"),
                        ("A→B→A pattern", "A→B→A→B pattern in last N transitions"),
                        ("A→B→A→B pattern in last 2 transitions", "at least 4"), ("", "empty")]:
        with pytest.raises(ConditionError, match=None) as info:
            parse(text)
        assert words in str(info.value), (text, str(info.value))


def test_a_wider_cycle_window_finds_the_pattern_anywhere_in_it():
    assert cycle_in(["a", "b", "a", "b", "c", "d"], 6) and not cycle_in(["a", "b", "a", "b", "c", "d"], 4)


def test_seed_rules_normalise_to_built_in_limits_and_others_stay_conditions():
    assert normalise_rule({"name": "transition_limit", "condition": "transition_count >= 20"}) == \
        {"name": "transition_limit", "limit": 20}
    assert normalise_rule({"name": "cost_limit", "condition": "total_cost_usd >= 5.50"}) == \
        {"name": "cost_limit", "limit": 5.5}
    odd = {"name": "transition_limit", "condition": "transition_count > 20"}  # not the built-in form: as written
    assert normalise_rule(odd) == odd


def _cfg(rules):
    return {"states": {"start": {"type": "initial", "next": "done"}, "done": {"type": "terminal"}},
            "circuit_breaker": {"rules": rules}}


def test_bad_conditions_and_unknown_rules_are_config_errors():
    with pytest.raises(ConfigError) as info:
        parse_config(_cfg([{"name": "x", "condition": "transition_count >>= 3"}]))
    assert "circuit_breaker.rules.0 (x): condition 'transition_count >>= 3'" in str(info.value)
    with pytest.raises(ConfigError) as info:
        parse_config(_cfg([{"name": "my_rule", "limit": 3}]))
    assert "'my_rule' is not a built-in rule" in str(info.value)
    assert parse_config(_cfg([{"name": "my_rule", "condition": "total_tokens >= 10"}])).circuit_breaker.rules[0] \
        .condition == "total_tokens >= 10"


def test_a_condition_rule_fires_in_the_breaker_and_rearms_what_it_reads():
    cfg = CircuitBreakerConfig.model_validate({"rules": [{"name": "two_drafts",
                                                          "condition": "state_visits['draft'] >= 2"}]})
    bs = BreakerState()
    for a, b in [("start", "draft"), ("draft", "check"), ("check", "draft")]:
        breaker.record_transition(bs, a, b)
    brk = breaker.check_rules(bs, cfg, "draft", 0.0)
    assert brk is not None and brk.rule == "two_drafts" and "state_visits['draft']=2" in brk.message
    breaker.rearm_rule(bs, cfg, "two_drafts", "draft", 0.0)
    assert breaker.check_rules(bs, cfg, "draft", 0.0) is None and bs.consultations == 1


def test_feedback_history_keeps_every_item_oldest_first_within_the_bound():
    from rules.writing.transitions import feedback_history

    assert feedback_history(["a", "b"]) == "Human reviewer feedback: a\n\nHuman reviewer feedback: b"
    text = feedback_history([f"item {i} " + "x" * 50 for i in range(10)], max_chars=200)
    assert len(text) <= 260 and "item 9" in text and "item 0" not in text and "left out for length" in text
    assert text.index("item 8") < text.index("item 9")
    assert len(feedback_history(["y" * 10_000], max_chars=100)) == 100


# ------------------------------------------------------------------ the seed's shapes, mutated: never a crash
def _paths(d, p=()):
    if isinstance(d, dict):
        for k, v in d.items():
            yield p + (k,)
            yield from _paths(v, p + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield p + (i,)
            yield from _paths(v, p + (i,))


def _seed(name):
    import yaml

    from tests.workflows.writing.test_writing_seed_shapes import FIXTURES

    return yaml.safe_load((FIXTURES / f"seed_004_{name}.yaml").read_text())


SEEDS = {name: _seed(name) for name in ("s4_s13", "s14", "s14_approval")}
LEAVES = st.one_of(st.none(), st.integers(), st.text(max_size=8), st.booleans(),
                   st.lists(st.text(max_size=4), max_size=2), st.dictionaries(st.text(max_size=4), st.integers(),
                                                                              max_size=2))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(SEEDS)), st.data(), LEAVES)
def test_a_seed_config_with_any_one_value_changed_is_accepted_or_a_config_error(name, data, value):
    import copy

    from rules.writing.seed_config import conversion_notes

    cfg = copy.deepcopy(SEEDS[name])
    path = data.draw(st.sampled_from(list(_paths(cfg))))
    node = cfg
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    try:
        parse_config(cfg)
    except ConfigError as exc:
        assert exc.errors
    conversion_notes(cfg)
