"""The interview session's core: its state, the outcome of one step, the 003 event log and activity log, the
section in force and the question in force (`_present`). Every other part of `Session` builds on it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from models.common import LLMUsage
from models.interview import patches as patches
from models.interview.activities import SectionSummaryInput
from models.interview.entries import TranscriptEntry
from models.interview.notes import DecisionRecord, NextQuestion, OrchestratorDecision
from models.interview.plan import SectionSnapshot
from models.interview.workflow import InterviewEvent, InterviewInput, InterviewState, SectionRuntime

from . import coverage, timing
from .events import EventLog
from .instructions import interviewer_instructions, status_instructions

LIVE_STATUSES = ("IN_PROGRESS", "PAUSED")
#: The client id of the interviewer entries the engine records itself (the questions it puts in force).
ENGINE_CLIENT = "engine"

# Behaviour changes that change the workflow's commands are each behind `Session.patched(<id>)` (the workflow
# passes `workflow.patched`); the ids are registered in models/interview/patches.py.
MAX_ASSISTANT_QUERY_CHARS = 2000


@dataclass
class Outcome:
    """What one step of the session did, for the workflow to carry out in this order."""

    events: list[InterviewEvent] = field(default_factory=list)      # appended to the 003 event log
    said: list[str] = field(default_factory=list)                   # appended to the activity log
    upserts: list[tuple[Literal["status", "phase"], str]] = field(default_factory=list)  # search attributes
    summaries: list[tuple[int, SectionSummaryInput]] = field(default_factory=list)  # (section index, input)
    wake: bool = False          # the live loop should look again
    reschedule: bool = False    # the clock should re-plan its next timer

    def types(self) -> list[str]:
        return [e.type for e in self.events]


class SessionBase:
    """One interview's state (`self.state`, an `InterviewState`) and its log."""

    def __init__(self, inp: InterviewInput, workflow_id: str, state: InterviewState | None = None) -> None:
        self.inp, self.wid = inp, workflow_id
        self.state = state if state is not None else InterviewState()
        s = self.state
        self.log = EventLog(s.events_tail, next_id=s.event_seq + 1)
        self.seen = set(s.seen_entry_ids)
        self.ended = False                 # no more entries or controls; the workflow finishes
        self.accepting = s.status not in ("FINALIZING", "TERMINATED")   # (a state carried after its end)
        self.error: str | None = None
        self.last_decision_context: tuple[str, str | None] | None = None   # not carried: a new run decides anew
        self.instructions = status_instructions("NOT_STARTED")
        if s.decision is not None and s.plan is not None:
            self.instructions = interviewer_instructions(s.decision.decision, s.notes, s.research, s.plan)
        self._now = s.started_at or datetime.min
        self._out = Outcome()
        #: Whether a command-changing behaviour change applies (the workflow sets `workflow.patched`; asked only
        #: where the old and new behaviour differ, never from a query or a validator).
        self.patched: Callable[[str], bool] = lambda _patch_id: True

    def _begin(self, now: datetime) -> Outcome:
        self._now, self._out = now, Outcome()
        return self._out

    def _event(self, actor: str, type: str, payload: dict[str, Any] | None = None,
               section_id: str | None = None) -> None:
        self._out.events.append(self.log.append(self._now, actor, type, payload,
                                                section_id=section_id or self.current_section_id()))

    def _say(self, line: str) -> None:
        """AgentLogger-style human-readable activity log (000 'Debugging and Logging')."""
        self.state.activity_log.append(f"[{self._now:%H:%M:%S}] {line}")
        self._out.said.append(line)

    def event(self, now: datetime, actor: str, type: str, payload: dict[str, Any] | None = None,
              section_id: str | None = None) -> Outcome:
        out = self._begin(now)
        self._event(actor, type, payload, section_id)
        return out

    def agent_called(self, now: datetime, actor: str, agent: str, summary: str,
                     section_id: str | None = None) -> Outcome:
        out = self._begin(now)
        self._event(actor, "AI_REQUEST", {"agent": agent, "summary": summary}, section_id)
        return out

    def agent_failed(self, now: datetime, actor: str, agent: str, error: str, section_id: str | None = None) -> Outcome:
        out = self._begin(now)
        self._event(actor, "AI_FAILED", {"agent": agent, "error": error}, section_id)
        return out

    def agent_answered(self, now: datetime, actor: str, agent: str, u: LLMUsage,
                       section_id: str | None = None) -> Outcome:
        """AI_RESPONSE (model, tokens, latency, attempt) and the usage totals."""
        out = self._begin(now)
        self.state.usage.add(u)
        self._event(actor, "AI_RESPONSE", {"agent": agent, "model": u.model, "provider": u.provider,
                                           "input_tokens": u.input_tokens, "output_tokens": u.output_tokens,
                                           "latency_ms": u.latency_ms, "attempt": u.attempt,
                                           "fallback_used": u.fallback_used}, section_id)
        return out

    def say(self, now: datetime, line: str) -> Outcome:
        out = self._begin(now)
        self._say(line)
        return out

    def _set_status(self, status: str) -> None:
        self.state.status = status
        self._out.upserts.append(("status", status.lower()))

    def _set_phase(self, phase: str) -> None:
        old, self.state.phase = self.state.phase, phase
        self._out.upserts.append(("phase", phase))
        if self.state.started_at is not None and old != phase:
            self._event("system", "PHASE_CHANGED", {"from": old, "to": phase})
            self._say(f"🔀 Phase: {old} → {phase}")
            self._out.wake = True

    def runtime(self) -> SectionRuntime | None:
        s = self.state
        return s.sections[s.current_index] if 0 <= s.current_index < len(s.sections) else None

    def snapshot(self) -> SectionSnapshot | None:
        s = self.state
        if s.plan is None or not (0 <= s.current_index < len(s.plan.sections)):
            return None
        return s.plan.sections[s.current_index]

    def current_section_id(self) -> str | None:
        rt = self.runtime()
        return rt.id if rt else None

    def elapsed(self, now: datetime) -> float:
        s = self.state
        return max(0.0, timing.seconds_between(s.started_at, now)) if s.started_at else 0.0

    def total_seconds(self) -> int:
        s = self.state
        if s.started_at and s.ends_at:
            return int(timing.seconds_between(s.started_at, s.ends_at))
        return self.inp.duration_seconds

    def next_question(self) -> str | None:
        if self.state.decision is None or self.state.status not in LIVE_STATUSES:
            return None
        return self.state.decision.decision.next_question.text

    def question_asked(self) -> str | None:
        """The question really waiting for an answer: the interviewer's last entry when nobody answered it yet, or
        (structured mode) the question the engine itself put on the interviewee's screen."""
        s = self.state
        last = self._last_turn()
        if last is not None and last.speaker == "interviewer":
            return last.text
        if self.inp.mode == "structured" and s.decision is not None and s.decision.method == "engine":
            answered = last is not None and last.received_at is not None and last.received_at >= s.decision.decided_at
            return None if answered else s.decision.decision.next_question.text
        return None

    def _question_waiting(self) -> bool:
        """The interviewer's last entry is a question still waiting for its answer."""
        last = self._last_turn()
        return last is not None and last.speaker == "interviewer"

    def _last_turn(self) -> TranscriptEntry | None:
        """The last entry that takes a turn: not a later part of an answer, nor a late answer to an earlier
        question (`TranscriptEntry.continues`: those answer nothing put in force since)."""
        return next((e for e in reversed(self.state.transcript_tail) if not e.continues), self.state.last_turn)

    def _waits_in_section(self) -> bool:
        """The question waiting was put in force in the section still running: a phase change or a new run (after
        continue-as-new) does not swap it — only its answer, the section's end, a skip or the end do."""
        d = self.state.decision
        return (d is not None and d.section_id is not None and d.section_id == self.current_section_id()
                and self.patched(patches.KEEP_QUESTION))

    def _present(self, question: NextQuestion, *, brief: str, method: str, event_type: str,
                 extra: dict[str, Any] | None = None) -> None:
        """Make a question the one in force: coverage marking, instructions, the event (when it changed)."""
        s = self.state
        assert s.plan is not None
        marked, how = coverage.resolve_asked_question(question.source_question_id, question.text, s.plan,
                                                      set(s.asked_question_ids))
        # The engine records what it puts in force as the interviewer's entry (`engine_asks`, runs since that
        # change): asked. Runs from before: a decision only proposes (asked when a client's interviewer entry
        # echoes it, `_mark_asked`), except in structured mode, where what the engine presents is on the screen.
        if marked and marked not in s.asked_question_ids and (s.engine_asks or self.inp.mode == "structured"
                                                               and method == "engine"):
            s.asked_question_ids.append(marked)
            self._say(f"✓ Question marked as asked (id: {marked}, method: {how.replace('_', ' ')})")
        previous = s.decision.decision.next_question.text if s.decision else None
        s.model_slow = False        # (a deadline's fallback sets it again after this)
        decision = OrchestratorDecision(phase=s.phase, next_question=question,  # type: ignore[arg-type]
                                        interviewer_brief=brief)
        s.decision = DecisionRecord(decision=decision, decided_at=self._now, method=method,  # type: ignore[arg-type]
                                    marked_question_id=marked, match_method=how,  # type: ignore[arg-type]
                                    section_id=self.current_section_id())
        self.instructions = interviewer_instructions(decision, s.notes, s.research, s.plan)
        if question.text != previous or event_type == "FOLLOWUP_PRESENTED" and method == "engine":
            payload = {"text": question.text, "source": question.source, "question_id": marked, "method": method,
                       **(extra or {})}
            if s.engine_asks:       # the interviewer's entry, recorded here: one event (this one), one id
                entry = self._append_entry(TranscriptEntry(entry_id=f"question-{self.log.next_id}",
                                                           speaker="interviewer", text=question.text,
                                                           client_id=ENGINE_CLIENT), self.current_section_id())
                payload.update(entry_id=entry.entry_id, seq=entry.seq)
            self._event("interviewer_ai" if method != "engine" else "system", event_type, payload)
            s.question_event_id = self.log.last_id
        self._say(f"✅ Update complete — now in {s.phase} phase")

    @property
    def question_entry_id(self) -> str | None:
        """The interviewer entry the engine recorded for the question in force (its id is the presenting event's)."""
        return f"question-{self.state.question_event_id}" if self.state.engine_asks and self.next_question() else None

    def _append_entry(self, entry: TranscriptEntry, section_id: str | None, late: bool = False) -> TranscriptEntry:
        """Number, stamp and record an entry in the transcript and its section (every entry, a client's or the
        engine's own question, lands through here)."""
        s = self.state
        s.transcript_count += 1
        entry = entry.model_copy(update={"seq": s.transcript_count, "received_at": self._now,
                                         "elapsed_seconds": self.elapsed(self._now), "section_id": section_id,
                                         "late": late, "session_id": self.wid})
        self.seen.add(entry.entry_id)
        s.seen_entry_ids.append(entry.entry_id)
        s.transcript_tail.append(entry)
        rt = next((x for x in s.sections if x.id == section_id), None)
        if rt is not None:
            rt.entry_ids.append(entry.entry_id)
        return entry
