"""Global context updates (seed §7.7, §11.10): conservative, by key, within a token budget by consolidation."""

from __future__ import annotations

from datetime import date

from activities.query.context import apply_updates, estimate_tokens, parse_context
from models.query.agents import ContextUpdate

DAY = date(2026, 1, 16)


def _u(category: str, key: str, value: str, confidence: str) -> ContextUpdate:
    return ContextUpdate.model_validate(dict(category=category, key=key, value=value, confidence=confidence,
                                             source="test"))


def test_updates_are_grouped_by_category_with_confidence_and_versioned():
    out = apply_updates("", [_u("preference", "unit", "metric", "certain"),
                             _u("pattern", "training_days", "Mon, Wed, Fri", "likely")], DAY)
    assert out.version == 1 and out.applied == ["preference/unit", "pattern/training_days"]
    assert "## Preferences\n- unit: metric (certain)" in out.text
    assert "## Patterns\n- training_days: Mon, Wed, Fri (likely)" in out.text
    assert "last_updated: 2026-01-16" in out.text
    again = apply_updates(out.text, [_u("insight", "x", "y", "tentative")], DAY)
    assert again.version == 2


def test_a_weaker_update_never_overwrites_a_stronger_fact():
    base = apply_updates("", [_u("fact", "bench_pr", "205 lbs", "certain")], DAY).text
    out = apply_updates(base, [_u("fact", "bench_pr", "225 lbs", "tentative"),
                               _u("fact", "bench_pr", "205 lbs", "certain")], DAY)
    assert out.applied == [] and len(out.skipped) == 2
    assert out.text == base  # unchanged, not even re-versioned
    stronger = apply_updates(base, [_u("fact", "bench_pr", "215 lbs", "certain")], DAY)
    assert "- bench_pr: 215 lbs (certain)" in stronger.text and "205" not in stronger.text


def test_over_budget_prunes_the_least_certain_first_and_keeps_certain_facts():
    ups = [_u("fact", "squat_pr", "285 lbs", "certain"), _u("preference", "style", "concise", "certain")]
    ups += [_u("pattern", f"p{i}", "a likely habit " * 3, "likely") for i in range(10)]
    ups += [_u("insight", f"i{i}", "a tentative idea " * 3, "tentative") for i in range(20)]
    out = apply_updates("", ups, DAY, max_tokens=250)
    assert estimate_tokens(out.text) <= 250
    ctx = parse_context(out.text)
    assert [i.key for i in ctx.items["fact"]] == ["squat_pr"] and ctx.items["preference"]
    # Tentative insights went first (oldest first, into the archive); likely patterns were not touched.
    assert len(ctx.items["pattern"]) == 10 and 0 < len(ctx.items["insight"]) < 20
    assert [a.split(":")[0] for a in out.archived] == [f"- i{i}" for i in range(len(out.archived))]
    assert all("(tentative)" in a for a in out.archived)


def test_free_text_written_by_the_user_survives_round_trips():
    text = "# Global Context\n\n## Notes\nUser started 5/3/1 in November.\n"
    out = apply_updates(text, [_u("fact", "program", "5/3/1", "certain")], DAY)
    assert "User started 5/3/1 in November." in out.text
    assert parse_context(out.text).items["fact"][0].value == "5/3/1"
