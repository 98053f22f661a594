"""What `colloquy write` prints about a run: its status, its result, its outputs, the approval request and one
line per state-log event (split from client/writing/cli.py). What the offline test double wrote is labelled
wherever it is shown: each output, score and decision carries its call's mark (`offline`) from the workflow."""

from __future__ import annotations

from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from client.common import console, status_text
from models.common import OFFLINE_LABEL
from models.writing.workflow import (
    COMPLETE_STATUSES,
    OutputsView,
    PendingApproval,
    StatusView,
    WorkflowConfig,
    WritingResult,
)
from rules.writing.outcome import status_line

OFFLINE_NOTE = (f"{OFFLINE_LABEL} the offline test double wrote this run's drafts, audits, scores and decisions, "
                "not a model")


def who(text: str, offline: bool) -> str:
    """A name or a line with the offline label after it when the test double wrote it."""
    return f"{text} {OFFLINE_LABEL}" if offline else text


def show_pending(p: PendingApproval) -> None:
    console.print(Panel(escape(p.post_text or "(no post text)"), title=f"Approval requested: {p.request_id}",
                        subtitle=p.post_ref.name if p.post_ref else None))
    console.print(escape(p.prompt.strip()), soft_wrap=True)


def print_status(s: StatusView) -> None:
    console.print(f"[bold]{s.run_id}[/bold] story {s.story!r}: {status_text(s.colloquy_status, s.status)} in state "
                  f"{s.state!r} — "
                  f"{s.transition_count} transition(s), {s.invocations} invocation(s), {s.tokens:,} tokens, "
                  f"${s.cost_usd:.4f}", soft_wrap=True)
    if s.visits:
        console.print("visits: " + ", ".join(f"{k}×{v}" for k, v in s.visits.items()), soft_wrap=True)
    if s.reason:
        console.print(f"reason: {escape(s.reason)}", soft_wrap=True)
    if s.offline:
        console.print(escape(OFFLINE_NOTE), soft_wrap=True)


def print_result(r: WritingResult, ui_link: str, wid: str = "", cfg: WorkflowConfig | None = None) -> None:
    colour = "green" if r.status == "complete" else "yellow" if r.status in ("halted", "forced", "complete_below_floor") \
        else "red"
    console.print()
    console.print(f"[bold {colour}]{escape(status_line(r.status, r.final_state, r.forced))}[/bold {colour}]"
                  + (f"\nreason: {escape(r.reason)}" if r.reason else ""), soft_wrap=True)
    if r.offline:
        console.print(escape(OFFLINE_NOTE), soft_wrap=True)
    console.print("path: " + " → ".join([r.transitions[0][0]] + [t for _, t in r.transitions])
                  if r.transitions else "path: -", soft_wrap=True)
    if r.final_post and r.status in COMPLETE_STATUSES:
        # The ref's path is on the worker's disk: name it, and say how to read it from here (through Temporal).
        console.print(f"final post: {r.final_post.ref.name} ({r.final_post.word_count} words, from "
                      f"{r.final_post.state}/{escape(who(r.final_post.model, r.final_post.offline))}); print it: colloquy write outputs {wid or 'ID'} "
                      "--show final", soft_wrap=True)
        console.print(f"  {escape(r.final_post.preview)}", soft_wrap=True)
        if r.final_score is not None:
            console.print(escape(who(f"final score: {r.final_score:g}/10", r.offline)))
    elif r.status == "forced" and r.final_post is not None:  # forced: nothing published, an earlier yes kept
        console.print(f"nothing published; the last post a human approved: {r.final_post.ref.name}"
                      + escape(" " + OFFLINE_LABEL if r.final_post.offline else ""),
                      soft_wrap=True)
    elif r.status not in COMPLETE_STATUSES:
        console.print(f"no final post (the run {r.colloquy_status}); its outputs so far: colloquy write outputs "
                      f"{r.run_id}",
                      soft_wrap=True)
    hard = cfg.circuit_breaker.safety_limits if cfg is not None else None
    caps = "" if hard is None else f" (hard limits ${hard.max_cost_hard:.2f}" + (
        f", {hard.max_tokens_hard:,} tokens)" if hard.max_tokens_hard is not None else ")")
    console.print(f"usage: {r.tokens:,} tokens, ${r.cost_usd:.4f}{caps}; history "
                  f"{'recorded' if r.history_recorded else 'NOT recorded (see worker log)'}")
    if "run_summary.md" in r.artifacts:
        console.print(f"run summary: run_summary.md (colloquy write outputs {wid or 'ID'} --show run_summary.md)",
                      soft_wrap=True)
    console.print(f"Web UI: {ui_link}", soft_wrap=True)


def describe_event(event: str, state: str | None, data: dict) -> str | None:
    """One progress line per interesting state-log event (None: not shown)."""
    if event == "transition":
        return f"[cyan]·[/cyan] {escape(str(data.get('from')))} → {escape(str(data.get('to')))}"
    if event == "fan_out_complete":
        failed = data.get("failed") or []
        outputs = data.get("outputs") or {}
        doubled = any(isinstance(o, dict) and o.get("offline") for o in outputs.values())
        return (f"  {state}: {data.get('result')} ({len(outputs)} ok"
                + (f", failed: {escape(', '.join(failed))}" if failed else "") + f", {data.get('duration_s')}s)"
                + escape(f" {OFFLINE_LABEL}" if doubled else ""))
    if event == "agent_failed":
        return f"  [yellow]! {escape(str(data.get('agent')))} {data.get('status')}[/yellow]: " \
               f"{escape(str(data.get('error'))[:160])}"
    if event == "quality_gate":
        return escape(who(f"  gate {state}: {data.get('score')}/10 → {data.get('decision')}",
                          bool(data.get("offline"))))
    if event == "circuit_break":
        return f"  [red]circuit break[/red] {data.get('rule')}: {escape(str(data.get('message')))}"
    if event == "orchestrator_decision":
        return f"  orchestrator: {data.get('decision')} — {escape(str(data.get('reasoning'))[:160])}"
    if event == "hard_limit":
        return f"  [red]hard limit[/red] {data.get('rule')}: {escape(str(data.get('message')))}"
    return None


def print_outputs(view: OutputsView) -> None:
    """`write outputs`: every state's latest outputs, each labelled when the offline test double wrote it."""
    table = Table("state", "model", "words", "artifact", "preview")
    for state, items in view.outputs.items():
        for o in items:
            table.add_row(state, escape(who(o.model, o.offline)), str(o.word_count), o.ref.name,
                          escape(o.preview[:80]))
    console.print(table)
    if view.final_post:
        fp = view.final_post
        console.print(f"final post: {fp.ref.name}" + escape(f" ({who(fp.model, fp.offline)})"), soft_wrap=True)
    if view.offline:
        console.print(escape(OFFLINE_NOTE), soft_wrap=True)
