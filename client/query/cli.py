"""`colloquy notes` — personal notes in, grounded answers out (the query pipeline, seed 001 §16.3).

    colloquy notes "Why was my bench heavy last week?"   one input (log, question, both or correction)
    colloquy notes                                      interactive REPL (each line one input)
    colloquy notes import DIR                           every file a LOG, with a progress bar
    colloquy notes context                              the global context the Observer keeps
    colloquy notes reparse                              parse the notes a Router failure kept as written
    colloquy notes answer WORKFLOW_ID                   answer a clarifying question later

Clarifying questions are asked in the terminal and sent with the `clarify` update (models.query.workflow.UPDATE_CLARIFY). Closing the terminal does not
lose anything: the workflow keeps waiting in Temporal (until its clarification timeout), and `answer` resumes it.
Needs a server and a worker: `colloquy server start` and `colloquy worker` (or `make up`).
"""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any

import typer
from typer.core import TyperGroup

from client.common import (
    console,
    err_console,
    run,
)
from client.connection import NO_FLAGS, Connection, connects
from client.query.library import (
    Asker,
    answer_workflow,
    follow_query,
    local_offset,
    pending_clarification,
    print_result,
    query_handle,
    question_prompt,
    read_global_context,
    run_reparse,
    send_clarification,
    start_query,
    terminal_ask,
    workflow_id_for,
)
from client.query.options import AppOpt, NotesDirOpt, QueueOpt, _report_failure
from client.query.paths import notes_dir_for_worker
from client.web.query.api import API_MAX_BODY, build_api, wait_for_outcome


class _NotesGroup(TyperGroup):
    """`colloquy notes "text"` runs `ask`; bare `colloquy notes` runs the REPL; subcommands work as usual."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # noqa: ANN401
        if not args or (args[0].startswith("-") and args[0] not in ("--help", "-h")):
            args = ["repl", *args]
        elif args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["ask", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(cls=_NotesGroup, help="Personal notes: log entries and ask questions about them (query "
                  "pipeline). `colloquy notes \"text\"` = `colloquy notes ask \"text\"`.")

TodayOpt = typer.Option(None, "--today", help="Pretend today is YYYY-MM-DD (demos on old notes).")
TzOpt = typer.Option(None, "--tz", envvar="COLLOQUY_TZ", help="Your time zone (IANA name like Asia/Seoul, or "
                     "+09:00); default: this terminal's.")
MaxEntriesOpt = typer.Option(None, "--max-entries", min=1, help="Most entries one search reads (default 2000); "
                             "a larger scope is answered partially and says how much was read.")


# ============================================================================================ commands
async def _ask_once(client, text: str, app_id: str, notes_dir: str | None, task_queue: str,  # noqa: ANN001
                    today: str | None, session_context: str | None = None, tz: str | None = None,
                    max_entries: int | None = None):  # noqa: ANN202
    from models.query.workflow import QueryRequest
    from rules.query.clock import utc_offset_minutes

    wf_id = workflow_id_for(app_id, text)
    req = QueryRequest(text=text, app_id=app_id, notes_dir=notes_dir_for_worker(notes_dir), session_context=session_context,
                       today=date.fromisoformat(today) if today else None,
                       utc_offset_minutes=utc_offset_minutes(tz) if tz else local_offset())
    if max_entries:
        req.max_entries = max_entries
    from client.worker_check import require_worker, while_worker

    await require_worker(client, task_queue)  # within 3 s, instead of a silent spinner
    handle = await start_query(client, req, wf_id, task_queue)
    with console.status("thinking…") as status:
        async def ask(pending):  # noqa: ANN001, ANN202
            status.stop()
            reply = await terminal_ask(pending)
            status.start()
            return reply

        result = await while_worker(client, task_queue, follow_query(handle, ask),
                                    f"`colloquy notes answer {wf_id}`")
    if result is None:
        console.print(f"[yellow]Left open (waiting_user).[/yellow] The workflow waits for your answer: "
                      f"`colloquy notes answer {wf_id}`")
    else:
        print_result(result, wf_id)
    return result


@app.command("ask")
@connects
def ask_cmd(text: str = typer.Argument(..., help="A note, a question, both, or a correction."),
            app_id: str = AppOpt, notes_dir: str | None = NotesDirOpt, task_queue: str = QueueOpt,
            today: str | None = TodayOpt, tz: str | None = TzOpt, max_entries: int | None = MaxEntriesOpt,
    conn: Connection = NO_FLAGS,
) -> None:
    """One input: the Router decides whether it is a log, a question, both, or a correction."""
    from client.common import announce_agents  # the offline label, an unreachable provider (one rule)
    announce_agents()
    _check_tz(tz)
    _check_today(today)

    async def _run() -> None:
        client = await conn.connect()
        try:
            await _ask_once(client, text, app_id, notes_dir, task_queue, today, tz=tz, max_entries=max_entries)
        except Exception as exc:  # noqa: BLE001
            _report_failure(exc)

    run(_run())


@app.command("repl")
@connects
def repl_cmd(app_id: str = AppOpt, notes_dir: str | None = NotesDirOpt, task_queue: str = QueueOpt,
             today: str | None = TodayOpt, tz: str | None = TzOpt, max_entries: int | None = MaxEntriesOpt,
    conn: Connection = NO_FLAGS,
) -> None:
    """Interactive: each line is one input; recent exchanges are passed as session context. `exit` quits."""
    from rich.prompt import Prompt

    from client.common import announce_agents  # the offline label, an unreachable provider (one rule)
    announce_agents()

    _check_tz(tz)
    _check_today(today)

    async def _run() -> None:
        client = await conn.connect()
        history: list[str] = []
        console.print(f"[bold]colloquy notes[/bold] ({app_id}) — log, ask, or correct. `exit` or Ctrl-D quits.")
        while True:
            try:
                line = await asyncio.to_thread(Prompt.ask, "[bold cyan]›[/bold cyan]", console=console)
            except (EOFError, KeyboardInterrupt):
                break
            if line.strip().lower() in ("exit", "quit"):
                break
            if not line.strip():
                continue
            try:
                result = await _ask_once(client, line, app_id, notes_dir, task_queue, today,
                                         "\n".join(history[-6:]) or None, tz=tz, max_entries=max_entries)
            except Exception as exc:  # noqa: BLE001
                from temporalio.client import WorkflowFailureError

                if not isinstance(exc, WorkflowFailureError):
                    raise  # no worker, unreachable server, ...: run() prints it as one line and exits
                err_console.print(f"[red]error:[/red] {getattr(exc.cause, 'message', exc.cause)}")
                continue
            if result is not None:
                history += [f"user: {line}", f"assistant: {result.response[:300]}"]

    run(_run())


@app.command("answer")
@connects
def answer_cmd(workflow_id: str = typer.Argument(..., help="The notes-… workflow id waiting for you."), conn: Connection = NO_FLAGS) -> None:
    """Answer (or decline) a clarifying question a closed terminal left open, then show the answer."""
    async def _run() -> None:
        client = await conn.connect()
        try:
            result, finished = await answer_workflow(client, workflow_id, terminal_ask)
        except Exception as exc:  # noqa: BLE001
            _report_failure(exc)
            return
        if finished:
            console.print(f"[yellow]Nothing to answer:[/yellow] {workflow_id} had already finished; its answer was:")
        if result is not None:
            print_result(result, workflow_id)

    run(_run())


@app.command("serve")
@connects
def serve_cmd(port: int = typer.Option(8765, help="Port on 127.0.0.1."), app_id: str = AppOpt,
              notes_dir: str | None = NotesDirOpt, task_queue: str = QueueOpt,
              wait: float = typer.Option(30.0, help="Seconds a request waits for the answer before 202."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Small HTTP API on 127.0.0.1 (seed §16.3): POST /input, GET /context, plus clarify/status routes.

    The same API is served by `colloquy serve` under /notes (behind its token, beside the interview pages); this
    standalone form stays for scripts that use it without a token on its own port."""
    from aiohttp import web

    async def _run() -> None:
        client = await conn.connect()
        runner = web.AppRunner(build_api(client, task_queue, app_id, notes_dir, wait))
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        console.print(f"notes API on http://127.0.0.1:{port} (POST /input, GET /context); Ctrl-C stops it")
        try:
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()

    try:
        run(_run())
    except KeyboardInterrupt:
        pass


@app.command("reparse")
@connects
def reparse_cmd(app_id: str = AppOpt, notes_dir: str | None = NotesDirOpt, task_queue: str = QueueOpt,
                limit: int | None = typer.Option(None, "--limit", min=1, max=1000,
                                                 help="Most notes parsed in this run (default 50)."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Parse the notes a Router failure kept as written (tagged needs-parsing), in the worker's notes store.

    Each `ask`/log and each import already parses a few of them; this parses up to --limit now and reports
    "N parsed, M still unparsed (reason)". A note the Parser fails on stays flagged, with the reason."""
    from rich.markup import escape

    from rules.query.summaries import reparse_summary

    async def _run() -> None:
        client = await conn.connect()
        try:
            wf_id, result = await run_reparse(client, task_queue, app_id, notes_dir, limit)
        except Exception as exc:  # noqa: BLE001
            _report_failure(exc)
            return
        if not result.parsed and not result.unparsed:
            console.print(f"Nothing to parse: no note is tagged needs-parsing (workflow {wf_id}).")
            return
        console.print(f"{escape(reparse_summary(result))} (workflow {wf_id}).")
        for entry_id in result.parsed:
            console.print(f"[green]parsed[/green] {entry_id}")
        for entry_id, reason in result.failed.items():
            console.print(f"[yellow]still unparsed[/yellow] {entry_id}: {escape(reason)}")

    run(_run())


@app.command("context")
@connects
def context_cmd(notes_dir: str | None = NotesDirOpt, task_queue: str = QueueOpt, conn: Connection = NO_FLAGS) -> None:
    """Print the global context (the Observer's markdown), read by the worker from its notes store."""
    async def _run() -> str:
        client = await conn.connect()
        try:
            return await read_global_context(client, task_queue, notes_dir)
        except Exception as exc:  # noqa: BLE001
            _report_failure(exc)
            return ""

    text = run(_run())
    if not text.strip():
        console.print(f"[dim]No global context yet in {notes_dir or 'the worker’s notes folder'}.[/dim]")
        return
    from rich.markdown import Markdown

    console.print(Markdown(text))


def _check_tz(tz: str | None) -> None:
    if tz:
        from rules.query.clock import utc_offset_minutes

        try:
            utc_offset_minutes(tz)
        except ValueError as exc:
            err_console.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from None


def _check_today(today: str | None) -> None:
    if today:
        try:
            date.fromisoformat(today)
        except ValueError:
            err_console.print(f"[red]error:[/red] --today {today!r} is not a date: use YYYY-MM-DD", highlight=False)
            raise typer.Exit(2) from None


# `colloquy notes import` and its library (run_import, import_summary, import_preview) live in client/query/imports.py.
from client.query.imports import import_cmd, import_preview, import_summary, note_files, run_import  # noqa: E402

app.command("import")(import_cmd)
__all__ = ["API_MAX_BODY", "AppOpt", "build_api", "wait_for_outcome", "Asker", "answer_workflow", "follow_query", "local_offset", "pending_clarification", "print_result", "query_handle", "question_prompt", "read_global_context", "run_reparse", "send_clarification", "start_query", "terminal_ask", "workflow_id_for", "NotesDirOpt", "QueueOpt", "import_preview", "import_summary", "note_files", "run_import"]
