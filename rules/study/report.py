"""Findings → markdown and a self-contained HTML report (rules/study/templates/report.html, Jinja2 with
autoescape; charts as inline SVG from rules/study/charts.py; no external CSS, scripts, fonts or images).

Only verified quotes are printed as quotes (in quote marks, verbatim, the translation beside them, linked to the
participant's transcript); a flagged quote is shown in the "Flagged quotes" section as plain text with why.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from models.interview.entries import TranscriptEntry
from models.study.workflow import DEPTHS, FindingQuote, Findings
from rules.study.words import plural


def _quote_md(q: FindingQuote) -> str:
    beside = ""
    if q.translation:
        beside = f" — *{q.translation}*" + (f" ({q.translation_note})" if q.translation_note else "")
    elif q.translation_note:
        beside = f" — ({q.translation_note})"
    lang = f" [{q.language}]" if q.language else ""
    where = f" ({q.interview_id}, entry {q.entry_id})" if q.interview_id else ""
    return f"> “{q.text}”{lang} — {q.participant_id}{where}{CORRECTED_MD if q.corrected else ''}{beside}"


CORRECTED_MD = " *(corrected by the participant)*"
CORRECTED = "corrected by the participant"


def _raised(count: int, participants: list[str]) -> str:
    if not count:
        return "suggested by the synthesis"
    more = f", +{len(participants) - 8}" if len(participants) > 8 else ""
    return f"raised by {count}: {', '.join(participants[:8])}{more}"


def to_markdown(f: Findings) -> str:
    out = [f"# Findings: {f.topic}", ""]
    if f.research_goal:
        out += [f"Research goal: {f.research_goal}", ""]
    out += [f"Status: {f.status} · {f.completed} completed, {f.abandoned} abandoned · languages: "
            + (", ".join(f"{k} ({v})" for k, v in f.languages.items()) or "none"), ""]
    for note in f.notes:
        out.append(f"_Note: {note}_")
    if f.notes:
        out.append("")
    if f.summary:
        out += ["## Summary", "", f.summary, ""]
    out += ["## Themes", "", "| Theme | Participants | Share |", "|---|---:|---:|"]
    for t in f.themes:
        share = f"{100 * t.count / f.completed:.0f}%" if f.completed else "-"
        out.append(f"| {t.title.replace('|', '/')} | {t.count} | {share} |")
    out.append("")
    for t in f.themes:
        quotes = [q for q in t.quotes if q.verified]
        if not quotes and not t.positions:
            continue
        out += [f"### {t.title} ({t.count})", ""]
        if t.description:
            out += [t.description, ""]
        for q in quotes:
            out += [_quote_md(q), ""]
    out += ["## Disagreements", ""]
    out += [f"- **{d.theme}**: " + "; ".join(f"{p.position} ({p.count}: {', '.join(p.participants[:8])})"
                                               for p in d.positions) for d in f.disagreements] or ["None found."]
    out += ["", "## Minority views", ""]
    for m in f.minority_views:
        out.append(f"- **{m.theme}**: {m.position} ({m.count}: {', '.join(m.participants[:8])})")
        if m.quote is not None and m.quote.verified:
            out.append("  " + _quote_md(m.quote))
    if not f.minority_views:
        out.append("None found.")
    out += ["", "## Coverage of the plan", "", "| Question | Asked | Answered | " + " | ".join(DEPTHS) + " |",
            "|---|---:|---:|" + "---:|" * len(DEPTHS)]
    for c in f.coverage:
        out.append(f"| {c.question_id}: {c.text.replace('|', '/')[:90]} | {c.asked}/{c.interviews} | {c.answered} | "
                   + " | ".join(str(c.depth.get(d, 0)) for d in DEPTHS) + " |")
    out += ["", "## What the plan missed", ""]
    out += [f"- {m.topic} ({_raised(m.count, m.participants)})" for m in f.plan_missed] or ["Nothing found."]
    out += ["", "## Flagged quotes (not verified verbatim: not printed as quotes)", ""]
    out += [f"- {q.participant_id}: {q.text} — {q.flag}" for q in f.flagged_quotes] or ["None."]
    mc = f.member_checking
    out += ["", "## Member checking and consent", "",
            f"{plural(mc.checked, 'participant')} read back and confirmed or corrected their transcript, "
            f"{mc.corrected} corrected an answer (kept beside the original), {mc.withdrew} withdrew (left out of "
            f"these findings)."]
    out += [f"- {plural(c.participants, 'participant')} agreed to the {c.language} consent text, version "
            f"sha256:{c.sha256}"
            for c in f.consent] or ["- No consent recorded."]
    return "\n".join(out) + "\n"


_CSS = """body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#1d1f23;
background:#fff}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #8c919b;padding:.3em .6em;
text-align:left}td.n{text-align:right}blockquote{margin:.6em 0;padding:.4em 1em;border-left:4px solid #1c6b35;
background:#f3f8f4}.tr{color:#3f444d;font-style:italic}.note{color:#7a4200}.flag{color:#8f1d17}
.heat td.h{text-align:center;min-width:3em;color:#1d1f23}.heat td.gap{color:#fff}.small{font-size:.9em;color:#3f444d}
a{color:#1546a0}section.tx{border-top:1px solid #8c919b;margin-top:1em}:target{background:#fff3b0}
nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:1em}figure.chart{margin:1em 0;max-width:48em}
figure.chart svg{width:100%;height:auto}"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _anchor(pid: str, entry_id: str | None = None) -> str:
    return f"t-{pid}" + (f"-{entry_id}" if entry_id else "")


def _quote_html(q: FindingQuote) -> Markup:
    link = f'<a href="#{_e(_anchor(q.participant_id, q.entry_id))}">{_e(q.participant_id)}</a>'
    beside = ""
    if q.translation:
        beside = f'<div class="tr">{_e(q.translation)}' + (f" ({_e(q.translation_note)})" if q.translation_note
                                                            else "") + "</div>"
    elif q.translation_note:
        beside = f'<div class="tr note">{_e(q.translation_note)}</div>'
    lang = f' lang="{_e(q.language)}"' if q.language else ""
    mark = f' <em class="corrected">({CORRECTED})</em>' if q.corrected else ""
    return Markup(f"<blockquote><span{lang}>“{_e(q.text)}”</span> — {link}{mark}{beside}</blockquote>")


def heat_cell(n: int, total: int, gap: bool = False) -> dict[str, str]:
    """One coverage cell. Coverage (asked, answered, a depth reached) is green, darker with a larger share; "none"
    (asked but not answered: a gap) is red, darker with a larger share — a gap never looks like coverage. Zero is
    plain white either way. Text stays dark on light backgrounds and white on dark ones (contrast ≥ 4.5:1)."""
    share = n / total if total else 0.0
    title = f"{n} of {total}"
    if n == 0:
        return {"bg": "#ffffff", "cls": "", "title": title, "text": str(n)}
    if gap:
        light = 92 - int(share * 60)
        return {"bg": f"hsl(4,70%,{light}%)", "cls": "gap" if light < 55 else "gap-light", "title": title + " (gap)",
                "text": str(n)}
    light = 92 - int(share * 32)
    return {"bg": f"hsl(140,45%,{light}%)", "cls": "", "title": title, "text": str(n)}


def coverage_rows(f: Findings) -> list[dict[str, Any]]:
    rows = []
    for c in f.coverage:
        total = max(c.interviews, 1)
        cells = [heat_cell(c.asked, total), heat_cell(c.answered, total)]
        cells[0]["text"] = f"{c.asked}/{c.interviews}"
        cells += [heat_cell(c.depth.get(d, 0), total, gap=d == "none") for d in DEPTHS]
        rows.append({"label": f"{c.question_id}: {c.text}", "cells": cells})
    return rows


@lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    env = jinja2.Environment(autoescape=True, loader=jinja2.FunctionLoader(
        lambda name: resources.files("rules.study").joinpath(f"templates/{name}").read_text(encoding="utf-8")))
    return env.get_template("report.html")


def to_html(f: Findings, transcripts: Mapping[str, list[TranscriptEntry]] | None = None,
            corrected: Mapping[str, set[str]] | None = None) -> str:
    """The self-contained report (Jinja2, autoescaped): landmarks, charts as inline SVG, the coverage heat map.
    `transcripts` as the participants corrected them; `corrected`: participant id -> the corrected answers' ids
    (marked in the transcripts)."""
    from rules.study.charts import languages_chart, themes_chart

    return _template().render(
        f=f, css=Markup(_CSS), depths=DEPTHS, coverage=coverage_rows(f), transcripts=sorted((transcripts or {}).items()),
        themes_svg=Markup(themes_chart(f)), languages_svg=Markup(languages_chart(f)), quote=_quote_html,
        corrected=corrected or {}, corrected_mark=CORRECTED, anchor=_anchor, raised=lambda m: _raised(m.count, m.participants), plural=plural,
        share=lambda n: f"{100 * n / f.completed:.0f}%" if f.completed else "-")
