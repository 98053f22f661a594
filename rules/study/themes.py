"""The researcher edits the final themes — rename, merge, split — and the findings are re-rendered from the edited
themes without running any model again (the reduce step's counting rules applied to the edited catalogue).

    rename   theme → a new title (disagreements and minority views follow)
    merge    themes → one title: participants, quotes (one per participant, at most QUOTES_PER_THEME) and positions
             pooled
    split    the given participants of a theme move to a new theme, with their quotes and positions

Every edit is appended to `Findings.notes`, so a reader sees the catalogue was edited by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, Field

from models.study.workflow import Disagreement, FindingQuote, Findings, MinorityView, Position, Theme
from rules.study.analysis import QUOTES_PER_THEME, split_views
from rules.study.ledger import StudyError


class ThemeEdit(BaseModel):
    action: Literal["rename", "merge", "split"]
    theme: str = Field(min_length=1, max_length=300, description="The theme edited (merge: the one kept)")
    title: str = Field(default="", max_length=300, description="rename / split: the new title")
    others: list[str] = Field(default_factory=list, max_length=100, description="merge: the themes merged in")
    participants: list[str] = Field(default_factory=list, max_length=10_000, description="split: who moves")


def _find(f: Findings, title: str) -> Theme:
    for t in f.themes:
        if t.title == title:
            return t
    raise StudyError(f"no theme {title!r} in these findings")


def _new_title(f: Findings, title: str) -> str:
    title = " ".join(title.split())
    if not title:
        raise StudyError("the new title is empty")
    if any(t.title == title for t in f.themes):
        raise StudyError(f"there is already a theme {title!r} (merge them instead)")
    return title


def _positions(positions: list[Position]) -> list[Position]:
    pooled: dict[str, list[str]] = {}
    for p in positions:
        ids = pooled.setdefault(p.position, [])
        ids += [x for x in p.participants if x not in ids]
    return sorted((Position(position=k, participants=v, count=len(v)) for k, v in pooled.items() if v),
                  key=lambda p: (-p.count, p.position))


def _recount(f: Findings, minority_quotes: Mapping[tuple[str, str], FindingQuote]) -> None:
    """Counts, order, disagreements and minority views from the edited themes (analysis.split_views)."""
    disagreements: list[Disagreement] = []
    minority: list[MinorityView] = []
    for t in f.themes:
        t.count = len(t.participants)
        t.positions = _positions(t.positions)
        disagreement, views = split_views(t, minority_quotes)
        disagreements += disagreement
        minority += views
    f.themes.sort(key=lambda t: (-t.count, t.title))
    f.disagreements, f.minority_views = disagreements, minority


def edit_themes(findings: Findings, edit: ThemeEdit) -> Findings:
    f = findings.model_copy(deep=True)
    quotes = {(m.theme, m.position): m.quote for m in f.minority_views if m.quote is not None}
    theme = _find(f, edit.theme)
    if edit.action == "rename":
        new = _new_title(f, edit.title)
        quotes = {(new if k[0] == theme.title else k[0], k[1]): q for k, q in quotes.items()}
        note = f"theme {theme.title!r} renamed {new!r} by the researcher"
        theme.title = new
    elif edit.action == "merge":
        others = [_find(f, t) for t in dict.fromkeys(edit.others) if t != theme.title]
        if not others:
            raise StudyError("name the themes to merge into this one")
        for o in others:
            theme.participants += [p for p in o.participants if p not in theme.participants]
            for q in o.quotes:
                if len(theme.quotes) < QUOTES_PER_THEME and all(x.participant_id != q.participant_id
                                                                 for x in theme.quotes):
                    theme.quotes.append(q)
            theme.positions += o.positions
            quotes.update({(theme.title, k[1]): q for k, q in quotes.items() if k[0] == o.title})
            f.themes.remove(o)
        note = f"themes {', '.join(repr(o.title) for o in others)} merged into {theme.title!r} by the researcher"
    else:
        new = _new_title(f, edit.title)
        moving = [p for p in dict.fromkeys(edit.participants) if p in theme.participants]
        if not moving:
            raise StudyError(f"none of those participants raised {theme.title!r}")
        if len(moving) == len(theme.participants):
            raise StudyError("a split leaves someone in the theme: rename it instead")
        part = Theme(title=new, description=theme.description,
                     participants=moving, quotes=[q for q in theme.quotes if q.participant_id in moving],
                     positions=[Position(position=p.position, participants=[x for x in p.participants if x in moving])
                                for p in theme.positions])
        theme.participants = [p for p in theme.participants if p not in moving]
        theme.quotes = [q for q in theme.quotes if q.participant_id not in moving]
        theme.positions = [Position(position=p.position, participants=[x for x in p.participants if x not in moving])
                           for p in theme.positions]
        f.themes.append(part)
        note = f"theme {theme.title!r} split: {len(moving)} participant(s) moved to {new!r} by the researcher"
    _recount(f, quotes)
    f.notes = [*f.notes, note]
    return f
