"""Run logs (§7) rendered from the run record: manifest, state log, token log, agent logs, run_summary.md."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from models.common import OFFLINE_LABEL, offline_labelled
from models.writing.workflow import HistoryContext, Invocation, RunRecord
from rules.writing.accounting import (
    RECOMMENDATION,
    context_status,
    offline_run,
    run_totals,
    session_context,
    totals_by,
)

# The run summary's header line for a run the offline test double answered (every row it wrote is labelled too).
OFFLINE_HEADER = (f"**Produced by:** {OFFLINE_LABEL} — the deterministic offline test double answered, not a model: "
                  "its drafts, audits, scores and decisions are not a model's verdict")

_SAFE = re.compile(r"[^A-Za-z0-9._\-]+")



def _table_head(heading: str, *columns: str) -> list[str]:
    """A markdown section heading followed by a table header and its separator row."""
    return [heading, "", "| " + " | ".join(columns) + " |", "|" + "|".join("-" * (len(c) + 2) for c in columns) + "|"]

def slug(text: str) -> str:
    return _SAFE.sub("_", text).strip("._") or "x"


def unique_slugs(names: list[str]) -> dict[str, str]:
    """Model ids → file-name slugs that never collide within a run and are stable (the same ids give the same
    slugs whatever their order). An id whose slug is unique keeps the plain slug; ids that share a slug get a
    short hash of the id appended (an id that is already its own slug keeps it plain)."""
    groups: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        groups.setdefault(slug(name), []).append(name)
    out: dict[str, str] = {}
    for base, members in groups.items():
        for name in members:
            if len(members) == 1 or name == base:
                out[name] = base
            else:
                out[name] = f"{base}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
    return out


def _ts(value: Any) -> str:
    return value.isoformat().replace("+00:00", "Z") if hasattr(value, "isoformat") else str(value)


def duration_s(record: RunRecord) -> float:
    start = record.state.started_at
    return round((record.finished_at - start).total_seconds(), 3) if start else 0.0


def manifest(record: RunRecord) -> dict[str, Any]:
    s = record.state
    totals = run_totals(s.invocations)
    return {
        "run_id": s.run_id, "story": s.story_name, "status": s.status, "final_state": s.current,
        "reason": s.reason, "forced_complete": record.forced, "models": s.models,
        "config": s.config.model_dump(mode="json") if s.config else None,
        "started_at": _ts(s.started_at), "finished_at": _ts(record.finished_at), "duration_s": duration_s(record),
        "transitions": [list(t) for t in s.breaker.transition_history],
        "totals": {"invocations": totals.invocations, "input_tokens": totals.input_tokens,
                   "output_tokens": totals.output_tokens, "total_tokens": totals.total_tokens,
                   "cost_usd": totals.cost_usd},
        "final_post": record.final_post.ref.uri if record.final_post else None,
        "final_score": s.final_score, "continued_as_new": s.continued,
        "offline": offline_run(s.invocations),
        "produced_by": OFFLINE_LABEL if offline_run(s.invocations) else "models",
    }


def state_log_lines(record: RunRecord) -> list[str]:
    return [json.dumps({"ts": _ts(e.ts), "event": e.event, "state": e.state, **e.data}, default=str)
            for e in record.state.state_log]


def token_line(inv: Invocation) -> dict[str, Any]:
    return {"ts": _ts(inv.started_at), "agent": inv.model, "state": inv.state, "activity": inv.agent,
            "input_tokens": inv.input_tokens, "output_tokens": inv.output_tokens, "total": inv.total_tokens,
            "context_max": inv.context_window, "context_used_pct": inv.context_used_pct,
            "context_status": inv.context_status, "cost_usd": inv.cost_usd, "status": inv.status,
            "offline": inv.offline}


def token_lines(record: RunRecord) -> list[str]:
    return [json.dumps(token_line(inv)) for inv in record.state.invocations]


def agent_logs(record: RunRecord) -> dict[str, list[str]]:
    """`agent_logs/{model}_{state}.jsonl`: an invoke and a complete entry per invocation."""
    logs: dict[str, list[str]] = {}
    slugs = unique_slugs([inv.model for inv in record.state.invocations])
    for inv in record.state.invocations:
        name = f"agent_logs/{slugs[inv.model]}_{slug(inv.state)}.jsonl"
        lines = logs.setdefault(name, [])
        lines.append(json.dumps({"ts": _ts(inv.started_at), "event": "invoke", "agent": inv.model,
                                 "state": inv.state, "visit": inv.visit, "persona": inv.persona,
                                 "activity": inv.agent, "guidance": inv.guidance,
                                 "prompt_file": inv.prompt_ref.name if inv.prompt_ref else None,
                                 "prompt_uri": inv.prompt_ref.uri if inv.prompt_ref else None,
                                 "inputs": inv.inputs, "offline": inv.offline}))
        lines.append(json.dumps({
            "ts": _ts(inv.started_at), "event": "complete", "agent": inv.model, "state": inv.state,
            "success": inv.success, "status": inv.status, "error": inv.error, "duration_s": inv.duration_s,
            "output_file": inv.output_name, "output_uri": inv.output_ref.uri if inv.output_ref else None,
            "output_preview": inv.preview, "word_count": inv.word_count,
            "tokens": {"input": inv.input_tokens, "output": inv.output_tokens, "total": inv.total_tokens},
            "context": {"max": inv.context_window, "used": inv.total_tokens,
                        "session_used": inv.session_tokens or inv.total_tokens, "percent": inv.context_used_pct,
                        "status": inv.context_status},
            "cost_usd": inv.cost_usd, "attempt": inv.attempt, "fallback_used": inv.fallback_used,
            "offline": inv.offline}))
    return logs


def _fmt_duration(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def historical_context(record: RunRecord, ctx: HistoryContext) -> list[str]:
    """§17: this post's iteration, score vs the previous best, agents vs their recent average, cost vs average."""
    s = record.state
    out = ["", "## Historical Context", "", f"### This Post ({s.story_name})",
           f"- **Iteration:** {ctx.iteration}"]
    if ctx.previous_best is not None:
        out.append(f"- **Previous best score:** {ctx.previous_best:g}")
        if s.final_score is not None:
            out.append(_who(f"- **Current score:** {s.final_score:g} ({s.final_score - ctx.previous_best:+.1f})",
                            offline_run(s.invocations)))
    this_run: dict[str, list[float]] = {}
    doubled: set[str] = set()  # targets scored by the offline test double in this run
    for a in s.audit_scores:
        if a.kind == "audit":
            this_run.setdefault(a.target, []).append(a.overall)
            if a.offline:
                doubled.add(a.target)
    if this_run:
        out += ["", *_table_head("### Agent Performance (Last 10 Runs)", "Agent", "This Run", "Avg", "Trend")]
        for agent, scores in sorted(this_run.items()):
            mine = sum(scores) / len(scores)
            avg = ctx.agent_averages.get(agent)
            trend = "-" if avg is None else ("↑" if mine > avg else "↓" if mine < avg else "→") + f" {mine - avg:+.1f}"
            out.append(f"| {_who(agent, agent in doubled)} | {mine:.1f} | {'-' if avg is None else f'{avg:.1f}'} | {trend} |")
    cost = run_totals(s.invocations).cost_usd
    out += ["", "### Cost Comparison", f"- **This run:** ${cost:.4f}"]
    if ctx.average_cost is not None:
        out.append(f"- **Average run:** ${ctx.average_cost:.4f}")
        if ctx.average_cost > 0:
            pct = (cost - ctx.average_cost) / ctx.average_cost * 100
            out.append(f"- **Trend:** {abs(pct):.0f}% {'below' if pct < 0 else 'above'} average")
    return out


def run_summary(record: RunRecord, post_text: str | None = None, analysis_text: str | None = None,
                history: HistoryContext | None = None) -> str:
    s = record.state
    status = {"complete": "Complete", "complete_below_floor": "Complete, below the score floor", "halted": "Halted",
              "failed": "Failed", "forced": "Forced — not approved (nothing published)"}.get(s.status,
                                                                                             s.status.title())
    if record.forced and s.status != "forced":
        status += " (forced by the orchestrator)"
    offline = offline_run(s.invocations)
    doubled = {i.model for i in s.invocations if i.offline}  # the ids the test double answered for
    out = [f"# Workflow Run: {s.run_id}", "", f"**Input:** {s.story_name}", f"**Models:** {', '.join(s.models)}",
           f"**Duration:** {_fmt_duration(duration_s(record))}", f"**Status:** {status}"]
    if offline:
        out.insert(2, OFFLINE_HEADER)
    if s.reason:
        out.append(f"**Reason:** {s.reason}")
    out += ["", "---", "", *_table_head("## Token Usage Summary", "Agent", "Input", "Output", "Total", "Cost")]
    by_model = totals_by(s.invocations, "model")
    for model, t in sorted(by_model.items()):
        out.append(f"| {_who(model, model in doubled)} | {t.input_tokens:,} | {t.output_tokens:,} | "
                   f"{t.total_tokens:,} | ${t.cost_usd:.4f} |")
    total = run_totals(s.invocations)
    out.append(f"| {_who('**Total**', offline)} | **{total.input_tokens:,}** | **{total.output_tokens:,}** | "
               f"**{total.total_tokens:,}** | **${total.cost_usd:.4f}** |")
    if s.config is not None:  # the caps beside the final figures
        hard = s.config.circuit_breaker.safety_limits
        out += ["", f"**Hard limits:** ${hard.max_cost_hard:.2f}" + (
            f", {hard.max_tokens_hard:,} tokens" if hard.max_tokens_hard is not None else "")
            + f", {hard.max_transitions_hard} transitions, {hard.max_runtime_hard:g} s"]
    out += ["", *_table_head("### By State", "State", "Invocations", "Succeeded", "Tokens", "Cost")]
    doubled_states = {i.state for i in s.invocations if i.offline}
    for state, t in totals_by(s.invocations, "state").items():
        out.append(f"| {_who(state, state in doubled_states)} | {t.invocations} | {t.succeeded} | {t.total_tokens:,} | ${t.cost_usd:.4f} |")
    out += ["", *_table_head("### Context Window Status", "Agent", "Session total", "Max", "% Used", "Status")]
    for model in sorted(by_model):
        used, window, pct = session_context(s.invocations, model)
        status_word = context_status(pct)
        out.append(f"| {_who(model, model in doubled)} | {used:,} | {window:,} | {pct:.1f}% | {RECOMMENDATION[status_word]} |")
    out += ["", "---", "", "## State Transitions", ""]
    out.append(" → ".join([s.breaker.transition_history[0][0]] + [t for _, t in s.breaker.transition_history])
               if s.breaker.transition_history else "(none)")
    breaks = [e for e in s.state_log if e.event in ("circuit_break", "orchestrator_decision", "hard_limit")]
    if breaks:
        out += ["", "### Circuit Breaks", ""]
        for e in breaks:
            detail = e.data.get("message") or e.data.get("decision") or ""
            reasoning = e.data.get("reasoning")
            out.append(f"- {e.event}: {e.data.get('rule', '')} {detail}".rstrip()
                       + (f" — {offline_labelled(str(reasoning), bool(e.data.get('offline')))}" if reasoning else ""))
    drafts = [i for i in s.invocations if i.task == "draft"]
    if drafts:
        out += ["", *_table_head("## Draft Phase", "Agent", "Visit", "Status", "Words", "Tokens", "Preview")]
        for i in drafts:
            out.append(f"| {_who(i.model, i.offline)} | {i.visit} | {i.status} | {i.word_count} | {i.total_tokens:,} | "
                       f"{i.preview[:60].replace('|', '/')} |")
    cross = [a for a in s.audit_scores if a.kind == "audit"]
    if cross:
        out += ["", *_table_head("## Audit Consensus", "Auditor", "Target", "Overall", "Hook", "Specifics", "Voice")]
        for a in cross:
            out.append(f"| {_who(a.auditor, a.offline)} | {a.target} | {a.overall:g}/10 | {_n(a.hook)} | {_n(a.specifics)} | "
                       f"{_n(a.voice)} |")
    if s.gate_scores:
        out += ["", *_table_head("## Quality Gates", "State", "Visit", "Score", "Decision", "Guidance")]
        for g in s.gate_scores:
            out.append(f"| {_who(str(g['state']), bool(g.get('offline')))} | {g['visit']} | {g['score']}/10 | {g['decision']} | "
                       f"{str(g.get('retry_guidance') or '')[:80]} |")
    if record.final_post:
        fp = record.final_post
        out += ["", "## Final Post", "", f"**Word count:** {fp.word_count}", f"**File:** {fp.ref.name}"
                f" ({fp.state}/{_who(fp.model, fp.offline)})", "", "### Preview:"]
        preview_lines = (post_text or fp.preview).strip().splitlines()[:3]
        out += [f"> {line}" for line in preview_lines if line.strip()]
    finals = [a for a in s.audit_scores if a.kind == "final_audit"]
    if finals:
        out += ["", *_table_head("## Final Audit Scores", "Agent", "Overall", "Hook", "Specifics", "Voice", "Structure")]
        for a in finals:
            out.append(f"| {_who(a.auditor, a.offline)} | {a.overall:g}/10 | {_n(a.hook)} | {_n(a.specifics)} | {_n(a.voice)} | "
                       f"{_n(a.structure)} |")
    if s.human_feedback:
        out += ["", "## Human Feedback", ""] + [f"- {f}" for f in s.human_feedback]
    out += ["", "## Final Determination", ""]
    if analysis_text:
        out.append(analysis_text.strip())
    elif s.reason:
        out.append(s.reason)
    else:
        out.append("(no final analysis)")
    if s.final_score is not None:
        scorers = [a.offline for a in s.audit_scores if a.kind == "final_audit"] or [offline]
        out += ["", _who(f"**Final score:** {s.final_score:g}/10", any(scorers))]
    if history is not None:
        out += historical_context(record, history)
    out += ["", "---", "", "*Generated by Colloquy WritingWorkflow*", ""]
    return "\n".join(out)


def _who(name: str, offline: bool) -> str:
    """A table cell or line naming who wrote a row: the offline label after it when the test double did."""
    return f"{name} {OFFLINE_LABEL}" if offline else name


def _n(value: float | None) -> str:
    return f"{value:g}/10" if value is not None else "-"
