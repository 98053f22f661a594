"""The `colloquy` command line. Every subcommand has --help."""

from __future__ import annotations

import os
import sys

import core.settings  # (offline litellm price map; must precede any litellm import)

# isort: split
import typer

from client import keys
from client.common import (
    console,
    err_console,
    fail,
    run,
)
from client.connection import NO_FLAGS, Connection, connects
from client.discussion import cli as discuss
from client.errors import EXIT_CODES_HELP, ExitCode
from client.interview import cli as interview
from client.query import cli as notes
from client.study import cli as study
from client.web import serve
from client.writing import cli as write
from client.writing import history

app = typer.Typer(
    help="Colloquy: LLM multi-agent pipelines (interview, notes/query, writing, discussion) as Temporal workflows.",
    no_args_is_help=True, pretty_exceptions_enable=False, epilog=EXIT_CODES_HELP,
)
server_app = typer.Typer(help="The embedded Temporal dev server (SQLite under .data/, Web UI on :8233).",
                         no_args_is_help=True)
app.add_typer(server_app, name="server")
app.add_typer(interview.app, name="interview")
app.add_typer(study.app, name="study")
app.add_typer(notes.app, name="notes")
app.add_typer(write.app, name="write")
app.command("discuss")(discuss.discuss)
app.command("discuss-report")(discuss.discuss_report)
app.add_typer(history.app, name="history")
app.add_typer(keys.app, name="keys")
app.command("serve")(serve.serve)


@server_app.command("start")
def server_start(port: int | None = typer.Option(None, help="gRPC port (default: the port this data dir's server "
                                                 "last ran on, else 7233)."),
                 ui_port: int | None = typer.Option(None, help="Web UI port (default: gRPC port + 1000, i.e. 8233; "
                                                    "clients print links on that convention, or TEMPORAL_UI_URL)."),
                 timeout: float = typer.Option(30.0, help="Seconds to wait for health.")) -> None:
    """Start the embedded server (reuses one that is already running), register search attributes.

    The ports are remembered in .data/temporal.json: `server status`, `server stop` and `demo` find the server
    without `--port`. Exit codes: 0 running, 1 it could not start."""
    from core.server import DevServer

    server = DevServer.remembered(port=port)
    if ui_port is not None:
        server = DevServer(port=server.port, ui_port=ui_port, ip=server.ip)
    try:
        status = server.start(timeout=timeout)
    except (RuntimeError, TimeoutError, FileNotFoundError) as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None
    verb = "reused" if status.reused else "started"
    console.print(f"Temporal server {verb}: {status.describe()}")
    if status.notice:
        err_console.print(f"[yellow]warning:[/yellow] {status.notice}", highlight=False)
    if server.codec_endpoint and not status.reused:
        console.print(f"Payload encryption is on: the Web UI decodes through {server.codec_endpoint} "
                      "(run `colloquy serve`; docs/platform.md, Encryption)", highlight=False)


@server_app.command("stop")
def server_stop(port: int | None = typer.Option(None, help="gRPC port (default: the remembered one).")) -> None:
    """Stop the embedded server started by `colloquy server start` (by pid file). State is kept."""
    from core.server import DevServer

    server = DevServer.remembered(port=port)
    stopped = server.stop()
    console.print(f"Temporal server on {server.address} stopped." if stopped else
                  f"No embedded Temporal server was running (looked for {server.address}).")


@server_app.command("status")
def server_status(port: int | None = typer.Option(None, help="gRPC port (default: the remembered one).")) -> None:
    """Say whether the embedded server runs and is healthy. Exit code 1 when it is not running."""
    from core.server import DevServer

    status = DevServer.remembered(port=port).status()
    console.print(f"Temporal server: {status.describe()}")
    raise typer.Exit(0 if status.running else 1)


@app.command("worker")
@connects
def worker(
    role: str = typer.Option("all", help="all | workflows (orchestration + storage) | llm (agent activities) | "
                                         "audio (transcription and speech, on <queue>-audio)."),
    task_queue: str = typer.Option(core.settings.TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Base task queue; LLM "
                                   "activities use <queue>-llm."),
    max_concurrent_activities: int | None = typer.Option(
        None, help="Activity slots per worker (LLM calls in flight) [env COLLOQUY_WORKER_MAX_CONCURRENT_ACTIVITIES, "
        "or COLLOQUY_MAX_CONCURRENT_ACTIVITIES; default 500]."),
    max_concurrent_workflow_tasks: int | None = typer.Option(
        None, help="Workflow tasks in flight [env COLLOQUY_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS; default 100]."),
    max_cached_workflows: int | None = typer.Option(
        None, help="Sticky workflow cache size; keep it above the live sessions one worker holds "
        "[env COLLOQUY_WORKER_MAX_CACHED_WORKFLOWS; default 1000]."),
    workflow_task_pollers: int | None = typer.Option(
        None, help="Workflow-task long polls per worker, >= 2 [env COLLOQUY_WORKER_WORKFLOW_TASK_POLLERS; default 5]."),
    activity_task_pollers: int | None = typer.Option(
        None, help="Activity-task long polls per worker [env COLLOQUY_WORKER_ACTIVITY_TASK_POLLERS; default 5]."),
    sticky_queue_timeout: float | None = typer.Option(
        None, help="Seconds a workflow task waits on this worker's sticky queue before any worker may take it "
        "[env COLLOQUY_WORKER_STICKY_QUEUE_TIMEOUT_S; default 10]."),
    register_search_attributes: bool = typer.Option(
        False, "--register-search-attributes", envvar="COLLOQUY_REGISTER_SEARCH_ATTRIBUTES",
        help="Register Colloquy's search attributes on the cluster first (self-hosted; the embedded server "
        "has them already)."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Run Colloquy workers until SIGTERM/Ctrl-C (graceful shutdown: in-flight activities get 30 s).

    Logs at INFO by default (COLLOQUY_LOG_LEVEL): one line per agent call (model, tokens, latency) and one line
    per expected, retried failure (agent, attempt, error class, next delay); tracebacks only for bugs. Before it
    polls, the worker sets Python's garbage collector for a long run (startup heap frozen, young generation every
    10,000 allocations; COLLOQUY_WORKER_GC_TUNED=0 keeps Python's defaults)."""
    from core.logging import configure_logging

    configure_logging(level=os.environ.get("COLLOQUY_LOG_LEVEL", "INFO"))
    if role not in ("all", "workflows", "llm", "audio"):
        err_console.print(f"[red]error:[/red] unknown role {role!r}: use all, workflows, llm or audio")
        raise typer.Exit(2)
    from activities.llm.config import ConfigError
    from core.settings import WorkerTuning
    from workers.collector import gc_tuned
    from workers.main import build_workers, run_workers
    from workers.registry import check_agent_config

    try:
        tuned_gc = gc_tuned()
        tuning = WorkerTuning.from_env(
            max_concurrent_activities=max_concurrent_activities,
            max_concurrent_workflow_tasks=max_concurrent_workflow_tasks, max_cached_workflows=max_cached_workflows,
            workflow_task_pollers=workflow_task_pollers, activity_task_pollers=activity_task_pollers,
            sticky_queue_timeout_s=sticky_queue_timeout)
    except ValueError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None

    try:
        check_agent_config()  # before connecting: a misspelt agent in the config stops the worker at once
    except ConfigError as exc:
        err_console.print(f"[red]configuration error:[/red] {exc}")
        raise typer.Exit(2) from None
    from client.artifacts import checked_store_settings
    from client.errors import CliError

    try:
        store_text = checked_store_settings()  # unusable store settings stop the worker at once, too
    except CliError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None

    from core.settings import import_roots, notes_root

    try:
        roots = import_roots()   # the folders inputs may name (docs/operations.md): a malformed value stops it now
    except ValueError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None
    roots_text = f"notes root {notes_root()}; import roots " + ", ".join(f"{n}={p}" for n, p in sorted(roots.items()))

    async def _run() -> bool:
        client = await conn.connect()
        if register_search_attributes:
            from temporalio.service import RPCError

            from core.server import ensure_search_attributes

            try:
                added = await ensure_search_attributes(client, client.namespace)
                console.print(f"search attributes: {'added ' + ', '.join(added) if added else 'all present'}")
            except RPCError as exc:  # e.g. Temporal Cloud: register them in the Cloud UI / tcld instead
                err_console.print(f"[yellow]warning:[/yellow] cannot register search attributes: {exc}")
        workers = build_workers(client, task_queue, role, tuning=tuning)  # type: ignore[arg-type]
        queues = ", ".join(w.task_queue for w in workers)
        gc_text = "gc tuned (startup heap frozen, young generation 10,000)" if tuned_gc else "gc: Python's defaults"
        console.print(f"Colloquy worker ({role}) polling {queues} on {client.service_client.config.target_host}"
                      f" namespace {client.namespace}; {tuning.describe()}; {gc_text}; artifacts: {store_text}; "
                      f"{roots_text}",
                      highlight=False)
        if role in ("all", "llm"):
            from workers.main import llm_tuning

            console.print(llm_tuning(tuning)[1], highlight=False)
        return await run_workers(workers, tune_gc=tuned_gc)

    stopped_on_request = run(_run())
    console.print("Colloquy worker stopped." if stopped_on_request else "[red]Colloquy worker exited.[/red]")
    raise typer.Exit(0 if stopped_on_request else 1)


@app.command("health")
@connects
def health(
    role: str = typer.Option("all", help="The worker role to check: all | workflows | llm."),
    task_queue: str = typer.Option("colloquy", envvar="COLLOQUY_TASK_QUEUE", help="Base task queue."),
    this_host: bool = typer.Option(False, "--this-host", help="Require a poller on this host (the worker "
                                   "container's own check: HEALTHCHECK, k8s probes)."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Check that the Temporal server answers and that workers poll Colloquy's task queues.

    Asks the server which workers polled each queue recently (DescribeTaskQueue). Exit codes: 0 healthy,
    3 a queue has no (matching) poller, 2 the server cannot be reached or the settings are unusable."""
    import asyncio

    from core.pollers import check_queues, queues_for_role

    try:
        queues_for_role(task_queue, role)
    except ValueError as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None

    async def _run() -> list:
        client = await conn.connect()
        try:
            return await check_queues(client, task_queue, role, this_host)
        except Exception as exc:  # RPC failure: the server is not answering properly
            raise ConnectionError(f"the Temporal server did not answer DescribeTaskQueue: {exc}") from None

    async def _bounded() -> list:
        try:
            return await asyncio.wait_for(_run(), timeout=10)
        except TimeoutError:
            raise ConnectionError("the Temporal server did not answer within 10 s") from None

    checks = run(_bounded())
    for check in checks:
        (console if check.ok else err_console).print(("ok  " if check.ok else "NOT ") + check.describe(),
                                                     highlight=False)
    raise typer.Exit(0 if all(c.ok for c in checks) else int(ExitCode.NO_WORKER))


@app.command("models")
@connects
def models(
    vram_gb: float | None = typer.Option(None, help="Pretend this much GPU memory (tier preview; the worker's "
                                         "view too)."),
    check: bool = typer.Option(False, "--check", help="Also call every agent's model once: starts "
                               "ModelCheckWorkflow on a running worker (`colloquy worker`) and prints the result."),
    agent: list[str] = typer.Option([], "--agent", help="With --check: only these agents (repeatable)."),
    local: bool = typer.Option(False, "--local", help="Only this shell's view: ask no worker (no server needed)."),
    task_queue: str = typer.Option(core.settings.TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="The workers' "
                                   "base task queue (the LLM workers poll <queue>-llm)."),
    timeout: float | None = typer.Option(None, help="With --check: seconds to wait for the workflow (default 300, or "
                                         "90 per agent in turn where the worker's models serve few calls at once)."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Print, per agent, the model it would use and why (profile, tier, provider, fallback, GPU tier): as this
    shell resolves it, and as a running LLM worker does.

    The local view comes from this process's config (COLLOQUY_* env, colloquy.yaml, GPU); the worker view is
    asked from a worker polling <queue>-llm (WorkerModelsWorkflow: its env, config and GPU; no model is called).
    They differ when the worker runs elsewhere (a container, another machine). --check then calls every agent's
    model once on the worker and prints the worker's profile above its results."""
    from rich.table import Table

    from activities.llm.config import AGENT_REGISTRY
    from activities.platform.model_check import model_table
    from workers import registry

    registry.llm_activities()  # imports every agent module, which registers its defaults
    mine = model_table(vram_gb)
    if mine.error:
        err_console.print(f"[red]configuration error:[/red] {mine.error}")
        raise typer.Exit(2)
    unknown = sorted(set(agent) - set(AGENT_REGISTRY))
    if check and unknown:
        err_console.print(f"[red]error:[/red] unknown agent(s) {', '.join(unknown)}: known are "
                          f"{', '.join(sorted(AGENT_REGISTRY))}")
        raise typer.Exit(2)
    _print_model_table(mine, f"Local view (this shell, host {mine.host})")
    if local:
        return
    temporal = conn.settings()
    agents = list(agent) or sorted(AGENT_REGISTRY)
    theirs, report = run(_ask_worker(temporal, task_queue, vram_gb, agents if check else None, timeout))
    console.print()
    if theirs.error:
        err_console.print(f"[red]the worker's configuration is broken:[/red] {theirs.error}", highlight=False)
        raise typer.Exit(1)
    _print_model_table(theirs, f"Worker view (an LLM worker on {task_queue}-llm, host {theirs.host})", mine)
    if report is None:
        return
    wf_id, result = report
    # Each agent's own output schema, through the worker: the worker's profile, model and structured-output mode.
    rows = Table("agent", "ok", "worker profile", "provider", "model", "output (mode)", "tokens in/out",
                 "cost USD", "queued ms", "latency ms", "error",
                 title=f"Model check on the worker (profile {theirs.profile})")
    for row in result.rows:
        u = row.usage
        rows.add_row(row.agent, "yes" if row.ok else "[red]no[/red]", row.profile or "-", row.provider or "-",
                     row.model or "-", f"{row.output_schema or '-'} ({row.structured_output or '-'})",
                     f"{u.input_tokens}/{u.output_tokens}" if u else "-", f"{u.cost_usd:.6f}" if u else "-",
                     f"{u.queued_ms:.0f}" if u else "-", f"{u.latency_ms:.0f}" if u else "-", (row.error or "")[:200])
    console.print(f"Model check {wf_id}: {temporal.workflow_url(wf_id)}", highlight=False)
    console.print(rows)
    failed = [r for r in result.rows if not r.ok]
    console.print(f"{result.colloquy_status}: {len(result.rows) - len(failed)}/{len(result.rows)} agents answered; "
                  f"total cost ${result.totals.cost_usd:.6f}")
    for row in failed:  # one clear line per failed agent: which, and why
        err_console.print(f"error: agent {row.agent} failed the check: {(row.error or 'no reason given')[:500]}",
                          highlight=False, markup=False)
    raise typer.Exit(1 if failed else 0)


def _print_model_table(view, title: str, local=None) -> None:  # type: ignore[no-untyped-def]  # noqa: ANN001
    """One view of the agent table (models.platform.workflow.ModelTable); beside `local`, rows that differ are marked."""
    from rich.table import Table

    console.print(f"[bold]{title}[/bold]", highlight=False)
    console.print(f"Profile: [bold]{view.profile}[/bold]  default provider: {view.default_provider}  "
                  f"fallback: {view.fallback_provider or '-'}")
    console.print(f"GPU: {view.gpu}; local tier: {view.local_tier}")
    if view.llm_slots_why:
        slots = f"{view.llm_slots}" if view.llm_slots is not None else "not bounded by the models"
        console.print(f"LLM worker slots: {slots} ({view.llm_slots_why})", highlight=False)
    console.print(f"Config sources: {'; '.join(view.sources)}")
    if view.default_provider == "offline":
        console.print("[yellow]offline = the deterministic test double, not a model.[/yellow]")
    mine = {r.agent: r for r in local.rows} if local is not None else {}
    columns = ["agent", "tier", "model (litellm id)", "fallback", "why"] + (["vs local"] if local else [])
    table = Table(*columns)
    for r in view.rows:
        cells = [r.agent, r.tier, r.model, r.fallback or "-", r.why]
        if local is not None:
            other = mine.get(r.agent)
            same = other is not None and (other.model, other.fallback) == (r.model, r.fallback)
            cells.append("same" if same else "[yellow]differs[/yellow]" if other else "only here")
        table.add_row(*cells)
    console.print(table)
    if local is not None:
        differ = sum(1 for r in view.rows if (mine.get(r.agent) and (mine[r.agent].model, mine[r.agent].fallback)
                                              != (r.model, r.fallback)))
        console.print(f"{differ} agent(s) resolve differently on the worker than in this shell" if differ else
                      "the worker resolves every agent as this shell does", highlight=False)


async def _ask_worker(temporal, task_queue: str, vram_gb: float | None,  # type: ignore[no-untyped-def]  # noqa: ANN001
                      check_agents: list[str] | None, timeout: float | None):
    """(the worker's ModelTable, (model check id, report) or None): both from workers on `task_queue`."""
    import uuid
    from datetime import timedelta

    from client.worker_check import require_worker
    from core.temporal import connect
    from models.platform.workflow import WORKER_MODELS_WORKFLOW_TYPE, ModelTable, WorkerModelsRequest

    client = await connect(temporal)
    await require_worker(client, task_queue)  # within 3 s: both the workflow and the LLM worker are needed
    table = await client.execute_workflow(
        WORKER_MODELS_WORKFLOW_TYPE, WorkerModelsRequest(vram_gb=vram_gb), id=f"worker-models-{uuid.uuid4().hex[:8]}",
        task_queue=task_queue, result_type=ModelTable, execution_timeout=timedelta(seconds=60),
        static_summary="the agent table as an LLM worker resolves it")
    report = None
    if check_agents is not None and not table.error:
        report = await _model_check(check_agents, client, task_queue, timeout, table.llm_slots)
    return table, report


async def _model_check(agents: list[str], client, task_queue: str,  # type: ignore[no-untyped-def]  # noqa: ANN001
                       timeout: float | None, slots: int | None):
    """Start ModelCheckWorkflow for `agents` on the workers' queue and wait for its report. Where the worker's
    models serve `slots` calls at once, at most that many checks run at once, each with its own budget."""
    import uuid
    from datetime import UTC, datetime, timedelta

    from models.platform.workflow import MODEL_CHECK_WORKFLOW_TYPE, ModelCheckReport, ModelCheckRequest

    wf_id = f"model-check-{datetime.now(UTC):%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:4]}"
    parallel = min(slots, len(agents)) if slots else None
    if timeout is None:
        timeout = 300.0 if parallel is None else max(300.0, 90.0 * -(-len(agents) // parallel) + 60)
    handle = await client.start_workflow(
        MODEL_CHECK_WORKFLOW_TYPE, ModelCheckRequest(agents=agents, parallel=parallel), id=wf_id,
        task_queue=task_queue,
        result_type=ModelCheckReport,
        execution_timeout=timedelta(seconds=timeout), static_summary=f"model check of {len(agents)} agent(s)")
    result: ModelCheckReport = await handle.result()  # a failure: one line (client/errors.py), exit code 1
    return wf_id, result


@app.command("demo")
def demo(
    keep_running: bool = typer.Option(True, "--keep-running/--stop-server",
                                      help="Leave the embedded server up afterwards so the printed Web UI link works "
                                      "(stop it with `colloquy server stop`), or stop it when the demo ends."),
    port: int | None = typer.Option(None, help="Start (or reuse) the embedded server on this gRPC port (default: "
                                    "the remembered one, else 7233)."),
    address: str | None = typer.Option(None, "--address", help="Use this running Temporal server instead of the "
                                       "embedded one (host:port; TLS and namespace from TEMPORAL_* / profiles)."),
) -> None:
    """The main job: start the embedded server + workers, rehearse an interview end to end, print the essay path."""
    from client.demo import run_demo

    if port is not None and address is not None:
        err_console.print("[red]error:[/red] give --port (embedded server) or --address (your server), not both")
        raise typer.Exit(2)
    code = run_demo(keep_server=keep_running, port=port, address=address)
    raise typer.Exit(code)


def _document_exit_codes(typer_app: typer.Typer) -> None:
    """Every command's --help ends with the one exit-code table (client/errors.py)."""
    typer_app.info.epilog = typer_app.info.epilog or EXIT_CODES_HELP
    for command in typer_app.registered_commands:
        command.epilog = command.epilog or EXIT_CODES_HELP
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _document_exit_codes(group.typer_instance)


_document_exit_codes(app)


def main() -> None:
    from core.logging import configure_logging
    from core.private import private_umask

    private_umask()  # files Colloquy writes (transcripts, notes, artifacts, its server's database) are 0600

    configure_logging(level=os.environ.get("COLLOQUY_LOG_LEVEL", "WARNING"))
    code = 0
    try:
        try:
            app()
        except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 — expected errors: one line and their code
            fail(exc)  # re-raises a bug with its traceback
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except typer.Exit as exc:
        code = exc.exit_code
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # see notes: avoid the SDK's occasional abort at interpreter exit


if __name__ == "__main__":
    main()
