"""`discussion_report`: the seed's visualization phase as a deterministic renderer.

One self-contained HTML file (inline CSS, no scripts, no external resources; every text escaped): the outcome,
the ideas with their five scores, the selection and why, the event log, usage, and the full discussion (messages
rendered from markdown, raw HTML in them escaped). It is
rendered from the workflow's data and the message artifacts, never written by a model, so it cannot invent
scores. A failure here never fails the discussion (the workflow records it as an event).
"""

from __future__ import annotations

import asyncio

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.artifacts import store
from activities.discussion.common import ROLE_TITLES
from models.common import OFFLINE_LABEL, ArtifactRef
from models.discussion.workflow import ReportInput
from rules.discussion.scoring import CRITERIA

MAX_REPORT_BYTES = 5 * 1024 * 1024

_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Discussion: {{ r.topic }}</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1000px;margin:2rem auto;padding:0 1rem;
color:#1f2328;line-height:1.5}
h1{font-size:1.6rem}h2{border-bottom:1px solid #d0d7de;padding-bottom:.3rem;margin-top:2rem}
.outcome{padding:1rem;border-radius:8px;background:#f6f8fa;border-left:6px solid {{ color }}}
table{border-collapse:collapse;width:100%;font-size:.92rem}th,td{border:1px solid #d0d7de;padding:.35rem .5rem;
text-align:left;vertical-align:top}th{background:#f6f8fa}tr.winner{background:#dafbe1}
.bar{display:inline-block;height:.6rem;background:#2da44e;border-radius:3px;margin-right:.3rem}
.msg{border:1px solid #d0d7de;border-radius:8px;margin:.8rem 0;padding:.6rem .9rem}
.msg header{font-size:.85rem;color:#57606a;margin-bottom:.4rem}.msg pre{white-space:pre-wrap;font-family:inherit;margin:0}
.muted{color:#57606a;font-size:.9rem}.offline{color:#9a6700}
</style></head><body>
<h1>Team discussion: {{ r.topic }}</h1>
<p class="muted">Discussion {{ r.discussion_id }} · level {{ r.rules.level }} ({{ r.rules.max_rounds }} round(s),
min {{ r.rules.min_ideas }} ideas, deep dive {{ 'on' if r.rules.deep_dive else 'off' }}, threshold
{{ r.rules.min_score_threshold }}) · team: {{ team }}</p>
<section class="outcome">{% if r.offline %}<p class="offline"><strong>{{ label }}</strong> The deterministic offline
test double wrote this discussion's ideas, scores and comments, not a model: they are not a model's verdict.</p>
{% endif %}<strong>Outcome: {{ r.outcome }}</strong>{% if r.offline %} {{ label }}{% endif %}<br>{{ r.outcome_detail }}
{% if winner %}<h3>Selected: {{ winner.id }} · {{ winner.title }} ({{ winner.overall }}/10){% if winner.offline %}
{{ label }}{% endif %}</h3>
<p>{{ winner.description }}</p>{% endif %}
{% if r.selection and r.selection.leader_comment_excerpt %}<p><em>Team Leader:</em>
{{ r.selection.leader_comment_excerpt }}</p>{% endif %}</section>
<h2>Ideas and scores{% if r.offline %} {{ label }}{% endif %}</h2>
{% if r.ideas %}<table><tr><th>id</th><th>idea</th>{% for c in criteria %}<th>{{ c }}</th>{% endfor %}
<th>overall</th><th>by</th></tr>
{% for i in r.ideas %}<tr class="{{ 'winner' if winner and i.id == winner.id else '' }}"><td>{{ i.id }}</td>
<td><strong>{{ i.title }}</strong><br>{{ i.description }}
{% if i.pros %}<br><span class="muted">Pros: {{ i.pros | join('; ') }}</span>{% endif %}
{% if i.cons %}<br><span class="muted">Cons: {{ i.cons | join('; ') }}</span>{% endif %}
<br><span class="muted">round {{ i.proposed_in_round }}{% if i.refined_in_rounds %}, refined in
{{ i.refined_in_rounds | join(', ') }}{% endif %}</span></td>
{% for c in criteria %}<td>{% if i.scores %}{{ i.scores[c] }}{% else %}-{% endif %}</td>{% endfor %}
<td>{% if i.overall is not none %}<span class="bar" style="width:{{ (i.overall * 6) | int }}px"></span>{{ i.overall }}
{% else %}unscored{% endif %}</td><td>{% if i.offline %}{{ label }}{% else %}model{% endif %}</td></tr>
{% endfor %}</table>
{% else %}<p>No ideas were generated.</p>{% endif %}
{% if r.selection %}<p class="muted">Selection rule: {{ r.selection.reason }}</p>{% endif %}
{% if r.events %}<h2>Events</h2><ul>{% for e in r.events %}<li>{{ e.phase }}{% if e.round %} (round {{ e.round
}}){% endif %}{% if e.role %} · {{ e.role }}{% endif %}: {{ e.message }}</li>{% endfor %}</ul>{% endif %}
<h2>Usage</h2><p>{{ r.usage.calls }} LLM call(s), {{ r.usage.input_tokens }} input + {{ r.usage.output_tokens }}
output tokens, ${{ '%.4f' % r.usage.cost_usd }}{% if models %} · models: {{ models }}{% endif %}</p>
<h2>Discussion</h2>
{% for m, text in messages %}<article class="msg"><header>{{ m.id }} · {{ titles.get(m.from_role, m.from_role) }}
→ {{ m.to }} · {{ m.type }}{% if m.round %} · round {{ m.round }}{% endif %}{% if m.offline %} · {{ label }}{% endif
%}</header><div class="md">{{ text | md }}</div></article>
{% endfor %}
</body></html>
"""

_env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
# Agents write markdown: render it (CommonMark, raw HTML disabled, so any markup in a message stays escaped
# text) instead of showing `**bold**` as typed. Links are kept as text: the report has no external resources.
_markdown = MarkdownIt("commonmark", {"html": False}).disable(["link", "image", "autolink"])


def markdown_html(text: str) -> Markup:
    return Markup(_markdown.render(text or ""))


_env.filters["md"] = markdown_html
_template = _env.from_string(_TEMPLATE)


def render_report(inp: ReportInput, texts: list[str]) -> str:
    winner = next((i for i in inp.ideas if inp.selection and i.id == inp.selection.idea_id), None)
    color = {"selected": "#2da44e", "no_idea_met_threshold": "#bf8700"}.get(inp.outcome, "#cf222e")
    return _template.render(r=inp, winner=winner, criteria=CRITERIA, color=color, titles=ROLE_TITLES, label=OFFLINE_LABEL,
                            team=", ".join(ROLE_TITLES.get(t, t) for t in inp.team),
                            models=", ".join(f"{k}={v}" for k, v in sorted(inp.models.items())),
                            messages=list(zip(inp.messages, texts, strict=True)))


def _discussion_report(inp: ReportInput) -> ArtifactRef:
    artifacts = store()
    html = render_report(inp, [artifacts.get(m.ref) for m in inp.messages])
    if len(html.encode("utf-8")) > MAX_REPORT_BYTES:
        raise ApplicationError(f"the HTML report would be {len(html.encode())} bytes, over {MAX_REPORT_BYTES}",
                               type="ArtifactError", non_retryable=True)
    return artifacts.put(inp.discussion_id, "report.html", html, "text/html")


@activity.defn(name="discussion_report")
async def discussion_report(inp: ReportInput) -> ArtifactRef:
    return await asyncio.to_thread(_discussion_report, inp)
