"""Findings → markdown and a self-contained HTML report (no external CSS, scripts, fonts or images).

Only verified quotes are printed as quotes (in quote marks, verbatim, the translation beside them, linked to the
participant's transcript); a flagged quote is shown in the "Flagged quotes" section as plain text with why.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from models.interview import TranscriptEntry
from models.study import DEPTHS, FindingQuote, Findings


def _quote_md(q: FindingQuote) -> str:
    beside = ""
    if q.translation:
        beside = f" — *{q.translation}*" + (f" ({q.translation_note})" if q.translation_note else "")
    elif q.translation_note:
        beside = f" — ({q.translation_note})"
    lang = f" [{q.language}]" if q.language else ""
    where = f" ({q.interview_id}, entry {q.entry_id})" if q.interview_id else ""
    return f"> “{q.text}”{lang} — {q.participant_id}{where}{beside}"


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
    return "\n".join(out) + "\n"


_CSS = """body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
td.n{text-align:right}blockquote{margin:.6em 0;padding:.4em 1em;border-left:4px solid #6a8;background:#f6faf7}
.tr{color:#555;font-style:italic}.note{color:#a60}.flag{color:#a22}.heat td.h{text-align:center;min-width:3em}
.bar{display:inline-block;height:.8em;background:#6a8}.small{font-size:.85em;color:#555}
section.tx{border-top:1px solid #ddd;margin-top:1em}:target{background:#ffc}"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _anchor(pid: str, entry_id: str | None = None) -> str:
    return f"t-{pid}" + (f"-{entry_id}" if entry_id else "")


def _quote_html(q: FindingQuote) -> str:
    link = f'<a href="#{_e(_anchor(q.participant_id, q.entry_id))}">{_e(q.participant_id)}</a>'
    beside = ""
    if q.translation:
        beside = f'<div class="tr">{_e(q.translation)}' + (f" ({_e(q.translation_note)})" if q.translation_note
                                                            else "") + "</div>"
    elif q.translation_note:
        beside = f'<div class="tr note">{_e(q.translation_note)}</div>'
    lang = f' lang="{_e(q.language)}"' if q.language else ""
    return f"<blockquote><span{lang}>“{_e(q.text)}”</span> — {link}{beside}</blockquote>"


def _heat(n: int, total: int) -> str:
    share = n / total if total else 0.0
    light = 96 - int(share * 56)
    return f'<td class="h" style="background:hsl(140,45%,{light}%)" title="{n} of {total}">{n}</td>'


def to_html(f: Findings, transcripts: Mapping[str, list[TranscriptEntry]] | None = None) -> str:
    transcripts = transcripts or {}
    h = [f"<!doctype html><html lang=\"{_e(f.analysis_language)}\"><head><meta charset=\"utf-8\">"
         f"<title>Findings: {_e(f.topic)}</title><style>{_CSS}</style></head><body>",
         f"<h1>Findings: {_e(f.topic)}</h1>"]
    if f.research_goal:
        h.append(f"<p>Research goal: {_e(f.research_goal)}</p>")
    h.append(f'<p><b>{f.completed}</b> completed · <b>{f.abandoned}</b> abandoned · languages: '
             + (", ".join(f"{_e(k)} ({v})" for k, v in f.languages.items()) or "none") + f" · {_e(f.status)}</p>")
    h += [f'<p class="note">{_e(n)}</p>' for n in f.notes]
    if f.summary:
        h.append(f"<h2>Summary</h2><p>{_e(f.summary)}</p>")
    h.append('<h2>Themes</h2><table id="themes"><tr><th>Theme</th><th>Participants</th><th>Share</th></tr>')
    for t in f.themes:
        share = t.count / f.completed if f.completed else 0.0
        h.append(f'<tr><td><a href="#theme-{f.themes.index(t)}">{_e(t.title)}</a></td><td class="n">{t.count}</td>'
                 f'<td><span class="bar" style="width:{share * 10:.1f}em"></span> {100 * share:.0f}%</td></tr>')
    h.append("</table>")
    for i, t in enumerate(f.themes):
        h.append(f'<h3 id="theme-{i}">{_e(t.title)} <span class="small">({t.count})</span></h3>')
        if t.description:
            h.append(f"<p>{_e(t.description)}</p>")
        h += [_quote_html(q) for q in t.quotes if q.verified]
        if t.positions:
            h.append("<ul>" + "".join(f"<li>{_e(p.position)} — {p.count}</li>" for p in t.positions) + "</ul>")
    h.append("<h2>Disagreements</h2>")
    h.append("<ul>" + "".join(f"<li><b>{_e(d.theme)}</b>: " + "; ".join(
        f"{_e(p.position)} ({p.count})" for p in d.positions) + "</li>" for d in f.disagreements) + "</ul>"
             if f.disagreements else "<p>None found.</p>")
    h.append("<h2>Minority views</h2>")
    if f.minority_views:
        for m in f.minority_views:
            h.append(f"<p><b>{_e(m.theme)}</b>: {_e(m.position)} ({m.count}: {_e(', '.join(m.participants[:8]))})</p>")
            if m.quote is not None and m.quote.verified:
                h.append(_quote_html(m.quote))
    else:
        h.append("<p>None found.</p>")
    h.append('<h2>Coverage of the plan</h2><table class="heat" id="coverage"><tr><th>Question</th><th>Asked</th>'
             "<th>Answered</th>" + "".join(f"<th>{d}</th>" for d in DEPTHS) + "</tr>")
    for c in f.coverage:
        total = max(c.interviews, 1)
        h.append(f"<tr><td>{_e(c.question_id)}: {_e(c.text)}</td>{_heat(c.asked, total)}{_heat(c.answered, total)}"
                 + "".join(_heat(c.depth.get(d, 0), total) for d in DEPTHS) + "</tr>")
    h.append("</table><h2>What the plan missed</h2>")
    h.append("<ul>" + "".join(f"<li>{_e(m.topic)} ({_e(_raised(m.count, m.participants))})</li>"
                              for m in f.plan_missed) + "</ul>"
             if f.plan_missed else "<p>Nothing found.</p>")
    h.append("<h2>Flagged quotes</h2><p class=\"small\">Not verified verbatim against the transcript: never "
             "printed as quotes.</p>")
    h.append("<ul>" + "".join(f'<li class="flag">{_e(q.participant_id)}: {_e(q.text)} — {_e(q.flag)}</li>'
                              for q in f.flagged_quotes) + "</ul>" if f.flagged_quotes else "<p>None.</p>")
    if transcripts:
        h.append("<h2>Transcripts of the quoted participants</h2>")
        for pid, entries in sorted(transcripts.items()):
            h.append(f'<section class="tx" id="{_e(_anchor(pid))}"><h3>{_e(pid)}</h3>')
            for e in entries:
                who = "Q" if e.speaker == "interviewer" else pid
                h.append(f'<p id="{_e(_anchor(pid, e.entry_id))}"><b>{_e(who)}</b>: {_e(e.text)}</p>')
            h.append("</section>")
    h.append("</body></html>")
    return "\n".join(h)
