"""`colloquy discuss "topic"` (mounted as a command in client/cli.py) — start a DiscussionWorkflow, follow its progress, print the outcome.
`colloquy discuss-report ID [--html] [--out F]` — print or save a finished discussion's transcript or HTML report.

The discussion itself (agents, rounds, scoring) runs in the workflow on the workers (`colloquy worker`); this
client only starts it, polls the `progress` query while it runs and prints the result. Its transcript and report
are artifacts on the worker's disk: the client names them and reads them through the worker
(client/artifacts.read_artifact), never from the `file://` path in the result.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ApplicationError, CancelledError
from temporalio.service import RPCError

from client.artifacts import read_artifact
from client.common import (
    announce_agents,
    console,
    err_console,
    run,
    status_text,
)
from client.connection import NO_FLAGS, Connection, connects
from client.errors import CliError, ExitCode
from client.worker_check import describe_run, require_worker, warn_if_no_worker, while_worker
from core.settings import TASK_QUEUE
from models.common import OFFLINE_LABEL
from models.discussion.workflow import (
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
        if role.strip() in models:  # the later one used to win, silently
            raise ValueError(f"--models names role {role.strip()!r} more than once: give each role one model")
        models[role.strip()] = model.strip()
    return models


def workflow_id_for(topic: str) -> str:
    return workflow_id("discussion", " ".join(topic.split()[:6]), uuid.uuid4().hex[:6])


async def follow(handle: WorkflowHandle, *, quiet: bool = False) -> DiscussionResult:
    """Print phase changes, new ideas and events (from the `progress` query) until the discussion ends."""
    result_task = asyncio.ensure_future(handle.result())
    seen_step, seen_steps, seen_ideas, seen_events = "", 0, 0, 0

    async def poll() -> None:
        nonlocal seen_step, seen_steps, seen_ideas, seen_events
        try:
            progress: DiscussionProgress = await handle.query(QUERY_PROGRESS, result_type=DiscussionProgress)
        except RPCError:
            return
        if quiet:
            return
        # every step the run took (a run faster than one poll, e.g. `standard` on the offline double, too);
        # a worker that predates the step list: its current step
        steps = progress.steps or [f"{progress.phase}: {progress.current_step}"]
        new = steps[seen_steps:] if progress.steps else [s for s in steps if s != seen_step]
        for step in new:
            console.print(f"[cyan]·[/cyan] {escape(step)}", soft_wrap=True)
            seen_step = step
        seen_steps = max(seen_steps, len(progress.steps))
        for idea in progress.ideas[seen_ideas:]:
            console.print(f"  [green]+ idea {idea.id}[/green] {escape(idea.title)}"
                          + (escape(f" {OFFLINE_LABEL}") if idea.offline else ""), soft_wrap=True)
        seen_ideas = max(seen_ideas, len(progress.ideas))
        for event in progress.events[seen_events:]:
            console.print(f"  [yellow]! {event.kind}[/yellow] {escape(event.message)}", soft_wrap=True)
        seen_events = max(seen_events, len(progress.events))

    while not result_task.done():
        await poll()
        await asyncio.wait({result_task}, timeout=POLL_SECONDS)
    if not result_task.exception():
        await poll()  # the steps after the last poll (all of them, for a run that ended before the first)
    return result_task.result()


def print_result(result: DiscussionResult, ui_link: str) -> None:
    console.print()
    colour = "green" if result.outcome == "selected" else "yellow"
    # what agents wrote is text, never markup (the offline label is in square brackets)
    console.print(f"[bold {colour}]{status_text(result.colloquy_status, None, result.outcome)}[/bold {colour}] — "
                  f"{escape(result.outcome_detail)}", soft_wrap=True)
    if result.offline:
        console.print(escape(f"{OFFLINE_LABEL} the offline test double wrote this discussion's ideas, scores and "
                             "comments, not a model"), soft_wrap=True)
    if result.selected is not None:
        s = result.selected
        console.print(f"[bold]Selected idea: {s.id} {escape(s.title)} ({s.overall}/10)"
                      f"{escape(' ' + OFFLINE_LABEL) if s.offline else ''}[/bold]", soft_wrap=True)
        console.print(f"  {escape(s.description)}", soft_wrap=True)
    if result.selection and result.selection.leader_comment_excerpt:
        console.print(f"Team Leader: {escape(result.selection.leader_comment_excerpt)}", soft_wrap=True)
    if result.ideas:
        table = Table("id", "idea", *SHORT.values(), "overall", "by", title="Ideas and scores (0-10)",
                      caption=" · ".join(f"{v} = {k}" for k, v in SHORT.items()))
        for i in sorted(result.ideas, key=lambda i: -(i.overall or -1)):
            marks = [f"{getattr(i.scores, c):g}" if i.scores else "-" for c in CRITERIA]
            overall = f"{i.overall}" if i.overall is not None else "unscored"
            winner = result.selected is not None and i.id == result.selected.id
            table.add_row(i.id, escape(("★ " if winner else "") + i.title), *marks, overall,
                          escape(OFFLINE_LABEL) if i.offline else "model")
        console.print(table)
    for event in result.events:
        console.print(f"[yellow]! {event.kind}[/yellow] ({event.phase}, round {event.round}) {event.message}",
                      soft_wrap=True)
    u = result.usage
    console.print(f"Usage: {u.calls} LLM call(s), {u.input_tokens}+{u.output_tokens} tokens, ${u.cost_usd:.4f}",
                  soft_wrap=True)
    # artifacts live on the worker's disk: name them and say how to read them from here (through the worker)
    wid = result.discussion_id
    if result.transcript:
        console.print(f"Transcript: {result.transcript.name} — print it: colloquy discuss-report {wid}",
                      soft_wrap=True)
    if result.report:
        console.print(f"Report: {result.report.name} — save it: colloquy discuss-report {wid} --html --out "
                      f"{result.report.name}", soft_wrap=True)
    console.print(f"Web UI: {ui_link}", soft_wrap=True)


@connects
def discuss(
    topic: str = typer.Argument(..., help="What the team should explore."),
    level: str = typer.Option("standard", "--level", "-l",
                              help="standard (1 round) | extended (2 rounds, deep dive) | full (3 rounds)."),
    models: str | None = typer.Option(None, "--models", help="Model per role: role=litellm-id,... "
                                      f"(roles: {', '.join(ROLES)})."),
    team: str | None = typer.Option(None, "--team", help="Comma-separated roles (default: all; leader and "
                                    "ideation are required)."),
    html: bool = typer.Option(False, "--html", help="Also render a self-contained HTML report."),
    out: Path | None = typer.Option(None, "--out", help="Save the HTML report (with --html), else the transcript, "
                                    "to this file: read through the worker, so it works where the client cannot "
                                    "see the worker's disk."),
    workflow_id: str | None = typer.Option(None, "--id", help="Workflow id (default: discussion-<rand>)."),
    wait: bool = typer.Option(True, "--wait/--no-wait", help="Follow the discussion until it ends."),
    task_queue: str = typer.Option(TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Workers' task queue."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Start a team discussion on TOPIC, follow it and print the selected idea, scores and its artifacts (read
    them with `colloquy discuss-report ID`)."""
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
    if out is not None and not wait:
        err_console.print("[red]error:[/red] --out needs to wait for the discussion: drop --no-wait, or save it "
                          "later with `colloquy discuss-report ID --out FILE`")
        raise typer.Exit(2)
    announce_agents(sorted(set(role_models.values())))
    cfg = conn.settings()
    wid = workflow_id or workflow_id_for(topic)

    async def _run() -> int:
        from core.temporal import connect

        client: Client = await connect(cfg)
        if wait:
            await require_worker(client, task_queue)  # within 3 s, before anything starts
        else:
            await warn_if_no_worker(client, task_queue)
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
            result = await while_worker(client, task_queue, follow(handle),
                                        f"`temporal workflow result --workflow-id {wid}`")
        except WorkflowFailureError as exc:
            cause = exc.cause
            message = cause.message if isinstance(cause, ApplicationError) else str(cause or exc)
            word = "cancelled" if isinstance(cause, CancelledError) else "failed"  # its ColloquyStatus
            err_console.print(f"[red]discussion {word}:[/red] {message}", soft_wrap=True)
            return 1
        print_result(result, cfg.workflow_url(wid))
        if out is not None:
            await save_artifact(client, result, task_queue, html, out)
        return 0

    code = run(_run())
    raise typer.Exit(code)


async def save_artifact(client: Client, result: DiscussionResult, task_queue: str, html: bool,
                        out: Path | None) -> str:
    """The transcript (or, `html`, the HTML report) read through a worker on `task_queue`; saved to `out`, or
    returned for printing."""
    ref = result.report if html else result.transcript
    if ref is None:
        what = "no HTML report (start the discussion with --html)" if html else "no transcript"
        raise CliError(f"discussion {result.discussion_id} has {what}", ExitCode.REFUSED)
    text = await read_artifact(client, ref, task_queue)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        console.print(f"saved {out} ({ref.name}, {len(text)} characters, read through the worker)", soft_wrap=True)
    return text


@connects
def discuss_report(
    workflow_id: str = typer.Argument(..., help="The discussion's workflow id."),
    html: bool = typer.Option(False, "--html", help="The HTML report (the run needs --html) instead of the "
                              "transcript."),
    out: Path | None = typer.Option(None, "--out", help="Save it to this file instead of printing it."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Print (or save with --out) a finished discussion's transcript, or its HTML report with --html.

    Read through a worker on the discussion's task queue (client/artifacts.read_artifact): the client never needs
    the worker's disk (containers, k8s, another machine)."""
    cfg = conn.settings()

    async def _run() -> int:
        from temporalio.client import WorkflowExecutionStatus

        from core.temporal import connect

        client: Client = await connect(cfg)
        desc = await describe_run(client, workflow_id, WORKFLOW_TYPE)
        if desc.status == WorkflowExecutionStatus.RUNNING:
            raise CliError(f"discussion {workflow_id} is still running: follow it with `temporal workflow query "
                           f"--workflow-id {workflow_id} --type {QUERY_PROGRESS}`", ExitCode.REFUSED)
        handle = client.get_workflow_handle(workflow_id, result_type=DiscussionResult)
        result: DiscussionResult = await handle.result()   # a failed run: one line (client/errors.py)
        text = await save_artifact(client, result, desc.task_queue, html, out)
        if out is None:
            console.print(text, markup=False, highlight=False, soft_wrap=True)
        return 0

    raise typer.Exit(run(_run()))
