"""The notes client library: start a query, follow it, answer its clarifying questions, read the global
context, reparse — what `colloquy notes`, its HTTP API (client/web/query/api.py) and the tests share."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

from client.common import (
    console,
    err_console,
)
from client.query.paths import notes_dir_for_worker
from models.query.workflow import (
    QUERY_PENDING_CLARIFICATION,
    UPDATE_CLARIFY,
    WORKFLOW_TYPE,
    ClarifyAck,
    PendingClarification,
    QueryResult,
)
from rules.text import workflow_id


def local_offset() -> int:
    """This terminal's UTC offset in minutes: notes are dated on the user's clock, not the server's."""
    from datetime import datetime

    delta = datetime.now().astimezone().utcoffset()
    return int(delta.total_seconds() // 60) if delta else 0


def workflow_id_for(app_id: str, text: str) -> str:
    return workflow_id(f"notes-{app_id}", text, uuid.uuid4().hex[:12], 32)  # never the note's words (rules/text.py)


Asker = Callable[[object], Awaitable[object | None]]


# The workflow's contract, by name (models/query/workflow.py): the client never imports workflows/.
async def start_query(client, req, wf_id: str, task_queue: str):  # noqa: ANN001, ANN201
    """Start a QueryWorkflow; the handle's result() is a QueryResult."""
    return await client.start_workflow(WORKFLOW_TYPE, req, id=wf_id, task_queue=task_queue, result_type=QueryResult,
                                       static_summary=f"Notes: {' '.join(req.text.split())[:120]}")


def query_handle(client, wf_id: str):  # noqa: ANN001, ANN201
    """A handle on an existing QueryWorkflow (its result() is a QueryResult)."""
    return client.get_workflow_handle(wf_id, result_type=QueryResult)


async def pending_clarification(handle) -> PendingClarification | None:  # noqa: ANN001
    return await handle.query(QUERY_PENDING_CLARIFICATION,
                              result_type=PendingClarification | None)  # type: ignore[arg-type]


async def send_clarification(handle, answer) -> ClarifyAck:  # noqa: ANN001
    return await handle.execute_update(UPDATE_CLARIFY, answer, result_type=ClarifyAck)


async def follow_query(handle, ask: Asker, poll_s: float = 0.3):  # noqa: ANN001, ANN201
    """Drive a running QueryWorkflow to its result: whenever a clarification is pending, `ask` gets it and
    returns a ClarifyAnswer (None = leave it pending: the workflow keeps waiting). Returns the QueryResult,
    or None when the user chose to leave it waiting."""
    from temporalio.client import WorkflowUpdateFailedError

    result_task = asyncio.ensure_future(handle.result())
    try:
        while not result_task.done():
            pending = await pending_clarification(handle)
            if pending is not None:
                reply = await ask(pending)
                if reply is None:
                    return None
                try:
                    await send_clarification(handle, reply)
                except WorkflowUpdateFailedError as err:
                    err_console.print(f"[red]not accepted:[/red] {getattr(err.cause, 'message', err.cause)}")
                continue
            await asyncio.wait([result_task], timeout=poll_s)  # UI refresh cadence, not a test wait
        return result_task.result()
    finally:
        if not result_task.done():
            result_task.cancel()


def question_prompt(q):  # noqa: ANN001, ANN201
    """One clarifying question as a rich Prompt (no default shown: an empty default used to print "():")."""
    from rich.markup import escape
    from rich.prompt import Prompt

    hint = f" [{' / '.join(q.options)}]" if q.options else ""
    return Prompt(escape(f"{q.id}. {q.question}{hint}"), console=console, show_default=False)


async def terminal_ask(pending) -> object | None:  # noqa: ANN001
    """Ask the pending questions on the terminal. Empty answer to all = decline; Ctrl-C/Ctrl-D = leave pending."""
    from rich.markup import escape

    from models.query.workflow import ClarifyAnswer

    console.print(f"\n[bold]I need to ask you something[/bold] — {escape(pending.context_explanation)}")
    console.print(f"[dim](empty answers decline: {pending.fallback_action or 'I answer with what I have'}; "
                  f"Ctrl-C leaves the question open until {pending.deadline:%Y-%m-%d %H:%M} UTC)[/dim]")
    answers: dict[str, str] = {}
    try:
        for q in pending.questions:
            prompt = question_prompt(q)
            text: str = await asyncio.to_thread(prompt, default="")
            if text.strip():
                answers[q.id] = text.strip()
    except (KeyboardInterrupt, EOFError):
        return None
    if not answers:
        return ClarifyAnswer(request_id=pending.request_id, decline=True)
    return ClarifyAnswer(request_id=pending.request_id, answers=answers)


async def read_global_context(client, task_queue: str, notes_dir: str | None,  # noqa: ANN001
                              check_worker: bool = True) -> str:
    """The global context as the worker's store holds it (NotesContextWorkflow), not the client's folder."""
    from client.worker_check import require_worker
    from models.query.workflow import CONTEXT_WORKFLOW_TYPE, ContextRequest

    if check_worker:
        await require_worker(client, task_queue, agents=False)
    return await client.execute_workflow(
        CONTEXT_WORKFLOW_TYPE, ContextRequest(notes_dir=notes_dir_for_worker(notes_dir)), id=f"notes-context-{uuid.uuid4().hex[:8]}",
        task_queue=task_queue, result_type=str, static_summary="Read the notes' global context")


async def run_reparse(client, task_queue: str, app_id: str, notes_dir: str | None,  # noqa: ANN001, ANN201
                      limit: int | None = None, check_worker: bool = True):
    """ReparseNotesWorkflow on the worker: the notes tagged needs-parsing in its store, parsed now."""
    from client.worker_check import require_worker
    from models.query.workflow import REPARSE_WORKFLOW_TYPE, ReparseRequest, ReparseResult

    if check_worker:
        await require_worker(client, task_queue)
    req = ReparseRequest(app_id=app_id, notes_dir=notes_dir_for_worker(notes_dir))
    if limit:
        req.limit = limit
    wf_id = f"notes-reparse-{uuid.uuid4().hex[:8]}"
    result = await client.execute_workflow(
        REPARSE_WORKFLOW_TYPE, req, id=wf_id, task_queue=task_queue, result_type=ReparseResult,
        static_summary="Parse the notes kept unparsed (needs-parsing)")
    return wf_id, result


async def answer_workflow(client, wf_id: str, ask: Asker):  # noqa: ANN001, ANN201
    """`colloquy notes answer ID`: (result, already_finished). A run that already finished is not resumed:
    the caller says so instead of silently reprinting the old answer."""
    from temporalio.client import WorkflowExecutionStatus

    from client.worker_check import describe_run, require_worker, while_worker

    handle = query_handle(client, wf_id)
    desc = await describe_run(client, wf_id, WORKFLOW_TYPE)
    if desc.status != WorkflowExecutionStatus.RUNNING:
        return await handle.result(), True
    await require_worker(client, desc.task_queue)  # the pending question is a query: a worker answers it
    return await while_worker(client, desc.task_queue, follow_query(handle, ask),
                              f"`colloquy notes answer {wf_id}`"), False


def print_result(result, wf_id: str, show_usage: bool = True) -> None:  # noqa: ANN001
    from rich.markup import escape

    style = "yellow" if result.partial else "green"
    console.print(f"\n[{style}]{escape(result.response)}[/{style}]")
    if result.evidence_cited:
        console.print(f"[dim]evidence: {', '.join(dict.fromkeys(result.evidence_cited))}[/dim]")
    for w in result.warnings:
        console.print(f"[dim yellow]note: {escape(w)}[/dim yellow]")
    if result.reparsed and result.reparsed.parsed:
        console.print(f"[dim]parsed now, kept unparsed earlier: {', '.join(result.reparsed.parsed)}[/dim]")
    if not show_usage:   # the repl: only a degraded answer says its status
        if result.partial:
            console.print(f"[dim]{result.colloquy_status}[/dim]")
        return
    console.print(f"[dim]{result.colloquy_status} · {result.input_type.value} · domains "
                  f"{', '.join(result.domains_loaded)} · {result.entries_read} entries read · {result.usage.calls} LLM calls, "
                  f"{result.usage.input_tokens + result.usage.output_tokens} tokens · workflow {wf_id}[/dim]")
