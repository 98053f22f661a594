"""The interview client library: start an interview or a follow-up, rehearse it with a simulated interviewee,
watch its event log, fetch its essay — what the CLI (`client/interview/cli.py`), the demo, the e2e tests and the
benchmarks share. The single calls (state, submit, controls) are in `client/interview/calls.py`."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import typer
from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowQueryFailedError,
)
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from client.common import (
    status_text,
)
from client.errors import ExitCode
from client.interview.calls import (
    CLOSING_STATUSES,
    END_EVENTS,
    InterviewClientError,
    fmt_seconds,
    interview_handle,
    is_running,
    new_question_or_end,
    session_state,
    short_id,
    submit_entry,
    wait_for_state,
)
from models.interview.entries import SubmitEntryResult, TranscriptEntry, TranscriptView
from models.interview.names import (
    DEFAULT_FOLLOW_UP_SECONDS,
    QUERY_EVENT_LOG,
    QUERY_TRANSCRIPT,
    TASK_QUEUE,
    WORKFLOW_TYPE,
    Mode,
)
from models.interview.workflow import (
    EventLogPage,
    InterviewEvent,
    InterviewInput,
    InterviewResult,
    SessionState,
)
from rules.errors import error_message
from rules.interview.answer_parts import split_answer
from rules.text import workflow_id as default_workflow_id

#: What the rehearsal interviewer says when the interviewee has nothing more to say: the engine's closing
#: detection (000) ends the session at once on it.
CLOSING_REMARK = "Thank you so much for your time and for sharing all of this. This has been a wonderful conversation."


# ---------------------------------------------------------------------------------------------- helpers
def parse_duration(text: str) -> int:
    """'90', '90s', '6m', '1h30m', '14:00' -> seconds."""
    t = text.strip().lower()
    if re.fullmatch(r"\d+", t):
        return int(t)
    if m := re.fullmatch(r"(\d+):(\d{2})", t):
        return int(m.group(1)) * 60 + int(m.group(2))
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*(h|m|s)", t)
    if parts and "".join(f"{n}{u}" for n, u in parts) == t.replace(" ", ""):
        return int(sum(float(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts))
    raise typer.BadParameter(f"{text!r} is not a duration: use seconds (90), 6m, 1h30m or mm:ss")


# ----------------------------------------------------------------------------------------------- start
async def start_interview(client: Client, inp: InterviewInput, workflow_id: str | None = None,
                          task_queue: str = TASK_QUEUE) -> WorkflowHandle:
    """Start an InterviewWorkflow (id `interview-<short id>` by default: never words of the topic)."""
    wf_id = workflow_id or default_workflow_id("interview", inp.topic, short_id())
    try:
        return await client.start_workflow(
            WORKFLOW_TYPE, inp, id=wf_id, task_queue=task_queue, result_type=InterviewResult,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            static_summary=f"Interview: {inp.topic[:120]}",
            static_details=(f"{inp.mode} interview, {fmt_seconds(inp.duration_seconds)} min, style {inp.style}"
                            + (f", follow-up of {inp.previous_session_id}" if inp.previous_session_id else "")),
        )
    except WorkflowAlreadyStartedError:
        raise InterviewClientError(f"workflow id {wf_id!r} is already taken: choose another --id",
                                   ExitCode.USAGE) from None


async def start_follow_up(client: Client, previous_id: str, topic: str | None = None,
                          duration_seconds: int = DEFAULT_FOLLOW_UP_SECONDS, workflow_id: str | None = None,
                          task_queue: str = TASK_QUEUE, **extra: Any) -> tuple[WorkflowHandle, str]:
    """Start a follow-up session of a finished interview (000: default 6 minutes, transcripts merged later).

    Without `topic`, the first topic the Follow-Up agent suggested for the previous session is used."""
    prev = await interview_handle(client, previous_id, check_worker=True)
    if await is_running(prev):
        raise InterviewClientError(f"{previous_id} is still running: a follow-up continues a finished session",
                                   ExitCode.REFUSED)
    try:
        result: InterviewResult = await prev.result()
    except WorkflowFailureError as exc:
        raise InterviewClientError(f"{previous_id} did not finish normally: {error_message(exc)}") from None
    state = await session_state(prev)
    follow_up_topic = topic
    if not follow_up_topic and result.follow_up and result.follow_up.suggested_topics:
        follow_up_topic = result.follow_up.suggested_topics[0].title
    mode: Mode = "structured" if state.mode == "structured" else "adaptive"
    inp = InterviewInput(topic=state.topic, duration_seconds=duration_seconds, previous_session_id=previous_id,
                         follow_up_topic=follow_up_topic, mode=mode, **extra)
    wf_id = workflow_id or default_workflow_id("interview", f"{state.topic} follow-up", short_id())
    return await start_interview(client, inp, wf_id, task_queue), follow_up_topic or ""


# -------------------------------------------------------------------------------------------- rehearse
class AnswerSource(Protocol):
    """Where a simulated interviewee's answers come from."""

    label: str

    @property
    def total(self) -> int | None:
        """How many answers there are (None: as many as asked for)."""

    def exhausted(self, turn: int) -> bool:
        """True when there is no answer `turn` to give (checked before the question is recorded)."""

    async def answer(self, turn: int, question: str, recent: list[TranscriptEntry]) -> str | None:
        """The answer to question `turn`, or None when the interviewee has nothing more to say."""


@dataclass
class TranscriptAnswers:
    """Answers replayed, in order, from a transcript file's interviewee lines."""

    answers: list[str]
    label: str = "transcript"

    @property
    def total(self) -> int | None:
        return len(self.answers)

    def exhausted(self, turn: int) -> bool:
        return turn > len(self.answers)

    async def answer(self, turn: int, question: str, recent: list[TranscriptEntry]) -> str | None:
        return None if self.exhausted(turn) else self.answers[turn - 1]


@dataclass
class PersonaAnswers:
    """Answers generated from a persona by the `rehearsal_interviewee` agent, one SimulatedAnswerWorkflow each
    (id `rehearsal-<interview id>-turn-<n>`: a restarted client gets the same answer back)."""

    client: Client
    interview_id: str
    topic: str
    persona: Any  # activities.rehearsal.interviewee.Persona
    task_queue: str = TASK_QUEUE
    max_turns: int | None = None
    label: str = "persona"
    fallbacks: int = 0
    offline: bool = False

    @property
    def total(self) -> int | None:
        return self.max_turns

    def exhausted(self, turn: int) -> bool:
        return self.max_turns is not None and turn > self.max_turns

    async def answer(self, turn: int, question: str, recent: list[TranscriptEntry]) -> str | None:
        from activities.rehearsal.interviewee import Exchange, IntervieweeInput, SimulatedAnswer
        from models.rehearsal.workflow import WORKFLOW_TYPE as ANSWER_WORKFLOW_TYPE
        from models.rehearsal.workflow import answer_workflow_id

        if self.exhausted(turn):
            return None
        inp = IntervieweeInput(interview_id=self.interview_id, turn=turn, topic=self.topic, persona=self.persona,
                               question=question, recent=[Exchange(speaker=e.speaker, text=e.text) for e in recent])
        wf_id = answer_workflow_id(self.interview_id, turn)
        try:
            # Running already (a restarted client): attach to it. Finished already: its answer, not a new one.
            handle = await self.client.start_workflow(
                ANSWER_WORKFLOW_TYPE, inp, id=wf_id, task_queue=self.task_queue, result_type=SimulatedAnswer,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                static_summary=f"{self.persona.name} answers question {turn}")
        except WorkflowAlreadyStartedError:
            handle = self.client.get_workflow_handle(wf_id, result_type=SimulatedAnswer)
        result: SimulatedAnswer = await handle.result()
        self.fallbacks += int(result.fallback)
        self.offline = self.offline or bool(result.usage and result.usage.offline)
        return result.answer


@dataclass
class RehearsalOptions:
    pace_seconds: float = 0.0          # the interviewee's "thinking" time before each answer (real clock)
    fresh_question_timeout: float = 30.0  # how long to wait for the engine's next decision after an answer
    poll_seconds: float = 0.2
    start_timeout: float = 120.0       # planning may take a while on a real model
    close_when_done: bool = True       # closing remark when the answers run out (ends the session at once)


@dataclass
class RehearsalReport:
    workflow_id: str
    turns: int = 0
    questions: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    duplicates: int = 0
    closed_by_client: bool = False
    stale_questions: int = 0       # times the engine kept its question after an answer (asked again)
    total: int | None = None       # answers the source has (None: a persona without --max-turns)
    parts: int = 0                 # entries beyond one per answer: answers over the engine's length limit, split
    stop_reason: str = ""          # why the rehearsal stopped, in words
    final_status: str = ""         # the engine's own session status (seed 003: COMPLETED, TERMINATED, ...)
    exit_reason: str | None = None
    colloquy_status: str = ""      # the same in the shared vocabulary (the run's ColloquyStatus)

    def summary(self) -> str:
        """'48 of 48 answers used', or '10 of 48 answers used — stopped: <why>'."""
        used = f"{self.turns} of {self.total} answers used" if self.total is not None else f"{self.turns} answers"
        extra = f" (sent as {self.turns + self.parts} entries: long answers split)" if self.parts else ""
        left = self.total is not None and self.turns < self.total
        return used + extra + (f" — stopped: {self.stop_reason}" if left and self.stop_reason else "")


def _entry_id(turn: int, who: str) -> str:
    return f"rehearsal-t{turn:03d}-{who}"


_REHEARSAL_ID = re.compile(r"^rehearsal-t(\d+)-a(?:-\d+)?$")


async def resume_turn(handle: WorkflowHandle) -> int:
    """How many rehearsal answers the session already holds (so a restarted rehearse client resumes)."""
    try:
        view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
    except (WorkflowQueryFailedError, RPCError):
        return 0
    turns = [int(m.group(1)) for e in view.entries if (m := _REHEARSAL_ID.match(e.entry_id))]
    return max(turns, default=0)


DECIDING_ACTOR = "interviewer_ai"   # 003 actor of the interviewer AI's (Orchestrator's) AI_REQUEST/AI_RESPONSE events


async def wait_for_decision(handle: WorkflowHandle, entry_id: str, after_event_id: int, timeout: float,
                            poll: float = 0.2) -> SessionState | None:
    """Wait until the engine has decided its next move *having seen* entry `entry_id`: in the event log, an
    interviewer-AI request made after the entry's event, then its response (or failure), or a question the engine
    itself presented after it (structured follow-ups). None on timeout (e.g. a slow model)."""
    deadline = time.monotonic() + timeout
    cursor, entry_event, requested = after_event_id, None, False
    while True:
        try:
            page = await handle.query(QUERY_EVENT_LOG, cursor, result_type=EventLogPage)
        except (WorkflowQueryFailedError, RPCError) as exc:
            raise InterviewClientError(f"cannot read the event log of {handle.id}: {error_message(exc)}") from None
        for ev in page.events:
            cursor = max(cursor, ev.event_id)
            if ev.type in END_EVENTS:
                return await session_state(handle)
            if entry_event is None:
                if ev.payload.get("entry_id") == entry_id and ev.type in ENTRY_EVENTS:
                    entry_event = ev.event_id
                continue
            if ev.actor == DECIDING_ACTOR and ev.type == "AI_REQUEST":
                requested = True
            elif (requested and ev.actor == DECIDING_ACTOR and ev.type in ("AI_RESPONSE", "AI_FAILED")
                  or ev.actor == "system" and ev.type in ("PROMPT_PRESENTED", "FOLLOWUP_PRESENTED")):
                return await session_state(handle)
        if time.monotonic() >= deadline:
            return None
        await asyncio.sleep(poll)


ENTRY_EVENTS = {"CANDIDATE_MESSAGE", "CANDIDATE_CODE_SUBMISSION", "INTERVIEWER_MESSAGE",
                "PROMPT_PRESENTED", "FOLLOWUP_PRESENTED"}    # (a question the engine recorded: its entry_id there)


async def rehearse(client: Client, workflow_id: str, source: AnswerSource, opts: RehearsalOptions | None = None,
                   say: Callable[[str], None] | None = None) -> RehearsalReport:
    """Drive a live session with a simulated interviewee until it ends.

    Each turn: read `session_state`; take the engine's next question (the engine records it as the interviewer's
    entry; on a run from before it did, this client records it); get the answer from `source`; submit it (split into several entries when it is over the engine's length limit); wait
    until the engine has decided its next question *with* that answer (event log: an interviewer-AI call after the
    answer). When the engine keeps its question after an answer, the interviewer asks it again and the next answer
    is given: no answer is dropped. When the source has nothing more to say the interviewer closes (000 closing
    detection ends the session); when the session ends first, the report says so with the count used/total.
    Entry ids are deterministic (`rehearsal-t001-q` / `-a`, `-a-2` for a second part), so re-running after a
    crash re-submits nothing twice."""
    opts = opts or RehearsalOptions()
    say = say or (lambda _m: None)
    handle = await interview_handle(client, workflow_id)
    report = RehearsalReport(workflow_id=workflow_id, total=source.total)
    turn = await resume_turn(handle)
    if turn:
        say(f"resuming after {turn} answers already recorded")
    report.turns = turn
    state = await wait_for_state(handle, lambda s: s.status in CLOSING_STATUSES or bool(s.next_question)
                                 and s.status in ("IN_PROGRESS", "PAUSED"), opts.start_timeout, opts.poll_seconds)
    last_question: str | None = None
    decided_after_answer = False
    recent: list[TranscriptEntry] = []

    async def close() -> None:
        closing = await _submit(handle, TranscriptEntry(entry_id="rehearsal-closing", speaker="interviewer",
                                                        text=CLOSING_REMARK), report)
        report.closed_by_client = closing is not None
        say(f"Interviewer: {CLOSING_REMARK}")

    while state.status not in CLOSING_STATUSES:
        if state.status != "IN_PROGRESS":  # paused / disconnected: the clock runs on; wait for a resume
            state = await wait_for_state(handle, lambda s: s.status in CLOSING_STATUSES or s.status == "IN_PROGRESS",
                                         opts.fresh_question_timeout, opts.poll_seconds)
            continue
        question = state.next_question
        if not question or question == last_question and not decided_after_answer:
            # A decision is still coming (slow model): wait for the question to change; after that long, whatever
            # the engine offers is its decision.
            state = await wait_for_state(handle, new_question_or_end(last_question), opts.fresh_question_timeout,
                                         opts.poll_seconds)
            decided_after_answer = bool(last_question)
            continue
        if question == last_question:
            # The engine decided with the last answer in hand and kept its question: ask it again, answer on.
            report.stale_questions += 1
        if source.exhausted(turn + 1):
            report.stop_reason = "the answers ran out"
            if not opts.close_when_done:
                break  # stop here without waiting; the session goes on (another client may take over)
            await close()
            break
        turn += 1
        if state.question_entry_id:     # the engine recorded its question as the interviewer's entry itself
            asked_entry = TranscriptEntry(entry_id=state.question_entry_id, speaker="interviewer", text=question)
        else:                           # a run from before it did: the client records the question it asks
            asked = await _submit(handle, TranscriptEntry(entry_id=_entry_id(turn, "q"), speaker="interviewer",
                                                          text=question), report)
            if asked is None:
                turn -= 1
                break
            asked_entry = asked.entry
        report.questions.append(question)
        say(f"Interviewer: {question}")
        recent.append(asked_entry)
        last_question = question
        answer = await source.answer(turn, question, recent[-8:])
        if answer is None:  # a source that gives up mid-turn: the question stays unanswered, the session goes on
            turn -= 1
            report.stop_reason = f"the {source.label} source had no answer to question {turn + 1}"
            break
        if opts.pace_seconds:
            await asyncio.sleep(opts.pace_seconds)  # the interviewee speaking: real time passes, by design
        current = await session_state(handle)
        cursor = current.last_event_id
        parts = split_answer(answer, current.max_entry_chars)
        answer_id, answered = "", None
        # stamped with the question the interviewee was answering (`state`: the one that showed it), not with what
        # is on screen once the answer is ready; several parts are numbered: one answer, one decision
        seen_section = state.current_section.id if state.current_section else None
        several = len(parts) > 1
        for n, part in enumerate(parts, start=1):
            answer_id = _entry_id(turn, "a") + (f"-{n}" if n > 1 else "")
            answered = await _submit(handle, TranscriptEntry(
                entry_id=answer_id, speaker="interviewee", text=part, reply_to_section_id=seen_section,
                reply_to_question_id=state.question_entry_id, answer_id=_entry_id(turn, "a") if several else None,
                part=n if several else None, parts=len(parts) if several else None), report)
            if answered is None:
                break
            recent.append(answered.entry)
        if answered is None:
            turn -= int(answer_id.endswith("-a"))   # not one part of it recorded: not used
            break
        report.turns = turn
        report.parts += len(parts) - 1
        say(f"Interviewee: {answer}")
        decided = await wait_for_decision(handle, answer_id, cursor, opts.fresh_question_timeout, opts.poll_seconds)
        decided_after_answer = decided is not None
        state = decided or await session_state(handle)
    report.turns = turn
    if not report.closed_by_client and state.status not in CLOSING_STATUSES:
        report.final_status, report.exit_reason = state.status, state.exit_reason
        report.colloquy_status = state.colloquy_status
        return report
    final = await wait_for_state(handle, lambda s: s.status in CLOSING_STATUSES, opts.start_timeout,
                                 opts.poll_seconds)
    report.final_status, report.exit_reason = final.status, final.exit_reason
    report.colloquy_status = final.colloquy_status
    if not report.stop_reason and not report.closed_by_client:
        report.stop_reason = f"the session ended ({final.exit_reason or final.colloquy_status})"
    return report


async def _submit(handle: WorkflowHandle, entry: TranscriptEntry, report: RehearsalReport) -> SubmitEntryResult | None:
    """Submit; a session that ended meanwhile stops the rehearsal, any other rejection is recorded."""
    try:
        result = await submit_entry(handle, entry)
    except InterviewClientError as exc:
        report.rejected.append(f"{entry.entry_id}: {exc}")
        state = await session_state(handle)
        if state.status in CLOSING_STATUSES:
            return None
        raise
    report.duplicates += int(result.duplicate)
    return result


# ------------------------------------------------------------------------------------------------ watch
def format_event(ev: InterviewEvent) -> str:
    payload = ", ".join(f"{k}={_short(v)}" for k, v in ev.payload.items() if v not in (None, "", [], {}))
    section = f" [{ev.section_id}]" if ev.section_id else ""
    return f"{ev.timestamp:%H:%M:%S} #{ev.event_id:<4} {ev.actor:<14} {ev.type}{section}  {payload}".rstrip()


def _short(value: Any, limit: int = 70) -> str:
    text = str(value).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def watch_events(handle: WorkflowHandle, emit: Callable[[InterviewEvent], Awaitable[None] | None],
                       after_event_id: int = 0, follow: bool = True, poll_seconds: float = 0.5,
                       stop: asyncio.Event | None = None) -> int:
    """Stream the event log: query `event_log` for events after the last one seen, every `poll_seconds`.
    Returns the last event id seen. With `follow`, stops once the interview has ended and the workflow has closed
    (the write-up after INTERVIEW_COMPLETED is streamed too); without, after one page."""
    last = after_event_id
    seen_end = False
    while True:
        page = await _event_page(handle, last)
        if page.first_event_id_in_memory > last + 1 and page.archived and last == after_event_id:
            # Older events were moved to the artifact store by continue-as-new; say where they are.
            refs = ", ".join(r.name for r in page.archived)
            await _maybe_await(emit(InterviewEvent(event_id=0, timestamp=page.events[0].timestamp if page.events
                                                   else _epoch(), actor="client", type="ARCHIVED_EVENTS",
                                                   payload={"artifacts": refs})))
        last, ended = await _emit_new(page, last, emit)
        if not follow or (stop is not None and stop.is_set()):
            return last
        if ended or seen_end:
            # The engine still writes up (analysis, essay, exports) after INTERVIEW_COMPLETED: stream those events
            # too, until the workflow has closed; then drain the log once more and stop.
            seen_end = True
            if not await is_running(handle):
                last, _ = await _emit_new(await _event_page(handle, last), last, emit)
                return last
        await asyncio.sleep(poll_seconds)


async def _event_page(handle: WorkflowHandle, after: int) -> EventLogPage:
    try:
        return await handle.query(QUERY_EVENT_LOG, after, result_type=EventLogPage)
    except (WorkflowQueryFailedError, RPCError) as exc:
        raise InterviewClientError(f"cannot read the event log of {handle.id}: {error_message(exc)}") from None


async def _emit_new(page: EventLogPage, last: int, emit) -> tuple[int, bool]:
    ended = False
    for ev in page.events:
        if ev.event_id <= last:
            continue
        await _maybe_await(emit(ev))
        last = ev.event_id
        ended = ended or ev.type in END_EVENTS
    return last, ended


def _epoch():
    from datetime import UTC, datetime

    return datetime.fromtimestamp(0, UTC)


async def _maybe_await(value: Any) -> None:
    if asyncio.iscoroutine(value):
        await value


# ------------------------------------------------------------------------------------------------ essay
async def fetch_essay(handle: WorkflowHandle, wait: bool = False, client: Client | None = None
                      ) -> tuple[InterviewResult, str, Path | None]:
    """The essay of a finished session: (result, essay text, its path on the worker's disk).

    The text is read through Temporal (ReadArtifactWorkflow on the interview's task queue), never from that path:
    the client may not share the worker's disk (containers, k8s, another machine). `client` defaults to the one
    the handle was made with."""
    from activities.artifacts import ArtifactStore
    from client.artifacts import read_artifact

    client = client or handle._client  # noqa: SLF001 — the SDK keeps no public accessor on the handle
    try:
        desc = await handle.describe()
    except RPCError as exc:
        raise InterviewClientError(f"cannot describe {handle.id}: {exc.message}") from None
    if not wait and desc.status == WorkflowExecutionStatus.RUNNING:
        state = await session_state(handle)
        raise InterviewClientError(f"{handle.id} is still {status_text(state.colloquy_status, state.status)} "
                                   f"(phase {state.phase}, "
                                   f"{fmt_seconds(state.seconds_remaining_overall)} left): wait for it with --wait",
                                   ExitCode.REFUSED)
    try:
        result: InterviewResult = await handle.result()
    except WorkflowFailureError as exc:
        raise InterviewClientError(f"{handle.id} failed: {error_message(exc)}") from None
    if result.essay is None:
        why = result.error or f"exit reason {result.exit_reason}"
        raise InterviewClientError(f"{handle.id} ended {status_text(result.colloquy_status, result.status)} without "
                                   f"an essay: {why}")
    text = await read_artifact(client, result.essay, desc.task_queue)
    return result, text, ArtifactStore.local_path(result.essay)
