"""`colloquy interview join`, live: the screen follows the session, not the Enter key.

    watcher   every `poll_seconds`: the `session_state` query; a new question (recorded as the interviewer's entry
              when it is shown), a section or phase change, paused / resumed, the end — printed at once
    heartbeat every `heartbeat_seconds`: the `heartbeat` update (presence); a server without it rejects it as an
              unknown update: said once, then join goes on without presence
    input     a terminal: prompt_toolkit's async prompt (output appears above it; the bottom line shows status,
              section and the time left, ticking locally, re-synced on every poll); piped input: a reader thread
    outbox    every answer is written to `<data dir>/join/<workflow id>.jsonl` before it is sent, then marked
              delivered or not delivered: an answer that could not be delivered (the session ended meanwhile, a
              network failure) is reported with where it is saved — never lost.

    long      an answer over the engine's limit (`max_entry_chars`) goes in as several entries cut between
              sentences (rules/interview/answer_parts.py, the rule of `rehearse` and the room), and join says so
    sections  section boundaries and the T-2:00 / T-0:30 warnings, read from the event log as they happen
    Ctrl-C    the half-typed line is saved in `<data dir>/join/<workflow id>.draft.txt` (the next join of the
              session offers it, pre-filled), and join exits 130

After the end is shown the prompt stays: whatever is typed then is saved and reported (not sent); Enter on an
empty line, /quit or end-of-input leaves.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.markup import escape
from temporalio.client import WorkflowHandle, WorkflowQueryFailedError, WorkflowUpdateFailedError
from temporalio.service import RPCError

from client.common import console, status_text
from client.interview.calls import CLOSING_STATUSES
from models.interview.entries import Heartbeat, TranscriptEntry, TranscriptView
from models.interview.names import MAX_ENTRY_CHARS, QUERY_EVENT_LOG, QUERY_TRANSCRIPT, UPDATE_HEARTBEAT
from models.interview.workflow import EventLogPage, SessionState
from rules.errors import error_message
from rules.interview.answer_parts import parts_note, split_answer
from rules.interview.notices import Notices

JOIN_HELP = """commands: /state  /pause  /resume  /done (I'm done with this section)  /end  /ask TEXT (assistant)
          /code (multi-line code, end with a line '.')  /quit (leave; the session keeps running)  /help"""
_UNKNOWN_UPDATE = ("not found", "unknown update", "no handler")


def outbox_path(workflow_id: str) -> Path:
    from core.settings import data_dir

    return data_dir() / "join" / f"{workflow_id}.jsonl"


def draft_path(workflow_id: str) -> Path:
    return outbox_path(workflow_id).with_suffix(".draft.txt")


class Outbox:
    """Answers as typed, appended to a JSON-lines file before they are sent; then delivered / not delivered."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _append(self, record: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps({**record, "at": datetime.now(UTC).isoformat()}, ensure_ascii=False) + "\n")

    def typed(self, entry: TranscriptEntry) -> None:
        self._append({"entry_id": entry.entry_id, "state": "typed", "kind": entry.kind, "text": entry.text})

    def delivered(self, entry_id: str, seq: int) -> None:
        self._append({"entry_id": entry_id, "state": "delivered", "seq": seq})

    def not_delivered(self, entry_id: str, error: str) -> None:
        self._append({"entry_id": entry_id, "state": "not_delivered", "error": error})

    def undelivered(self) -> list[dict[str, Any]]:
        """Typed answers whose last record is not `delivered` (earlier runs of join included)."""
        if not self.path.is_file():
            return []
        last: dict[str, dict[str, Any]] = {}
        texts: dict[str, dict[str, Any]] = {}
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            last[rec.get("entry_id", "")] = rec
            if rec.get("state") == "typed":
                texts[rec["entry_id"]] = rec
        return [texts[i] for i, rec in last.items() if rec.get("state") != "delivered" and i in texts]


class LineReader:
    """Lines from piped stdin, read by a daemon thread (never blocks the loop, never holds up the exit)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def read() -> None:
            while True:
                line = sys.stdin.readline()
                loop.call_soon_threadsafe(self.queue.put_nowait, None if line == "" else line.rstrip("\n"))
                if line == "":
                    return

        threading.Thread(target=read, name="join-stdin", daemon=True).start()

    async def read(self, prompt: str) -> str | None:
        console.print(prompt, end="")
        return await self.queue.get()


def _interactive() -> bool:
    try:
        import prompt_toolkit  # noqa: F401
    except ImportError:
        return False
    return sys.stdin.isatty() and sys.stdout.isatty()


class LiveJoin:
    """One interviewee at a terminal, live. `run()` returns when they leave (or the input ends)."""

    def __init__(self, handle: WorkflowHandle, prefix: str, *, wait_question: float = 30.0,
                 poll_seconds: float = 0.5, heartbeat_seconds: float = 5.0, interactive: bool | None = None,
                 outbox: Outbox | None = None) -> None:
        self.handle, self.prefix = handle, prefix
        self.wait_question, self.poll_seconds, self.heartbeat_seconds = wait_question, poll_seconds, heartbeat_seconds
        self.interactive = _interactive() if interactive is None else interactive
        self.outbox = outbox or Outbox(outbox_path(handle.id))
        self.state: SessionState | None = None
        self.synced_at = time.monotonic()
        self.shown_question: str | None = None
        self.question_section: str | None = None    # the section whose question is on screen
        self.question_entry_id: str | None = None   # ... and the question's entry (`question-N`)
        self.began: tuple[str | None, str | None] | None = None   # (question, section) at the first keystroke
        self.counter = 0
        self.ended = asyncio.Event()
        self.presence: bool | None = None
        self.lock = asyncio.Lock()
        self._read: Callable[[str], Any] | None = None
        self.notices = Notices()
        self.draft_file = draft_path(handle.id)
        self.draft = self._take_draft()       # what a Ctrl-C'd join of this session left half-typed

    # ------------------------------------------------------------------------------------------ output
    def say(self, text: str) -> None:
        console.print(text, soft_wrap=True, highlight=False)

    def clock(self, seconds: float | None) -> str:
        from client.interview.calls import fmt_seconds

        if seconds is None or self.state is None:
            return fmt_seconds(seconds)
        live = self.state.status in ("IN_PROGRESS", "PAUSED")      # the clock keeps running while paused
        return fmt_seconds(max(0.0, seconds - (time.monotonic() - self.synced_at)) if live else seconds)

    def toolbar(self) -> str:
        s = self.state
        if s is None:
            return ""
        if s.status in CLOSING_STATUSES or self.ended.is_set():
            return (f" the interview has ended ({status_text(s.colloquy_status, s.status, s.exit_reason)}): Enter leaves; anything you "
                    f"type now is saved in {self.outbox.path}, not sent ")
        sec = s.current_section
        section = f"{sec.title} {self.clock(s.seconds_remaining_in_section)}" if sec else "-"
        return (f" {status_text(s.colloquy_status, s.status)} · {s.phase} · section {section} · {self.clock(s.seconds_remaining_overall)} left"
                + (" · presence off" if self.presence is False else "") + " ")

    def prompt(self) -> str:
        return "(ended) you> " if self.ended.is_set() else "you> "

    # ------------------------------------------------------------------------------------ the session
    async def refresh(self, state: SessionState, announce: bool = True) -> None:
        """Take in a newer state: say what changed; record and show a new question."""
        from client.interview.calls import InterviewClientError, fmt_seconds, submit_entry

        async with self.lock:
            prev, self.state, self.synced_at = self.state, state, time.monotonic()
            if self.ended.is_set():
                return
            if state.status in CLOSING_STATUSES:
                self.ended.set()
                self.say(f"[bold]the interview has ended[/bold] — "
                         f"{escape(status_text(state.colloquy_status, state.status, state.exit_reason))}: `colloquy interview essay {self.handle.id} "
                         f"--wait` prints the essay. Anything you type now is saved in {self.outbox.path}, not sent; "
                         f"Enter leaves.")
                self._wake_prompt()
                return
            if announce and prev is not None:
                if prev.status != "PAUSED" and state.status == "PAUSED":
                    self.say(f"[yellow]⏸ paused[/yellow] — {escape(state.waiting_for)}")
                elif prev.status == "PAUSED" and state.status == "IN_PROGRESS":
                    self.say("[green]▶ resumed[/green]")
                await self._show_notices(state)
                if prev.phase != state.phase:
                    self.say(f"[dim]phase: {state.phase}[/dim]")
            question = state.next_question
            if state.status == "IN_PROGRESS" and question and question != self.shown_question:
                self.shown_question = question
                self.question_section = state.current_section.id if state.current_section else None
                self.question_entry_id = state.question_entry_id
                self.counter += 1
                if not state.question_entry_id:     # a run from before the engine recorded its questions itself
                    try:
                        await submit_entry(self.handle, TranscriptEntry(entry_id=f"{self.prefix}-{self.counter}-q",
                                                                        speaker="interviewer", text=question))
                    except InterviewClientError as exc:
                        self.say(f"[yellow]{escape(str(exc))}[/yellow]")
                self.say(f"[cyan]Interviewer[/cyan] \\[{state.phase}, {fmt_seconds(state.seconds_remaining_overall)}"
                         f" left]: {escape(question)}")

    async def _show_notices(self, state: SessionState) -> None:
        """Section boundaries and time warnings since the last look (the event log), one line each."""
        if state.current_section is not None:
            self.notices.titles.setdefault(state.current_section.id, state.current_section.title)
        while self.notices.cursor < state.last_event_id:
            before = self.notices.cursor
            try:
                page = await self.handle.query(QUERY_EVENT_LOG, before, result_type=EventLogPage)
            except (WorkflowQueryFailedError, RPCError):
                return          # a blip: the next look reads them
            for n in self.notices.take(page.events):
                style = "yellow" if n["kind"] == "time_warning" else "bold"
                self.say(f"[{style}]{'⏰' if n['kind'] == 'time_warning' else '—'} {escape(n['text'])}[/{style}]")
            if self.notices.cursor == before:
                return

    def _take_draft(self) -> str:
        try:
            return self.draft_file.read_text(encoding="utf-8").strip()
        except OSError:
            return ""

    def save_draft(self, text: str) -> None:
        """Ctrl-C: the half-typed line waits for the next join (nothing to keep: an earlier draft is dropped)."""
        if text.strip():
            self.draft_file.parent.mkdir(parents=True, exist_ok=True)
            self.draft_file.write_text(text, encoding="utf-8")
            self.say(f"[yellow]interrupted: your unsent text is saved in {self.draft_file}; the next "
                     f"`colloquy interview join {self.handle.id}` offers it[/yellow]")
        else:
            self.draft_file.unlink(missing_ok=True)

    def _wake_prompt(self) -> None:
        """Redraw the prompt (it now says the session ended)."""
        try:
            from prompt_toolkit.application.current import get_app_or_none
        except ImportError:
            return
        app = get_app_or_none()
        if app is not None:
            app.invalidate()

    async def watch(self) -> None:
        from client.interview.calls import InterviewClientError, session_state

        while not self.ended.is_set():
            await asyncio.sleep(self.poll_seconds)
            try:
                await self.refresh(await session_state(self.handle))
            except InterviewClientError:
                continue     # a blip (server restarting, network): the next poll tries again

    async def heartbeat(self) -> None:
        """Presence (the `heartbeat` update); a server without it: said once, join goes on."""
        seq = 0
        while not self.ended.is_set():
            seq += 1
            try:
                state = await self.handle.execute_update(
                    UPDATE_HEARTBEAT, Heartbeat(client_id=self.prefix, role="interviewee", seq=seq),
                    result_type=SessionState)
                self.presence = True
                await self.refresh(state)
            except WorkflowUpdateFailedError as exc:
                message = error_message(exc)
                if any(marker in message.lower() for marker in _UNKNOWN_UPDATE):
                    self.presence = False
                    self.say("[dim]presence is not supported by this server: no heartbeats (the session will not "
                             "pause by itself if you leave; /pause does)[/dim]")
                    return
            except RPCError:
                pass         # network trouble: the next beat tries again
            await asyncio.sleep(self.heartbeat_seconds)

    # -------------------------------------------------------------------------------------------- input
    async def run(self) -> None:
        from client.interview.calls import _print_state, wait_for_state

        state = await wait_for_state(self.handle, lambda s: s.status not in ("NOT_STARTED", "PLANNING"), 120.0)
        _print_state(state)
        self.say(escape(JOIN_HELP))
        earlier = self.outbox.undelivered()
        if earlier:
            self.say(f"[yellow]{len(earlier)} answer(s) typed earlier in this session were not delivered; they are "
                     f"saved in {self.outbox.path}[/yellow]")
        self.notices.cursor = state.last_event_id        # from now on (the current section is on screen)
        if self.draft:
            self.say(f"[yellow]you left this unsent when you pressed Ctrl-C last time"
                     f"{' (it is in the prompt: Enter sends it)' if self.interactive else ''}:[/yellow] "
                     f"{escape(self.draft)}")
        # (the engine records its questions itself: shown as the question in force; a run from before that: join
        # recorded the question it showed, and a rejoin must not record it twice)
        self.shown_question = None if state.question_entry_id else await self._last_recorded_question(state)
        if self.shown_question:
            self.question_section = state.current_section.id if state.current_section else None
            self.question_entry_id = state.question_entry_id
            self.say(f"[cyan]Interviewer[/cyan] (asked already): {escape(self.shown_question)}")
        await self.refresh(state)
        if self.ended.is_set():
            return
        tasks = [asyncio.create_task(self.watch()), asyncio.create_task(self.heartbeat())]
        try:
            if self.interactive:
                await self._interactive_loop()
            else:
                reader = LineReader()
                self._read = reader.read
                await self._loop()
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _last_recorded_question(self, state: SessionState) -> str | None:
        """Rejoining: the question on screen is already in the transcript as the interviewer's last entry: do not
        record it twice."""
        if not state.next_question:
            return None
        try:
            view = await self.handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        except (WorkflowQueryFailedError, RPCError):
            return None
        asked = [e for e in view.entries if e.speaker == "interviewer"]
        return state.next_question if asked and asked[-1].text == state.next_question else None

    async def _interactive_loop(self) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.patch_stdout import patch_stdout

        session: PromptSession[str] = PromptSession()

        def typing(buffer: Any) -> None:      # the first keystroke of an answer: the question it answers
            if buffer.text.strip() and self.began is None:
                self.began = (self.question_entry_id, self.question_section)
            elif not buffer.text.strip():
                self.began = None

        session.default_buffer.on_text_changed += typing

        async def read(prompt: str) -> str | None:
            default, self.draft = (self.draft, "") if prompt == "you> " else ("", self.draft)
            try:
                line = await session.prompt_async(lambda: self.prompt() if prompt == "you> " else prompt,
                                                  bottom_toolbar=self.toolbar, refresh_interval=0.5,
                                                  default=default)
            except EOFError:
                return None
            except KeyboardInterrupt:
                self.save_draft(session.default_buffer.text)
                raise               # exit 130 (client/errors.py: interrupted)
            if default:
                self.draft_file.unlink(missing_ok=True)     # the offered draft is in the line now
            return line

        self._read = read
        with patch_stdout(raw=True):
            await self._loop()

    async def _loop(self) -> None:
        from client.interview.calls import (
            InterviewClientError,
            ask_assistant,
            control_session,
            session_state,
            wait_for_state,
        )

        assert self._read is not None
        while True:
            line = await self._read("you> ")
            text = (line or "").strip()
            seen, self.began = self.began or (self.question_entry_id, self.question_section), None
            if line is None or text == "/quit" or (not text and self.ended.is_set()):
                if self.ended.is_set():
                    self.say(f"left {self.handle.id}")
                else:
                    self.say(f"left {self.handle.id}; it keeps running (rejoin with "
                             f"`colloquy interview join {self.handle.id}`)")
                return
            if not text:
                continue
            if self.ended.is_set() and text not in ("/help", "/?", "/state"):
                if not text.startswith("/"):
                    entry = self._entry(text, "a")
                    self.outbox.typed(entry)
                    self.outbox.not_delivered(entry.entry_id, "the interview had ended")
                    self.say(f"[red]not delivered: the interview has ended[/red] — your answer is saved in "
                             f"{self.outbox.path}")
                    return
                self.say("[yellow]the interview has ended: only /state, /help and /quit work now[/yellow]")
                continue
            try:
                if text in ("/help", "/?"):
                    self.say(escape(JOIN_HELP))
                elif text == "/state":
                    from client.interview.calls import _print_state

                    _print_state(await session_state(self.handle))
                elif text in ("/pause", "/resume", "/end", "/done"):
                    action = {"/done": "candidate_done"}.get(text, text[1:])
                    new = await control_session(self.handle, action, reason="from colloquy interview join")
                    self.say(f"{action}: status {status_text(new.colloquy_status, new.status)}"
                             + (f" — {escape(new.waiting_for)}" if new.waiting_for else ""))
                    await self.refresh(new, announce=False)
                elif text.startswith("/ask"):
                    answer = await ask_assistant(self.handle, text[4:].strip())
                    self.say(f"[magenta]assistant[/magenta]: {escape(answer.text)}"
                             + (f"  \\[flagged: {escape(answer.flag_reason or '')}]" if answer.flagged else ""))
                elif text == "/code":
                    code_lines: list[str] = []
                    while (code_line := await self._read("... ")) not in (None, "."):
                        code_lines.append(code_line)  # type: ignore[arg-type]
                    await self._send([self._entry("\n".join(code_lines), "code", kind="code")])
                elif text.startswith("/"):
                    self.say(f"[yellow]unknown command {escape(text.split()[0])}[/yellow]\n{escape(JOIN_HELP)}")
                else:
                    last_question = self.shown_question
                    await self._send(self._answer(text, seen))
                    if not self.interactive and not self.ended.is_set():
                        # piped input: give the engine a moment to push its next question before the next line
                        await wait_for_state(self.handle, _moved_on(last_question), self.wait_question)
                        await self.refresh(await session_state(self.handle))
            except InterviewClientError as exc:
                # A rejected entry changes nothing in the session: say why and carry on.
                self.say(f"[red]{escape(str(exc))}[/red]")

    def _entry(self, text: str, tag: str, kind: str = "message",
               seen: tuple[str | None, str | None] | None = None) -> TranscriptEntry:
        """`seen`: the question and section on screen when the person began typing it (else: now)."""
        self.counter += 1
        question, section = seen or (self.question_entry_id, self.question_section)
        return TranscriptEntry(entry_id=f"{self.prefix}-{self.counter}-{tag}", speaker="interviewee", text=text,
                               kind=kind, client_timestamp=datetime.now(UTC),
                               reply_to_section_id=section, reply_to_question_id=question)

    def _limit(self) -> int:
        return self.state.max_entry_chars if self.state is not None else MAX_ENTRY_CHARS

    def _answer(self, text: str, seen: tuple[str | None, str | None] | None = None) -> list[TranscriptEntry]:
        """An answer as entries: one, or several cut between sentences when it is over the engine's limit — then
        numbered (`answer_id`, `part`, `parts`): the engine takes them as one answer and decides after the last."""
        first = self._entry(text, "a", seen=seen)
        parts = split_answer(text, self._limit()) or [text]
        if len(parts) == 1:
            return [first]
        return [first.model_copy(update={"text": part, "entry_id": first.entry_id + (f"-{n}" if n > 1 else ""),
                                         "answer_id": first.entry_id, "part": n, "parts": len(parts)})
                for n, part in enumerate(parts, start=1)]

    async def _send(self, entries: list[TranscriptEntry]) -> None:
        """Saved first (every part), then sent in order; delivered or not, the outbox says which (and the screen,
        when not: a refused part and the parts after it are not delivered)."""
        from client.interview.calls import InterviewClientError, session_state, submit_entry

        for entry in entries:
            self.outbox.typed(entry)
        late = False
        for i, entry in enumerate(entries):
            try:
                result = await submit_entry(self.handle, entry)
            except InterviewClientError as exc:
                for rest in entries[i:]:
                    self.outbox.not_delivered(rest.entry_id, str(exc))
                try:
                    await self.refresh(await session_state(self.handle))
                except InterviewClientError:
                    pass
                why = "the interview has ended" if self.ended.is_set() else str(exc)
                done = f" ({i} of {len(entries)} parts were delivered)" if i else ""
                self.say(f"[red]not delivered: {escape(why)}[/red]{done} — your text is saved in {self.outbox.path}")
                return
            self.outbox.delivered(entry.entry_id, result.entry.seq)
            late = late or result.entry.late
        if len(entries) > 1:
            self.say(f"[dim]{parts_note(len(entries), self._limit())}[/dim]")
        if late:
            self.say("[dim](recorded late: it answers the previous section's question, and counts there)[/dim]")
        if entries[0].kind == "code":
            self.say("code submitted")


def _moved_on(last_question: str | None) -> Callable[[SessionState], bool]:
    return lambda s: s.status in CLOSING_STATUSES or bool(s.next_question) and s.next_question != last_question


async def join_session(handle: WorkflowHandle, prefix: str, wait_question: float = 30.0, *,
                       poll_seconds: float = 0.5, heartbeat_seconds: float = 5.0,
                       interactive: bool | None = None) -> None:
    await LiveJoin(handle, prefix, wait_question=wait_question, poll_seconds=poll_seconds,
                   heartbeat_seconds=heartbeat_seconds, interactive=interactive).run()
