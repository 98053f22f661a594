"""Theme editing (rules/study/themes.py): rename, merge and split re-count the findings without any model;
properties: every participant stays counted once per theme they are in, counts match, quotes follow their
participant, disagreements and minority views only name themes that exist."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.study.workflow import FindingQuote, Findings, Position, Theme
from rules.study.ledger import StudyError
from rules.study.themes import ThemeEdit, edit_themes

IDS = [f"P{i:03d}" for i in range(1, 13)]


def findings(groups: list[list[str]]) -> Findings:
    themes = []
    for n, ids in enumerate(groups):
        ids = list(dict.fromkeys(ids))
        half = len(ids) // 2
        themes.append(Theme(title=f"T{n}", participants=ids, count=len(ids), quotes=[
            FindingQuote(participant_id=p, text=f"{p} on T{n}", verified=True) for p in ids[:3]],
            positions=[Position(position="yes", participants=ids[:half], count=half),
                       Position(position="no", participants=ids[half:], count=len(ids) - half)]))
    return Findings(study_id="s", topic="t", completed=len(IDS), themes=themes)


def _consistent(f: Findings) -> None:
    titles = [t.title for t in f.themes]
    assert len(titles) == len(set(titles))
    for t in f.themes:
        assert t.count == len(t.participants) == len(set(t.participants))
        assert all(q.participant_id in t.participants for q in t.quotes)
        assert all(set(p.participants) <= set(t.participants) and p.count == len(p.participants) for p in t.positions)
    assert all(d.theme in titles for d in f.disagreements) and all(m.theme in titles for m in f.minority_views)


groups = st.lists(st.lists(st.sampled_from(IDS), min_size=2, max_size=12, unique=True), min_size=2, max_size=5)


@settings(max_examples=40, deadline=None)
@given(groups=groups, data=st.data())
def test_merge_and_split_keep_the_findings_consistent(groups, data):
    f = findings(groups)
    merged = edit_themes(f, ThemeEdit(action="merge", theme="T0", others=["T1"]))
    _consistent(merged)
    kept = next(t for t in merged.themes if t.title == "T0")
    assert set(kept.participants) == set(groups[0]) | set(groups[1]) and len(merged.themes) == len(f.themes) - 1
    ids = groups[0]
    moving = data.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=len(ids) - 1, unique=True))
    split = edit_themes(f, ThemeEdit(action="split", theme="T0", title="New", participants=moving))
    _consistent(split)
    new, rest = (next(t for t in split.themes if t.title == x) for x in ("New", "T0"))
    assert set(new.participants) == set(moving) and set(rest.participants) == set(ids) - set(moving)
    assert f.themes[0].participants == ids         # the input is never changed


def test_rename_follows_into_disagreements_and_bad_edits_say_why():
    f = findings([IDS[:6], IDS[6:]])
    f = edit_themes(f, ThemeEdit(action="merge", theme="T0", others=["T1"]))
    assert f.disagreements and f.disagreements[0].theme == "T0"
    renamed = edit_themes(f, ThemeEdit(action="rename", theme="T0", title="  Carrying   the pager "))
    assert renamed.themes[0].title == "Carrying the pager" and renamed.disagreements[0].theme == "Carrying the pager"
    assert "renamed" in renamed.notes[-1]
    with pytest.raises(StudyError, match="no theme"):
        edit_themes(f, ThemeEdit(action="rename", theme="nope", title="x"))
    with pytest.raises(StudyError, match="rename it instead"):
        edit_themes(f, ThemeEdit(action="split", theme="T0", title="x", participants=IDS))
    with pytest.raises(StudyError, match="already a theme"):
        edit_themes(findings([IDS[:3], IDS[3:6]]), ThemeEdit(action="rename", theme="T0", title="T1"))
