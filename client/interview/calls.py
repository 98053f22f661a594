"""The calls every interview client makes (join, rehearse, watch, the demo): reading a session's state, submitting
entries and controls through the validated updates, waiting for a state — each failure one clear
`InterviewClientError`, never a traceback. `client.interview.cli` re-exports them."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable

from rich.markup import escape
from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowQueryFailedError,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.service import RPCError, RPCStatusCode

from client.common import console, status_text
from client.errors import CliError, ExitCode
from client.worker_check import require_worker
from models.interview.entries import (
    AssistantAnswer,
    AssistantQuery,
    SessionControl,
    SubmitEntryResult,
    TranscriptEntry,
)
from models.interview.names import (
    QUERY_SESSION_STATE,
    SIGNAL_TRANSCRIPT_ENTRY,
    UPDATE_ASSISTANT_QUERY,
    UPDATE_SESSION_CONTROL,
    UPDATE_SUBMIT_ENTRY,
    WORKFLOW_TYPE,
)
from models.interview.workflow import InterviewResult, SessionState
from rules.errors import error_message

FINISHED = {"COMPLETED", "TERMINATED"}
CLOSING_STATUSES = {"FINALIZING", *FINISHED}
END_EVENTS = {"INTERVIEW_COMPLETED", "INTERVIEW_TERMINATED"}

class InterviewClientError(CliError):
    """An error a user can act on (unknown id, rejected entry, finished session): printed, never a traceback.
    Exit code 1 unless said otherwise (client/errors.py)."""

    def __init__(self, message: str, code: ExitCode = ExitCode.FAILED) -> None:
        super().__init__(message, code)


def fmt_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    s = max(0, int(round(seconds)))
    return f"{s // 60:02d}:{s % 60:02d}"


def short_id() -> str:
    return uuid.uuid4().hex[:6]


async def interview_handle(client: Client, workflow_id: str, check_worker: bool = False) -> WorkflowHandle:
    """A handle on the latest run of an interview; a clear error when there is no such workflow (exit code 4)
    or, with `check_worker`, when no worker polls its task queue (exit code 3, within 3 s)."""
    handle = client.get_workflow_handle(workflow_id, result_type=InterviewResult)
    try:
        desc = await handle.describe()
    except RPCError as exc:
        if exc.status != RPCStatusCode.NOT_FOUND:
            raise
        raise InterviewClientError(f"no interview with workflow id {workflow_id!r} in namespace "
                                   f"{client.namespace} ({exc.message})", ExitCode.REFUSED) from None
    if desc.workflow_type != WORKFLOW_TYPE:
        raise InterviewClientError(f"{workflow_id!r} is a {desc.workflow_type}, not an {WORKFLOW_TYPE}",
                                   ExitCode.USAGE)
    if check_worker:  # its queries and updates need a worker (and reading its essay does)
        await require_worker(client, desc.task_queue)
    return handle


async def session_state(handle: WorkflowHandle) -> SessionState:
    try:
        return await handle.query(QUERY_SESSION_STATE, result_type=SessionState)
    except (WorkflowQueryFailedError, RPCError) as exc:
        raise InterviewClientError(f"cannot read the state of {handle.id}: {error_message(exc)}") from None


#: How long a client waits for an entry to be acknowledged before it gives up with a clear error.
ENTRY_ACK_TIMEOUT_S = 10.0
#: This process's client id (entries carry it with an increasing client_seq, per interview).
CLIENT_ID = f"client-{uuid.uuid4().hex[:12]}"
_client_seqs: dict[str, int] = {}


def sequenced(workflow_id: str, entry: TranscriptEntry) -> TranscriptEntry:
    """The entry numbered in this client's order for that interview (client_id + the next client_seq). The engine
    refuses an entry numbered below one it already recorded from this client: an update this client gave up on
    can never land later, after entries it sent meanwhile (signals included)."""
    if entry.client_id is not None and entry.client_seq is not None:
        return entry
    _client_seqs[workflow_id] = _client_seqs.get(workflow_id, 0) + 1
    return entry.model_copy(update={"client_id": CLIENT_ID, "client_seq": _client_seqs[workflow_id]})


async def send_entry(handle: WorkflowHandle, entry: TranscriptEntry) -> None:
    """Send one entry on the high-rate path (a signal, durable at once, even while no worker runs), numbered."""
    try:
        await handle.signal(SIGNAL_TRANSCRIPT_ENTRY, sequenced(handle.id, entry))
    except RPCError as exc:
        raise InterviewClientError(f"entry not delivered to {handle.id}: {exc.message}") from None


async def submit_entry(handle: WorkflowHandle, entry: TranscriptEntry,
                       timeout: float = ENTRY_ACK_TIMEOUT_S) -> SubmitEntryResult:
    """Submit one entry through the validated update: its acknowledgement, the validator's message on rejection
    (exit code 4), or — after `timeout` s without an answer — a clear error saying whether any worker polls the
    interview's queue (exit code 3 when none does). An entry given up on is numbered (`sequenced`): it is refused
    if it arrives after a later one."""
    entry = sequenced(handle.id, entry)
    try:
        return await asyncio.wait_for(handle.execute_update(
            UPDATE_SUBMIT_ENTRY, entry, result_type=SubmitEntryResult,
            id=f"entry-{entry.entry_id}-{entry.client_id}-{entry.client_seq}"), timeout)
    except WorkflowUpdateFailedError as exc:
        raise InterviewClientError(f"entry rejected: {error_message(exc)}", ExitCode.REFUSED) from None
    except RPCError as exc:
        raise InterviewClientError(f"entry not delivered to {handle.id}: {exc.message}") from None
    except (TimeoutError, WorkflowUpdateRPCTimeoutOrCancelledError):
        message, code = await _unacknowledged(handle, entry, timeout)
        raise InterviewClientError(message, code) from None


async def _unacknowledged(handle: WorkflowHandle, entry: TranscriptEntry, timeout: float) -> tuple[str, ExitCode]:
    from core.pollers import FRESH_SECONDS, no_worker_hint, pollers

    given_up = (f"entry {entry.entry_id!r} not acknowledged within {timeout:g}s; it will not be recorded after "
                f"entries sent from now on (client seq {entry.client_seq})")
    try:
        queue = (await handle.describe()).task_queue
        polling = [p for p in await pollers(handle._client, queue, "workflow") if p.seconds_ago <= FRESH_SECONDS]
    except RPCError as exc:
        return f"{given_up}: cannot reach the interview ({exc.message})", ExitCode.FAILED
    if not polling:
        return f"{given_up}: {no_worker_hint(queue)}", ExitCode.NO_WORKER
    return f"{given_up}: its worker is busy or stopping", ExitCode.FAILED


async def control_session(handle: WorkflowHandle, action: str, reason: str | None = None) -> SessionState:
    try:
        return await handle.execute_update(UPDATE_SESSION_CONTROL, SessionControl(action=action, reason=reason),
                                           result_type=SessionState)
    except WorkflowUpdateFailedError as exc:
        raise InterviewClientError(f"{action} rejected: {error_message(exc)}", ExitCode.REFUSED) from None
    except RPCError as exc:
        raise InterviewClientError(f"{action} not delivered to {handle.id}: {exc.message}") from None


async def ask_assistant(handle: WorkflowHandle, text: str) -> AssistantAnswer:
    try:
        return await handle.execute_update(UPDATE_ASSISTANT_QUERY, AssistantQuery(query_id=f"ask-{short_id()}",
                                                                                   text=text),
                                           result_type=AssistantAnswer)
    except WorkflowUpdateFailedError as exc:
        raise InterviewClientError(f"assistant query rejected: {error_message(exc)}", ExitCode.REFUSED) from None
    except RPCError as exc:
        raise InterviewClientError(f"assistant query not delivered to {handle.id}: {exc.message}") from None


async def wait_for_state(handle: WorkflowHandle, ready: Callable[[SessionState], bool], timeout: float,
                         poll: float = 0.2) -> SessionState:
    """Poll `session_state` until `ready(state)` or the timeout; returns the last state read either way."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            state = await session_state(handle)
        except InterviewClientError:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(poll)
            continue
        if ready(state) or time.monotonic() >= deadline:
            return state
        await asyncio.sleep(poll)


def new_question_or_end(last_question: str | None, require_in_progress: bool = True
                        ) -> Callable[[SessionState], bool]:
    """A `wait_for_state` condition: the session ended, or the engine offers a question other than the last one."""
    def ready(s: SessionState) -> bool:
        if s.status in CLOSING_STATUSES:
            return True
        live = s.status == "IN_PROGRESS" or not require_in_progress
        return live and bool(s.next_question) and s.next_question != last_question
    return ready


async def is_running(handle: WorkflowHandle) -> bool:
    try:
        desc = await handle.describe()
    except RPCError as exc:
        raise InterviewClientError(f"cannot describe {handle.id}: {exc.message}") from None
    return desc.status == WorkflowExecutionStatus.RUNNING


def _print_state(state: SessionState) -> None:
    sec = state.current_section
    section = f"{sec.title} ({sec.substate})" if sec else "-"
    console.print(f"[bold]{escape(state.topic)}[/bold]  ·  {status_text(state.colloquy_status, state.status)}  ·  phase {state.phase}  ·  section "
                  f"{escape(section)}", soft_wrap=True)
    console.print(f"time left: section {fmt_seconds(state.seconds_remaining_in_section)}, overall "
                  f"{fmt_seconds(state.seconds_remaining_overall)}  ·  entries {state.entries}"
                  + (f"  ·  waiting for: {escape(state.waiting_for)}" if state.waiting_for else ""), soft_wrap=True)
    if state.section_goal_text:
        console.print(f"goal: {escape(state.section_goal_text)}", soft_wrap=True)
    if state.upcoming_sections:
        console.print(f"next sections: {escape(', '.join(state.upcoming_sections))}", soft_wrap=True)
