"""The report's charts as inline SVG (pygal): how many participants raised each theme, and the languages. No
script and no external reference is left in the SVG (the report is self-contained and its CSP allows no script);
each chart is an image with a text alternative, and the same numbers are in the tables beside it."""

from __future__ import annotations

import re

from models.study.workflow import Findings

_SCRIPT = re.compile(r"<script\b.*?</script>", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_XMLNS = re.compile(r'\s+xmlns(:xlink)?="[^"]*"')       # inline in HTML: the parser knows SVG's namespaces
FG, MUTED, BAR = "#1d1f23", "#4a505c", "#1c6b35"


def _style():  # noqa: ANN202
    from pygal.style import Style

    return Style(background="#ffffff", plot_background="#ffffff", foreground=FG, foreground_strong=FG,
                 foreground_subtle=MUTED, colors=(BAR, "#1f5fbf", "#8a4b00", "#6b2c91"), font_family="system-ui, "
                 "sans-serif", label_font_size=13, major_label_font_size=13, title_font_size=15,
                 value_font_size=13)


def _svg(chart, label: str) -> str:  # noqa: ANN001
    svg = chart.render(is_unicode=True)
    svg = _XMLNS.sub("", _COMMENT.sub("", _SCRIPT.sub("", svg)))
    label = label.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return svg.replace("<svg ", f'<svg role="img" aria-label="{label}" focusable="false" ', 1)


def themes_chart(f: Findings, limit: int = 12) -> str:
    import pygal

    themes = f.themes[:limit]
    if not themes:
        return ""
    chart = pygal.HorizontalBar(style=_style(), show_legend=False, js=[], disable_xml_declaration=True,
                                width=720, height=60 + 32 * len(themes), explicit_size=False, print_values=True,
                                truncate_label=40, show_y_guides=False)
    chart.x_labels = [t.title for t in reversed(themes)]
    chart.add("participants", [t.count for t in reversed(themes)])
    label = "Participants per theme: " + "; ".join(f"{t.title} {t.count}" for t in themes)
    return _svg(chart, label)


def languages_chart(f: Findings) -> str:
    import pygal

    if len(f.languages) < 2:
        return ""
    chart = pygal.Bar(style=_style(), show_legend=False, js=[], disable_xml_declaration=True, width=420,
                      height=220, print_values=True)
    chart.x_labels = list(f.languages)
    chart.add("interviews", list(f.languages.values()))
    return _svg(chart, "Interviews per language: " + "; ".join(f"{k} {v}" for k, v in f.languages.items()))
