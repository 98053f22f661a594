"""`colloquy interview` — thin clients of InterviewWorkflow: start, join, watch, rehearse, essay, continue.

Everything here talks to a running InterviewWorkflow through its public interface (models/interview/):
queries (`session_state`, `event_log`, `transcript`) to read, the `submit_entry` / `control_session` /
`assistant_query` updates to write (validated: a bad entry comes back as a clear error and changes nothing).
The interview itself — timers, phases, agents — lives in the workflow; these loops only poll and submit.

The async functions (`start_interview`, `rehearse`, `watch_events`, `fetch_essay`, `start_follow_up`) that
the CLI, the demo, the e2e tests and the benchmarks share live in `client/interview/library.py` and the single
calls in `client/interview/calls.py`; both are re-exported here for the callers that import them from here.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import typer

from client.common import (
    console,
    run,
    status_text,
)
from client.connection import NO_FLAGS, Connection, connects
from client.errors import CliError, ExitCode
from client.interview.calls import (
    CLIENT_ID,
    CLOSING_STATUSES,
    END_EVENTS,
    ENTRY_ACK_TIMEOUT_S,
    FINISHED,
    InterviewClientError,
    ask_assistant,
    control_session,
    fmt_seconds,
    interview_handle,
    is_running,
    new_question_or_end,
    send_entry,
    sequenced,
    session_state,
    short_id,
    submit_entry,
    wait_for_state,
)
from client.interview.library import (
    CLOSING_REMARK,
    DECIDING_ACTOR,
    ENTRY_EVENTS,
    AnswerSource,
    PersonaAnswers,
    RehearsalOptions,
    RehearsalReport,
    TranscriptAnswers,
    fetch_essay,
    format_event,
    parse_duration,
    rehearse,
    resume_turn,
    start_follow_up,
    start_interview,
    wait_for_decision,
    watch_events,
)
from client.worker_check import require_worker, warn_if_no_worker
from models.interview.names import DEFAULT_DURATION_SECONDS, DEFAULT_FOLLOW_UP_SECONDS, TASK_QUEUE
from models.interview.workflow import InterviewInput

__all__ = [
    "AnswerSource",
    "CLIENT_ID",
    "CLOSING_REMARK",
    "CLOSING_STATUSES",
    "DECIDING_ACTOR",
    "END_EVENTS",
    "ENTRY_ACK_TIMEOUT_S",
    "ENTRY_EVENTS",
    "FINISHED",
    "InterviewClientError",
    "PersonaAnswers",
    "RehearsalOptions",
    "RehearsalReport",
    "TranscriptAnswers",
    "ask_assistant",
    "control_session",
    "fetch_essay",
    "fmt_seconds",
    "format_event",
    "interview_handle",
    "is_running",
    "new_question_or_end",
    "parse_duration",
    "rehearse",
    "resume_turn",
    "send_entry",
    "sequenced",
    "session_state",
    "short_id",
    "start_follow_up",
    "start_interview",
    "submit_entry",
    "wait_for_decision",
    "wait_for_state",
    "watch_events",
]

app = typer.Typer(
    help="Run live interviews (InterviewWorkflow): start one, join it from the terminal or a browser (link), watch "
         "its event log, rehearse it with a simulated interviewee, print its essay, continue it with a follow-up "
         "session.",
    no_args_is_help=True,
)


def _fail(exc: Exception) -> None:
    from client.common import fail

    fail(exc)


def _read_context(context: str, context_file: Path | None) -> str:
    if context_file is not None:
        if not context_file.is_file():
            raise InterviewClientError(f"context file {context_file} not found", ExitCode.USAGE)
        return (context + "\n\n" + context_file.read_text(encoding="utf-8")).strip()
    return context


@app.command("start")
@connects
def start_cmd(
    topic: str = typer.Argument(..., help="What the interview is about (becomes the plan's topic)."),
    context: str = typer.Option("", help="Background for the planner: who the interviewee is, the angle, ..."),
    context_file: Path | None = typer.Option(None, help="Read more context from this file."),
    duration: str = typer.Option(str(DEFAULT_DURATION_SECONDS), help="Length: seconds, 14m, 1h30m or mm:ss."),
    mode: str = typer.Option("adaptive", help="adaptive (000: planner + orchestrator) | structured (003 schema)."),
    style: str = typer.Option("standard", help="Essay style: standard | punchy | reflective."),
    cycle_seconds: float = typer.Option(10.0, help="No effect on new interviews (they wake on entries, not on a cadence); accepted for old scripts."),
    interviewee: str = typer.Option("the interviewee", help="The interviewee's name (for the essay)."),
    language: str | None = typer.Option(None, help="The interview's language (e.g. ja, pt-BR): the Planner writes "
                                        "the plan in it and every agent is told it; the engine's own texts come in "
                                        "it for en es fr de pt it nl ja zh ar hi sw (English otherwise)."),
    workflow_id: str | None = typer.Option(None, "--id", help="Workflow id (default interview-<short id>)."),
    task_queue: str = typer.Option(TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Task queue of the workers."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Start an interview; prints its workflow id, Web UI link and how to take part."""
    from client.common import announce_agents  # the offline label, an unreachable provider (one rule)
    announce_agents()
    async def _run() -> None:
        inp = InterviewInput(topic=topic, context=_read_context(context, context_file),
                             duration_seconds=parse_duration(duration), mode=mode, style=style,  # type: ignore[arg-type]
                             cycle_seconds=cycle_seconds, interviewee_name=interviewee, language=language)
        client = await conn.connect()   # (after the input is checked: a bad option needs no server)
        handle = await start_interview(client, inp, workflow_id, task_queue)
        _print_started(handle.id, conn.settings(), inp.language)
        await warn_if_no_worker(client, task_queue)  # started: it waits in Temporal until a worker polls

    _guard(_run)


def _print_started(wf_id: str, s, language: str | None = None) -> None:
    console.print(f"started [bold]{wf_id}[/bold]", soft_wrap=True)
    console.print(f"Web UI: {s.workflow_url(wf_id)}", soft_wrap=True)
    console.print(f"take part:  colloquy interview join {wf_id}", soft_wrap=True)
    lang = f" --language {language}" if language else ""
    console.print(f"browser:    colloquy interview link {wf_id}{lang}  (room and console links; `colloquy serve`)",
                  soft_wrap=True)
    console.print(f"watch:      colloquy interview watch {wf_id}", soft_wrap=True)
    console.print(f"rehearse:   colloquy interview rehearse --id {wf_id} --persona maya", soft_wrap=True)


def _guard(fn: Callable[[], Coroutine[Any, Any, None]]) -> None:
    try:
        run(fn())  # expected errors (InterviewClientError, pydantic validation, RPC, ...): one line, exit code
    except ValueError as exc:  # a plain ValueError from parsing what the user typed
        _fail(CliError(str(exc), ExitCode.USAGE))


@app.command("join")
@connects
def join_cmd(
    workflow_id: str = typer.Argument(..., help="The interview's workflow id."),
    entry_prefix: str = typer.Option("", help="Prefix for this client's entry ids (default: a random one)."),
    wait_question: float = typer.Option(30.0, help="Piped input: seconds to wait for the next question after an "
                                        "answer before reading the next line."),
    poll: float = typer.Option(0.5, help="Seconds between looks at the session (the screen follows it)."),
    heartbeat: float = typer.Option(5.0, help="Seconds between presence heartbeats."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Take part in an interview from the terminal (you are the interviewee), live.

    The screen follows the session as it changes — the interviewer's next question (recorded as an interviewer
    entry when shown), section boundaries, time warnings, phase changes, paused, resumed, the end — without
    pressing Enter; the bottom line shows the time left. Your answers go in through the `submit_entry` update (a
    long one as several entries cut between sentences); each is first saved in .data/join/<workflow id>.jsonl,
    and one that cannot be delivered (the session ended) is reported, never lost. Ctrl-C keeps the half-typed line
    for the next join (exit 130). Heartbeats tell the session you are there. Type /help for commands."""
    async def _run() -> None:
        from client.interview.join import join_session

        client = await conn.connect()
        handle = await interview_handle(client, workflow_id, check_worker=True)
        await join_session(handle, entry_prefix or f"join-{short_id()}", wait_question, poll_seconds=poll,
                           heartbeat_seconds=heartbeat)

    _guard(_run)


@app.command("watch")
@connects
def watch_cmd(
    workflow_id: str = typer.Argument(..., help="The interview's workflow id."),
    after: int = typer.Option(0, help="Show events after this event id."),
    follow: bool = typer.Option(True, help="Keep streaming until the interview ends (--no-follow: print and exit)."),
    interval: float = typer.Option(0.5, help="Poll interval in seconds."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Stream an interview's event log live.

    Polls the `event_log` query for events after the last one seen (003 §3.2: sections, prompts, messages, AI
    requests/responses, warnings, completion) until the interview ends."""
    async def _run() -> None:
        client = await conn.connect()
        handle = await interview_handle(client, workflow_id, check_worker=True)
        last = await watch_events(handle, lambda ev: console.print(format_event(ev), markup=False, highlight=False,
                                                                   soft_wrap=True),
                                  after, follow, interval)
        state = await session_state(handle)
        console.print(f"(last event id {last}; status {status_text(state.colloquy_status, state.status)})",
                      style="dim", soft_wrap=True)

    _guard(_run)


@app.command("rehearse")
@connects
def rehearse_cmd(
    topic: str | None = typer.Argument(None, help="Topic of a new interview (omit with --id)."),
    workflow_id: str | None = typer.Option(None, "--id", help="Rehearse an interview that is already running."),
    transcript: Path | None = typer.Option(None, help="Replay the interviewee's answers from this transcript file "
                                           "(plain 'Speaker: text' lines; a built-in name like 'oncall' works)."),
    persona: str | None = typer.Option(None, help="Generate answers from this persona with the LLM agent "
                                       "(built-in: maya, sam; or a YAML file)."),
    interviewer: str | None = typer.Option(None, help="Which transcript speaker is the interviewer "
                                           "(default: Interviewer/Host/Q, else the first speaker)."),
    duration: str = typer.Option("5m", help="Length of a new interview: seconds, 6m, 1h30m or mm:ss."),
    cycle_seconds: float = typer.Option(10.0, help="No effect on new interviews (they wake on entries, not on a cadence); accepted for old scripts."),
    style: str = typer.Option("standard", help="Essay style of a new interview."),
    pace: float = typer.Option(2.0, help="Seconds the simulated interviewee 'speaks' before each answer."),
    max_turns: int | None = typer.Option(None, help="Persona mode: stop after this many answers (then close)."),
    wait_essay: bool = typer.Option(True, help="Wait for the essay and say how to print it."),
    task_queue: str = typer.Option(TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Task queue of the workers."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Rehearse an interview with a simulated interviewee (transcript file or persona).

    Answers are replayed from a transcript file, or generated from a persona by the `rehearsal_interviewee`
    agent. The engine asks; the rehearsal answers; when the answers (or the engine's questions) run out the
    interviewer closes and the session ends. Re-running on the same --id resumes without duplicates."""
    from client import rehearsal as data

    if (transcript is None) == (persona is None):
        _fail(InterviewClientError("choose one answer source: --transcript FILE or --persona NAME", ExitCode.USAGE))
    if topic is None and workflow_id is None:
        _fail(InterviewClientError("give a TOPIC for a new interview, or --id of a running one", ExitCode.USAGE))

    async def _run() -> None:
        client = await conn.connect()
        try:
            script = data.load_transcript(transcript, interviewer) if transcript is not None else None
            who = data.load_persona(persona) if persona is not None else None
        except data.RehearsalDataError as exc:
            raise InterviewClientError(str(exc), ExitCode.USAGE) from None
        name = script.interviewee if script else who.name  # type: ignore[union-attr]
        if workflow_id is None:
            inp = InterviewInput(topic=topic or "", duration_seconds=parse_duration(duration),
                                 cycle_seconds=cycle_seconds, style=style, interviewee_name=name)  # type: ignore[arg-type]
            await require_worker(client, task_queue)  # a rehearsal waits on the worker at once
            handle = await start_interview(client, inp, None, task_queue)
            _print_started(handle.id, conn.settings())
        else:
            handle = await interview_handle(client, workflow_id, check_worker=True)
        state = await session_state(handle)
        source: AnswerSource = (TranscriptAnswers(script.answers) if script else
                                PersonaAnswers(client, handle.id, state.topic, who, task_queue, max_turns))
        console.print(f"rehearsing {handle.id} with {source.label} answers from {name}", soft_wrap=True)
        report = await rehearse(client, handle.id, source, RehearsalOptions(pace_seconds=pace),
                                say=lambda m: console.print(m, markup=False, highlight=False, soft_wrap=True))
        console.print(f"session {status_text(report.colloquy_status, report.final_status, report.exit_reason)}: "
                      f"{report.summary()}"
                      + (f", {len(report.rejected)} rejected" if report.rejected else ""), soft_wrap=True)
        if isinstance(source, PersonaAnswers) and (source.offline or source.fallbacks):
            console.print("[yellow]answers came from the offline test double[/yellow]" if source.offline else
                          f"[yellow]{source.fallbacks} answers were the persona's fallback lines[/yellow]",
                          soft_wrap=True)
        if wait_essay:
            result, text, _path = await fetch_essay(handle, wait=True)  # read through the worker, not its disk
            name = result.essay.name if result.essay else "essay"
            console.print(f"essay: {name} ({result.title or 'untitled'}, {len(text)} characters) — print it: "
                          f"colloquy interview essay {handle.id} (--out FILE saves it)", soft_wrap=True)
            console.print(f"Web UI: {conn.settings().workflow_url(handle.id)}", soft_wrap=True)

    _guard(_run)


@app.command("essay")
@connects
def essay_cmd(
    workflow_id: str = typer.Argument(..., help="The interview's workflow id."),
    out: Path | None = typer.Option(None, help="Save the essay to this file instead of printing it."),
    wait: bool = typer.Option(False, help="Wait for a running session to finish."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Print (or save with --out) the essay of a finished interview."""
    async def _run() -> None:
        client = await conn.connect()
        handle = await interview_handle(client, workflow_id, check_worker=True)
        result, text, _path = await fetch_essay(handle, wait)
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
            console.print(f"saved {out} ({len(text)} characters)", soft_wrap=True)
        else:
            console.print(text, markup=False, highlight=False, soft_wrap=True)
        console.print(f"essay artifact: {result.essay.name if result.essay else 'essay'} (read through the worker); "
                      f"session {status_text(result.colloquy_status, result.status, result.exit_reason)}",
                      style="dim", soft_wrap=True)
        if result.usage.calls:
            console.print(f"{result.usage.calls} LLM calls, {result.usage.input_tokens} + "
                          f"{result.usage.output_tokens} tokens, ${result.usage.cost_usd:.4f}", style="dim",
                          soft_wrap=True)

    _guard(_run)


@app.command("continue")
@connects
def continue_cmd(
    previous_id: str = typer.Argument(..., help="Workflow id of the finished interview to continue."),
    topic: str | None = typer.Option(None, help="What to explore (default: the Follow-Up agent's first suggestion)."),
    duration: str = typer.Option(str(DEFAULT_FOLLOW_UP_SECONDS), help="Length: seconds, 6m, mm:ss (default 6 min)."),
    cycle_seconds: float = typer.Option(10.0, help="No effect on new interviews (they wake on entries, not on a cadence); accepted for old scripts."),
    workflow_id: str | None = typer.Option(None, "--id", help="Workflow id of the follow-up session."),
    task_queue: str = typer.Option(TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Task queue of the workers."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Start a follow-up session of a finished interview (6 minutes by default).

    Linked by previous_session_id: the follow-up's Analysis and Writer get the original and follow-up transcripts
    merged in order. Without --topic, the Follow-Up agent's first suggested topic is used."""
    from client.common import announce_agents  # the offline label, an unreachable provider (one rule)
    announce_agents()
    async def _run() -> None:
        client = await conn.connect()
        handle, chosen = await start_follow_up(client, previous_id, topic, parse_duration(duration), workflow_id,
                                               task_queue, cycle_seconds=cycle_seconds)
        console.print(f"follow-up of {previous_id}" + (f" on: {chosen}" if chosen else ""), soft_wrap=True)
        _print_started(handle.id, conn.settings())
        await warn_if_no_worker(client, task_queue)

    _guard(_run)


@app.command("link")
def link_cmd(
    workflow_id: str = typer.Argument(..., help="The interview's workflow id."),
    base_url: str | None = typer.Option(None, "--base-url", envvar="COLLOQUY_SERVE_URL",
                                        help="Where `colloquy serve` is reached (default http://127.0.0.1:"
                                        "COLLOQUY_SERVE_PORT, else 8234)."),
    language: str | None = typer.Option(None, help="The interviewee's language (e.g. ja): the room's pages are "
                                        "in it (`?lang=` on the room link; docs/study.md \"Languages\")."),
) -> None:
    """Print the browser links of an interview: the interviewee room (send it to them: its key opens this session
    only, no sign-in) and the interviewer console (sign in with the serve token). Served by `colloquy serve`;
    keys come from its secret (COLLOQUY_ROOM_SECRET, else .data/room-secret), so run this where it runs."""
    from urllib.parse import quote

    from client.web.interview.sessions import load_secret, room_path
    from core.codec import serve_port

    base = (base_url or f"http://127.0.0.1:{serve_port()}").rstrip("/")
    try:
        lang = InterviewInput(topic="-", language=language).language      # the same check as `start --language`
    except ValueError as exc:
        _fail(exc)          # one line, exit code 2 (as `start --language`)
        return
    room = room_path(load_secret(), workflow_id) + (f"?lang={quote(lang, safe='-')}" if lang else "")
    console.print(f"interviewee: {base}{room}", soft_wrap=True, highlight=False)
    console.print(f"console:     {base}/console/{workflow_id}", soft_wrap=True, highlight=False)
