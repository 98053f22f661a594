"""`colloquy discuss "topic"` (mounted as a command in client/cli.py) — start a DiscussionWorkflow, follow its progress, print the outcome.

The discussion itself (agents, rounds, scoring) runs in the workflow on the workers (`colloquy worker`); this
client only starts it, polls the `progress` query while it runs and prints the result.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import typer
from rich.table import Table
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from client.common import (
    AddressOpt,
    NamespaceOpt,
    TlsCertOpt,
    TlsKeyOpt,
    TlsOpt,
    console,
    err_console,
    run,
    settings,
)
from core.settings import TASK_QUEUE
from models.discussion import (
    QUERY_PROGRESS,
    ROLES,
    WORKFLOW_TYPE,
    DiscussionInput,
    DiscussionProgress,
    DiscussionResult,
)
from rules.discussion.inputs import validate_input
from rules.discussion.levels import LEVELS
from rules.discussion.scoring import CRITERIA
from rules.text import workflow_id

POLL_SECONDS = 0.5
SHORT = {"feasibility": "feas", "innovation": "innov", "impact": "impact", "clarity": "clar",
         "completeness": "compl"}

def parse_models(spec: str | None) -> dict[str, str]:
    """`critic=openai/gpt-4o,leader=anthropic/claude-3-5-haiku-20241022` → {role: model}."""
    models: dict[str, str] = {}
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        role, sep, model = part.partition("=")
        if not sep or not role.strip() or not model.strip():
            raise ValueError(f"--models entry {part.strip()!r} is not role=model (roles: {', '.join(ROLES)})")
        models[role.strip()] = model.strip()
    return models


def workflow_id_for(topic: str) -> str:
    return workflow_id("discussion", " ".join(topic.split()[:6]), uuid.uuid4().hex[:6])


async def follow(handle: WorkflowHandle, *, quiet: bool = False) -> DiscussionResult:
    """Print phase changes, new ideas and events (from the `progress` query) until the discussion ends."""
    result_task = asyncio.ensure_future(handle.result())
    seen_step, seen_ideas, seen_events = "", 0, 0
    while not result_task.done():
        try:
            progress: DiscussionProgress = await handle.query(QUERY_PROGRESS, result_type=DiscussionProgress)
        except RPCError:
            progress = None  # type: ignore[assignment]
        if progress is not None and not quiet:
            step = f"{progress.phase}: {progress.current_step}"
            if step != seen_step:
                console.print(f"[cyan]·[/cyan] {step}", soft_wrap=True)
                seen_step = step
            for idea in progress.ideas[seen_ideas:]:
                console.print(f"  [green]+ idea {idea.id}[/green] {idea.title}", soft_wrap=True)
            seen_ideas = max(seen_ideas, len(progress.ideas))
            for event in progress.events[seen_events:]:
                console.print(f"  [yellow]! {event.kind}[/yellow] {event.message}", soft_wrap=True)
            seen_events = max(seen_events, len(progress.events))
        await asyncio.wait({result_task}, timeout=POLL_SECONDS)
    return result_task.result()


def _path(uri: str) -> str:
    return str(Path(uri.removeprefix("file://")))


def print_result(result: DiscussionResult, ui_link: str) -> None:
    console.print()
    colour = "green" if result.outcome == "selected" else "yellow"
    console.print(f"[bold {colour}]Outcome: {result.outcome}[/bold {colour}] — {result.outcome_detail}",
                  soft_wrap=True)
    if result.selected is not None:
        s = result.selected
        console.print(f"[bold]Selected idea: {s.id} {s.title} ({s.overall}/10)[/bold]", soft_wrap=True)
        console.print(f"  {s.description}", soft_wrap=True)
    if result.selection and result.selection.leader_comment_excerpt:
        console.print(f"Team Leader: {result.selection.leader_comment_excerpt}", soft_wrap=True)
    if result.ideas:
        table = Table("id", "idea", *SHORT.values(), "overall", title="Ideas and scores (0-10)",
                      caption=" · ".join(f"{v} = {k}" for k, v in SHORT.items()))
        for i in sorted(result.ideas, key=lambda i: -(i.overall or -1)):
            marks = [f"{getattr(i.scores, c):g}" if i.scores else "-" for c in CRITERIA]
            overall = f"{i.overall}" if i.overall is not None else "unscored"
            winner = result.selected is not None and i.id == result.selected.id
            table.add_row(i.id, ("★ " if winner else "") + i.title, *marks, overall)
        console.print(table)
    for event in result.events:
        console.print(f"[yellow]! {event.kind}[/yellow] ({event.phase}, round {event.round}) {event.message}",
                      soft_wrap=True)
    u = result.usage
    console.print(f"Usage: {u.calls} LLM call(s), {u.input_tokens}+{u.output_tokens} tokens, ${u.cost_usd:.4f}",
                  soft_wrap=True)
    if result.transcript:
        console.print(f"Transcript: {_path(result.transcript.uri)}", soft_wrap=True)
    if result.report:
        console.print(f"Report: {_path(result.report.uri)}", soft_wrap=True)
    console.print(f"Web UI: {ui_link}", soft_wrap=True)


def discuss(
    topic: str = typer.Argument(..., help="What the team should explore."),
    level: str = typer.Option("standard", "--level", "-l",
                              help="standard (1 round) | extended (2 rounds, deep dive) | full (3 rounds)."),
    models: str | None = typer.Option(None, "--models", help="Model per role: role=litellm-id,... "
                                      f"(roles: {', '.join(ROLES)})."),
    team: str | None = typer.Option(None, "--team", help="Comma-separated roles (default: all; leader and "
                                    "ideation are required)."),
    html: bool = typer.Option(False, "--html", help="Also render a self-contained HTML report."),
    workflow_id: str | None = typer.Option(None, "--id", help="Workflow id (default: discussion-<topic>-<rand>)."),
    wait: bool = typer.Option(True, "--wait/--no-wait", help="Follow the discussion until it ends."),
    task_queue: str = typer.Option(TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Workers' task queue."),
    address: str | None = AddressOpt, namespace: str | None = NamespaceOpt, tls: bool = TlsOpt,
    tls_cert: str | None = TlsCertOpt, tls_key: str | None = TlsKeyOpt,
) -> None:
    """Start a team discussion on TOPIC, follow it and print the selected idea, scores and report path."""
    try:
        role_models = parse_models(models)
    except ValueError as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    inp = DiscussionInput(topic=topic, level=level, models=role_models, html_report=html,
                          **({"team": [r.strip() for r in team.split(",") if r.strip()]} if team else {}))
    errors = validate_input(inp)
    if errors:
        for error in errors:
            err_console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2)
    cfg = settings(address, namespace, tls, tls_cert, tls_key)
    wid = workflow_id or workflow_id_for(topic)

    async def _run() -> int:
        from core.temporal import connect

        client: Client = await connect(cfg)
        handle = await client.start_workflow(WORKFLOW_TYPE, inp, id=wid, task_queue=task_queue,
                                             result_type=DiscussionResult,
                                             static_summary=f"Discussion ({level}): {inp.topic[:120]}")
        rules = LEVELS[level]
        console.print(f"Discussion [bold]{wid}[/bold] started: level {level} ({rules.max_rounds} round(s), "
                      f"min {rules.min_ideas} ideas, threshold {rules.min_score_threshold})", soft_wrap=True)
        console.print(f"Web UI: {cfg.workflow_url(wid)}", soft_wrap=True)
        if not wait:
            console.print(f"Follow it with: temporal workflow query --workflow-id {wid} --type {QUERY_PROGRESS}",
                          soft_wrap=True)
            return 0
        try:
            result = await follow(handle)
        except WorkflowFailureError as exc:
            cause = exc.cause
            message = cause.message if isinstance(cause, ApplicationError) else str(cause or exc)
            err_console.print(f"[red]discussion failed:[/red] {message}", soft_wrap=True)
            return 1
        print_result(result, cfg.workflow_url(wid))
        return 0

    code = run(_run())
    raise typer.Exit(code)
