"""`colloquy write` — run the multi-model writing pipeline (WritingWorkflow) and answer its approval requests.

    colloquy write STORY.md --models openai/gpt-4o-mini,anthropic/claude-3-5-haiku-20241022 [--config gated]
    colloquy write status <workflow-id>
    colloquy write approve <workflow-id>
    colloquy write reject <workflow-id> --feedback "make the hook concrete"   (asks for feedback when missing)
    colloquy write abort <workflow-id>
    colloquy write convert-config SEED_workflow_config.yaml   (seed 004's shape → Colloquy's)

`write STORY.md` is the default subcommand (`write start STORY.md` is the same). The workflow runs on the
workers (`colloquy worker`); this client validates the config locally, starts the run, follows the
`run_status` query and, when the run waits for a human, shows the post and asks (on a terminal) or explains
how to answer from another shell.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path
from typing import TypeVar

import typer
from rich.markup import escape
from rich.table import Table
from temporalio.client import (
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.service import RPCError
from typer.core import TyperGroup

from client.artifacts import read_artifact
from client.common import (
    announce_agents,
    console,
    duplicate_ids,
    err_console,
    run,
    status_text,
)
from client.connection import NO_FLAGS, Connection, connects
from client.errors import CliError, ExitCode
from client.worker_check import describe_run, require_worker, warn_if_no_worker, while_worker
from client.writing.terminal import discard_typed_ahead
from client.writing.views import describe_event, print_outputs, print_result, print_status, show_pending
from core.settings import TASK_QUEUE
from models.writing.workflow import (
    MAX_MODELS,
    MAX_STORY_CHARS,
    QUERY_OUTPUTS,
    QUERY_RUN_STATUS,
    UPDATE_SUBMIT_APPROVAL,
    WORKFLOW_TYPE,
    ApprovalInput,
    ApprovalReceipt,
    OutputsView,
    PendingApproval,
    StatusView,
    WorkflowConfig,
    WritingInput,
    WritingResult,
)
from rules.errors import error_message
from rules.model_ids import model_id_problem
from rules.text import workflow_id
from rules.writing.config import ConfigError, validate_config
from rules.writing.transitions import normalise_approval

POLL_SECONDS = 0.5


class _StoryOrCommand(TyperGroup):
    """`colloquy write STORY.md ...` runs `start`; known subcommands run as usual."""

    def parse_args(self, ctx, args):  # type: ignore[no-untyped-def]
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["start", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(cls=_StoryOrCommand, no_args_is_help=True,
                  help="Multi-model writing pipeline: drafts, audits, synthesis, approval. "
                       "`colloquy write STORY.md --models a,b,c` starts a run.")


def parse_models(spec: str) -> list[str]:
    given = [m.strip() for m in spec.split(",") if m.strip()]
    twice = duplicate_ids(given)
    if twice:  # `--models a,a,a` used to run one model, silently
        raise ValueError(f"--models names {', '.join(repr(m) for m in twice)} more than once: give each model once "
                         "(each id is one writer and auditor)")
    models = given
    if not models:
        raise ValueError("--models needs at least one litellm model id (e.g. openai/gpt-4o-mini)")
    if len(models) > MAX_MODELS:  # the workflow's own limit, checked before anything starts
        raise ValueError(f"--models names {len(models)} models, at most {MAX_MODELS}")
    for model in models:  # the one model-id check every pipeline's CLI uses (rules/model_ids.py)
        problem = model_id_problem(model)
        if problem:
            raise ValueError(f"--models: {problem}")
    return models


def load_config_arg(name_or_path: str) -> WorkflowConfig:
    """A config name (configs/writing/<name>.yaml) or a YAML path, validated here before anything starts."""
    from activities.writing.configs import load_named_config

    return load_named_config(name_or_path)


def seed_personas(name_or_path: str) -> dict[str, str]:
    """A seed-shaped config's persona files (`prompts/quality_gate_strict.md`), read from beside the config or the
    working directory where they exist: name → text, sent with the run like `--persona`. Missing ones fall back to
    the bundled persona of that name (the worker checks it before any model is called)."""
    import yaml

    from rules.writing.seed_config import seed_persona_paths

    path = Path(name_or_path)
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}  # load_config_arg reports it
    found = {}
    for persona, rel in seed_persona_paths(data).items():
        for base in (path.parent, Path.cwd()):
            candidate = base / rel
            if candidate.is_file():
                found[persona] = candidate.read_text(encoding="utf-8")
                break
    return found


def workflow_id_for(story: str) -> str:
    return workflow_id("writing", story, uuid.uuid4().hex[:6])


async def follow(handle: WorkflowHandle, *, interactive: bool) -> WritingResult:
    """Print transitions and events until the run ends; answer approval requests on a terminal."""
    result_task = asyncio.ensure_future(handle.result())
    seen_events, shown_request = 0, None

    async def poll() -> StatusView | None:
        nonlocal seen_events
        try:
            s: StatusView | None = await handle.query(QUERY_RUN_STATUS, result_type=StatusView)
        except RPCError:
            return None
        assert s is not None
        first = s.event_count - len(s.recent_events)
        for i, event in enumerate(s.recent_events, start=first):
            if i >= seen_events:
                line = describe_event(event.event, event.state, event.data)
                if line:
                    console.print(line, soft_wrap=True)
        seen_events = max(seen_events, s.event_count)
        return s

    while not result_task.done():
        s = await poll()
        if s is not None:
            p = s.pending_approval
            if p is not None and p.request_id != shown_request:
                shown_request = p.request_id
                show_pending(p)
                if interactive:
                    await _ask(handle, p)
                else:
                    console.print(f"Answer with: colloquy write approve {handle.id}   |   colloquy write reject "
                                  f"{handle.id} [--feedback TEXT]", soft_wrap=True)
        await asyncio.wait({result_task}, timeout=POLL_SECONDS)
    if not result_task.exception():
        await poll()  # the events after the last poll
    return result_task.result()


async def _ask(handle: WorkflowHandle, p: PendingApproval) -> None:
    if discard_typed_ahead():
        err_console.print("[yellow]what was typed before the post was shown is discarded: read the post above, "
                          "then answer[/yellow]")
    while True:
        console.print("approve | abort | anything else = feedback")
        answer = await asyncio.to_thread(input, "> ")
        try:
            decision, feedback = normalise_approval(answer, None, free_text=True)
        except ValueError as exc:
            err_console.print(f"[red]{exc}[/red]")
            continue
        wire = {"approved": "approve"}.get(decision, decision)
        try:
            await handle.execute_update(UPDATE_SUBMIT_APPROVAL, ApprovalInput(
                decision=wire, feedback=feedback, request_id=p.request_id), result_type=ApprovalReceipt)
            return
        except WorkflowUpdateFailedError as exc:
            err_console.print(f"[red]refused:[/red] {exc.cause}")
            return


@app.command("start")
@connects
def start(
    story: Path = typer.Argument(..., help="The story (markdown file).", exists=True, dir_okay=False, readable=True),
    models: str = typer.Option(..., "--models", "-m", help="Comma-separated litellm model ids: the writers and "
                               "auditors (fan-out width). In the offline profile the test double answers for each."),
    config_name: str = typer.Option("default", "--config", "-c", help="default | gated | path to a YAML config."),
    story_name: str | None = typer.Option(None, "--story-name", help="Name in history (default: file stem)."),
    persona: list[str] = typer.Option([], "--persona", help="name=FILE: inline persona text for this run."),
    workflow_id: str | None = typer.Option(None, "--id", help="Workflow id (default: writing-<rand>)."),
    wait: bool = typer.Option(True, "--wait/--no-wait", help="Follow the run until it ends."),
    ask: bool | None = typer.Option(None, "--ask/--no-ask", help="Answer approval requests here (default: when "
                                    "stdin is a terminal). approve | abort | any other text = feedback."),
    task_queue: str = typer.Option(TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Workers' task queue."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Start a writing run for STORY with the given models; show progress and the result."""
    try:
        model_ids = parse_models(models)
        cfg = load_config_arg(config_name)
        text = story.read_text(encoding="utf-8")
        personas = seed_personas(config_name)  # the seed's persona files beside its config; --persona wins
        for item in persona:
            name, sep, path = item.partition("=")
            if not sep:
                raise ValueError(f"--persona {item!r} is not name=FILE")
            personas[name.strip()] = Path(path).read_text(encoding="utf-8")
    except ConfigError as exc:  # a ValueError too: caught first, one line per problem
        for error in exc.errors:
            err_console.print(f"[red]config error:[/red] {escape(error)}", soft_wrap=True)
        raise typer.Exit(2) from None
    except (ValueError, OSError) as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(2) from None
    if not text.strip() or len(text) > MAX_STORY_CHARS:
        err_console.print(f"[red]error:[/red] the story must be non-empty and at most {MAX_STORY_CHARS:,} characters")
        raise typer.Exit(2)
    assert not validate_config(cfg)
    announce_agents(model_ids + sorted({st.agent for st in cfg.states.values() if st.agent and st.agent !=
                                        "orchestrator" and st.agent not in model_ids}))
    name = story_name or story.stem
    inp = WritingInput(story_text=text, story_name=name, models=model_ids, config=cfg, personas=personas)
    tsettings = conn.settings()
    wid = workflow_id or workflow_id_for(name)

    async def _run() -> int:
        from core.temporal import connect

        client = await connect(tsettings)
        if wait:
            await require_worker(client, task_queue)  # within 3 s, before anything starts
        else:
            await warn_if_no_worker(client, task_queue)
        handle = await client.start_workflow(WORKFLOW_TYPE, inp, id=wid, task_queue=task_queue,
                                             result_type=WritingResult,
                                             static_summary=f"Writing: {name} ({len(model_ids)} model(s), "
                                                            f"config {cfg.name})")
        console.print(f"Started [bold]{wid}[/bold]: {len(model_ids)} model(s), config {cfg.name!r}, "
                      f"story {name!r}", soft_wrap=True)
        if not wait:
            console.print(f"Follow with: colloquy write status {wid}")
            return 0
        try:
            result = await while_worker(client, task_queue,
                                        follow(handle, interactive=sys.stdin.isatty() if ask is None else ask),
                                        f"`colloquy write status {wid}`")
        except WorkflowFailureError as exc:
            err_console.print(f"[red]run failed:[/red] {escape(str(exc.cause))}")  # ColloquyStatus "failed"
            return 1
        print_result(result, tsettings.workflow_url(wid), wid, cfg)
        return 0 if result.status == "complete" else 1  # complete_below_floor: 1, the post is not good enough

    raise typer.Exit(run(_run()))


Q = TypeVar("Q")


async def _query(handle: WorkflowHandle, name: str, result_type: type[Q]) -> Q:
    """Run a query (a worker answers it: `_run_handle` checked that one polls)."""
    return await handle.query(name, result_type=result_type)


async def _run_handle(client, workflow_id: str) -> WorkflowHandle:  # noqa: ANN001
    """The writing run `workflow_id`, once it is known to exist and a worker polls its queue to answer queries
    (one line and exit code 4 / 3 otherwise, within 3 s)."""
    desc = await describe_run(client, workflow_id, WORKFLOW_TYPE)
    await require_worker(client, desc.task_queue, agents=False)
    return client.get_workflow_handle(workflow_id, result_type=WritingResult)


async def _agree_with_server(handle: WorkflowHandle, s: StatusView) -> StatusView:
    """A run the server says has ended is never shown as running (e.g. one that failed its input checks
    before its first state, started by an older worker)."""
    if s.status not in ("running", "waiting_approval"):
        return s
    try:
        desc = await handle.describe()
    except RPCError:
        return s
    ended = desc.status.name.lower() if desc.status is not None and desc.status.name != "RUNNING" else None
    if ended is None or ended == "continued_as_new":
        return s
    reason = s.reason
    if ended == "failed":
        try:
            await handle.result()
        except WorkflowFailureError as exc:
            reason = str(exc.cause)
        except Exception:  # noqa: BLE001 - the reason is a courtesy; the status is what matters
            pass
    return s.model_copy(update={"status": "failed" if ended != "completed" else s.status, "reason": reason
                                or f"the workflow {ended.replace('_', ' ')}", "pending_approval": None})


def _answer(workflow_id: str, decision: str, feedback: str | None, request_id: str | None, tsettings) -> int:
    async def _run() -> int:
        from core.temporal import connect

        client = await connect(tsettings)
        handle = await _run_handle(client, workflow_id)
        s = await _query(handle, QUERY_RUN_STATUS, StatusView)
        if s.pending_approval is None:
            raise CliError(f"{workflow_id} is not waiting for approval (state {s.state!r}, "
                           f"{status_text(s.colloquy_status, s.status)})",
                           ExitCode.REFUSED)
        show_pending(s.pending_approval)
        try:
            receipt = await handle.execute_update(UPDATE_SUBMIT_APPROVAL, ApprovalInput(
                decision=decision, feedback=feedback, request_id=request_id or s.pending_approval.request_id),
                result_type=ApprovalReceipt)
        except WorkflowUpdateFailedError as exc:
            raise CliError(f"refused: {error_message(exc)}", ExitCode.REFUSED) from None
        now = await _agree_with_server(handle, await _query(handle, QUERY_RUN_STATUS, StatusView))
        console.print(f"[green]{receipt.decision}[/green] sent for {receipt.request_id}; the run is "
                      f"{status_text(now.colloquy_status, now.status)} in state {now.state!r}", soft_wrap=True)
        return 0

    return run(_run())


@app.command("approve")
@connects
def approve(
    workflow_id: str = typer.Argument(..., help="The writing run's workflow id."),
    request_id: str | None = typer.Option(None, "--request-id", help="Only answer this request."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Show the post waiting for approval and approve it (the run completes)."""
    raise typer.Exit(_answer(workflow_id, "approve", None, request_id,
                             conn.settings()))


@app.command("reject")
@connects
def reject(
    workflow_id: str = typer.Argument(..., help="The writing run's workflow id."),
    feedback: str | None = typer.Option(None, "--feedback", "-f", help="What synthesis should change (asked for "
                                        "on a terminal when missing)."),
    request_id: str | None = typer.Option(None, "--request-id", help="Only answer this request."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Send the post back into synthesis with feedback. Without --feedback it asks for it (on a terminal);
    rejecting never aborts the run — `colloquy write abort ID` does."""
    if not (feedback and feedback.strip()):
        if sys.stdin.isatty():
            feedback = typer.prompt("What should the synthesis change?", default="", show_default=False)
        if not (feedback and feedback.strip()):
            err_console.print("[red]error:[/red] reject needs feedback: say what the synthesis should change "
                              f"(colloquy write reject {workflow_id} --feedback TEXT); to stop the run use "
                              f"colloquy write abort {workflow_id}", soft_wrap=True)
            raise typer.Exit(2)
    raise typer.Exit(_answer(workflow_id, "feedback", feedback, request_id,
                             conn.settings()))


@app.command("abort")
@connects
def abort(
    workflow_id: str = typer.Argument(..., help="The writing run's workflow id."),
    request_id: str | None = typer.Option(None, "--request-id", help="Only answer this request."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Abort the run waiting for approval (it ends halted, the reason says the reviewer aborted it)."""
    raise typer.Exit(_answer(workflow_id, "abort", None, request_id,
                             conn.settings()))


@app.command("convert-config")
def convert_config(
    path: Path = typer.Argument(..., help="A config in seed 004's workflow_config.yaml shape.", exists=True,
                                dir_okay=False, readable=True),
) -> None:
    """Print seed 004's workflow_config.yaml converted to Colloquy's config shape (validated). `write --config
    PATH` accepts the seed's shape as it is; this shows what it becomes."""
    import yaml

    from rules.writing.config import parse_config
    from rules.writing.seed_config import conversion_notes

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        cfg = parse_config(data, path.stem)
    except yaml.YAMLError as exc:
        err_console.print(f"[red]error:[/red] not valid YAML: {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(2) from None
    except ConfigError as exc:
        for error in exc.errors:
            err_console.print(f"[red]config error:[/red] {escape(error)}", soft_wrap=True)
        raise typer.Exit(2) from None
    for note in conversion_notes(data):  # what each seed construct became, as YAML comments
        print(f"# {note}")
    print(yaml.safe_dump(cfg.model_dump(mode="json", exclude_defaults=True), sort_keys=False), end="")


@app.command("status")
@connects
def status(
    workflow_id: str = typer.Argument(..., help="The writing run's workflow id."),
    conn: Connection = NO_FLAGS,
) -> None:
    """State, visits, transitions, cost so far, pending approval (the `run_status` query)."""
    tsettings = conn.settings()

    async def _run() -> int:
        from core.temporal import connect

        client = await connect(tsettings)
        handle = await _run_handle(client, workflow_id)
        s = await _agree_with_server(handle, await _query(handle, QUERY_RUN_STATUS, StatusView))
        print_status(s)
        if s.transitions:
            table = Table("#", "from", "to")
            for i, (a, b) in enumerate(s.transitions, 1):
                table.add_row(str(i), a, b)
            console.print(table)
        if s.pending_approval:
            show_pending(s.pending_approval)
        return 0

    raise typer.Exit(run(_run()))


@app.command("outputs")
@connects
def outputs(
    workflow_id: str = typer.Argument(..., help="The writing run's workflow id."),
    show: str | None = typer.Option(None, "--show", help="Print one artifact's text: `final` (the final post) or "
                                    "an artifact name from the table (e.g. draft_v1_m-a.md, run_summary.md). "
                                    "Read through the worker: no shared disk needed."),
    out: Path | None = typer.Option(None, "--out", help="With --show: save the text to this file instead."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Every state's latest outputs (artifact names, words, previews) and the final post (`outputs` query);
    --show NAME prints an artifact, read through Temporal by a worker on the run's queue."""
    tsettings = conn.settings()

    async def _run() -> int:
        from core.temporal import connect

        client = await connect(tsettings)
        desc = await describe_run(client, workflow_id, WORKFLOW_TYPE)
        await require_worker(client, desc.task_queue, agents=False)
        view = await _query(client.get_workflow_handle(workflow_id), QUERY_OUTPUTS, OutputsView)
        if show is not None:
            ref = _find_artifact(view, show)
            if ref is None and desc.status == WorkflowExecutionStatus.COMPLETED:  # run_summary.md, state_log.jsonl
                result = await client.get_workflow_handle(workflow_id, result_type=WritingResult).result()
                ref = result.artifacts.get(show)
            if ref is None:
                raise CliError(f"{workflow_id} has no artifact {show!r}: use `final` or a name from "
                               f"`colloquy write outputs {workflow_id}`", ExitCode.REFUSED)
            text = await read_artifact(client, ref, desc.task_queue)
            if out is not None:
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(text, encoding="utf-8")
                console.print(f"saved {out} ({len(text)} characters)", soft_wrap=True)
            else:
                console.print(text, markup=False, highlight=False, soft_wrap=True)
            return 0
        print_outputs(view)
        console.print(f"print one: colloquy write outputs {workflow_id} --show NAME|final  (read through the "
                      "worker; the paths are on its disk)", soft_wrap=True)
        return 0

    raise typer.Exit(run(_run()))


def _find_artifact(view: OutputsView, name: str):  # noqa: ANN202 — ArtifactRef | None
    if name == "final":
        return view.final_post.ref if view.final_post else None
    for items in view.outputs.values():
        for o in items:
            if o.ref.name == name:
                return o.ref
    if view.final_post and view.final_post.ref.name == name:
        return view.final_post.ref
    return None
