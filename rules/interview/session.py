"""The interview session as a pure state machine (000's diagram, 003's engine contract) — no Temporal, no I/O.

    create → plan_or_request → set_plan → start
        ├─ entries:   check_entry, accept_entry; attribute_late (which section a late answer belongs to, 003 §5.2)
        ├─ controls:  check_control, control (pause/disconnect, resume/reconnect, candidate_done, end)
        ├─ presence:  heartbeat (first one turns it on; after a disconnect pause: reconnect), presence_deadline
        │             (no interviewee heartbeat for presence_timeout_seconds while IN_PROGRESS → PAUSED)
        ├─ clock:     next_due, on_clock (phases at 15 %/85 %, T-2:00/T-0:30 warnings, section deadlines, the end,
        │             the late grace)
        ├─ sections:  _start_section, _end_section (the next one starts at the deadline itself)
        └─ live step: cycle_begins, merge_notes, add_research, needs_decision → present_decision (adaptive),
                      assess_coverage → follow-up or end of section (structured)
    exits: _end_interview, _complete, terminate (exit reasons: time_expired, coverage_satisfied, candidate_done,
           followup_budget_exhausted, followups_exhausted, ended_by_client, interviewer_closing, system_error)
    views: view (SessionState), waiting_for, allowed_actions; agent inputs: *_input
    continue-as-new: archive_transcript, carry (the whole state as one `InterviewState`)

Every method that changes the session takes `now` (workflow time) and returns an `Outcome`: the events it
appended to the 003 log, the activity-log lines it said, and the effects the workflow must carry out, in order
(search-attribute upserts, section summaries to start, wake the live loop, re-plan the clock). The workflow
(`workflows/interview.py`) applies them; it issues every Temporal command, this class issues none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from models.common import ArtifactRef, LLMUsage
from models.interview import (
    AnalysisInput,
    AnalysisSummary,
    AssistantAnswer,
    AssistantInput,
    AssistantQuery,
    DecisionRecord,
    EventLogPage,
    ExportInput,
    FollowUpAnalysis,
    FollowUpInput,
    Heartbeat,
    InterviewEvent,
    InterviewInput,
    InterviewResult,
    InterviewState,
    NextQuestion,
    NotesState,
    NoteTakerInput,
    OrchestratorDecision,
    OrchestratorInput,
    PlannerInput,
    PlanSnapshot,
    ResearcherInput,
    ResearchItem,
    ResearchOutput,
    SaveTranscriptInput,
    SectionArtifact,
    SectionRuntime,
    SectionSnapshot,
    SectionStatus,
    SectionSummaryInput,
    SessionControl,
    SessionRecord,
    SessionState,
    SubmitEntryResult,
    TranscriptEntry,
    TranscriptView,
    WriterInput,
)
from models.status import interview_status

from . import cadence, coverage, decisions, timing
from .entries import (
    EntryError,
    is_closing_remark,
    is_closing_remark_v1,
    normalize_speaker,
    validate_action,
    validate_entry,
    word_count,
)
from .events import EventLog
from .instructions import interviewer_instructions, status_instructions
from .notes import diff_summary, summary_text
from .notes import merge_notes as merge_note_states
from .phases import phase_for, progress_percent
from .plan import default_plan, follow_up_plan, normalize_plan
from .questions import is_repeat, record_answer
from .similarity import jaccard

LIVE_STATUSES = ("IN_PROGRESS", "PAUSED")

# Behaviour changes that change the workflow's commands, each behind `Session.patched(<id>)` (the workflow passes
# `workflow.patched`: histories recorded before the change replay the old way; new runs take the new way).
PATCH_LATE_GRACE = "interview-late-grace-only-for-the-previous-question"
PATCH_CLOSING = "interview-closing-needs-a-person-and-no-topic-turn"
PATCH_LISTEN = "interview-listeners-only-on-interviewee-content"
PATCH_ENDS_AT = "interview-ends-at-follows-early-sections"
PATCH_KEEP_QUESTION = "interview-question-kept-until-answered"      # not swapped at a phase change or a new run
PATCH_NO_REPEAT = "interview-no-repeated-question"                  # an answered question is never asked again
PATCH_POOL_EXHAUSTED = "interview-section-ends-when-followups-run-out"
PATCH_LATE_SUMMARY = "interview-summary-after-late-grace"           # late answers reach the section summary
PATCH_CLOCK_CATCH_UP = "interview-clock-catches-up"                 # a late timer settles everything due
PATCH_END_BEFORE_START = "interview-end-before-start-stays-ended"   # an `end` delivered with the start
PATCH_PLANNER_FITS = "interview-planner-times-fit-the-duration"     # a model's section times fill the duration
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


class Session:
    """One interview's state (`self.state`, an `InterviewState`) and every decision about it."""

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

    # ============================================================================= outcomes and the log
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

    # ===================================================================================== planning
    def create(self, now: datetime) -> Outcome:
        """INTERVIEW_CREATED, status PLANNING — unless an `end` delivered with the start (handled before the run
        began) already ended it: then it was logged as created first, and it stays ended."""
        out = self._begin(now)
        if self.ended and self.patched(PATCH_END_BEFORE_START):
            return out
        self._created()
        self._set_status("PLANNING")
        return out

    def _created(self) -> None:
        inp = self.inp
        self._event("system", "INTERVIEW_CREATED", {"topic": inp.topic, "mode": inp.mode, "style": inp.style,
                                                    "duration_seconds": inp.duration_seconds,
                                                    "previous_session_id": inp.previous_session_id})

    def load_previous(self, record: SessionRecord) -> None:
        """000 follow-ups: the earlier session's transcript (tagged with its id) and notes."""
        self.state.previous_transcript = [e.model_copy(update={"session_id": e.session_id or record.workflow_id})
                                          for e in record.transcript]
        self.state.notes = record.notes

    def plan_or_request(self, record: SessionRecord | None = None) -> PlanSnapshot | PlannerInput:
        """A plan that needs no Planner (given, from sections, or a follow-up on one of the previous session's
        suggested topics: its starter questions), else what to ask the Planner."""
        inp = self.inp
        if record is not None:
            fu = record.follow_up or FollowUpAnalysis(summary="")
            topic = inp.follow_up_topic or (fu.suggested_topics[0].title if fu.suggested_topics else inp.topic)
            chosen = next((t for t in fu.suggested_topics if t.title.lower() == topic.lower()), None)
            if chosen is not None:
                return follow_up_plan(record.plan, topic, fu.summary, chosen.suggested_questions, record.workflow_id)
            return PlannerInput(topic=topic, context=inp.context, duration_seconds=inp.duration_seconds, mode=inp.mode,
                                follow_up_topic=topic, previous_summary=fu.summary)
        if inp.plan is not None:
            return inp.plan
        if inp.sections:
            return PlanSnapshot(topic=inp.topic, research_goal=inp.context or inp.topic, angle=inp.topic,
                                sections=inp.sections)
        return PlannerInput(topic=inp.topic, context=inp.context, duration_seconds=inp.duration_seconds, mode=inp.mode)

    def planner_fallback(self, request: PlannerInput) -> PlanSnapshot:
        """000: the Planner failed — a plan derived from the topic."""
        return default_plan(request.topic, request.context, request.mode, request.duration_seconds)

    def as_follow_up(self, record: SessionRecord, request: PlannerInput, planned: PlanSnapshot) -> PlanSnapshot:
        """The Planner's plan for a follow-up topic, marked as the follow-up of `record`."""
        fu = record.follow_up or FollowUpAnalysis(summary="")
        return planned.model_copy(update={"is_follow_up": True, "previous_session_id": record.workflow_id,
                                          "follow_up_context": fu.summary, "topic": request.topic})

    def set_plan(self, now: datetime, plan: PlanSnapshot) -> Outcome:
        out, inp = self._begin(now), self.inp
        p = normalize_plan(plan, inp.mode)
        if not p.sections:
            p = default_plan(inp.topic, inp.context, inp.mode, inp.duration_seconds)
        self.state.plan = p
        self._event("system", "PLAN_READY", {"research_goal": p.research_goal, "angle": p.angle,
                                             "sections": [s.id for s in p.sections],
                                             "questions": sum(len(s.questions) for s in p.sections)})
        return out

    def start(self, now: datetime) -> Outcome:
        """INTERVIEW_STARTED: share the duration among the sections and start the first one."""
        out, s = self._begin(now), self.state
        assert s.plan is not None
        durations = timing.allocate_durations(s.plan.sections, self.inp.duration_seconds)
        total = sum(durations) if all(x.duration_seconds for x in s.plan.sections) else self.inp.duration_seconds
        if (self.inp.plan is None and not self.inp.sections and total != self.inp.duration_seconds
                and self.patched(PATCH_PLANNER_FITS)):
            # a model's plan: its section times are shares of the duration the person asked for (a small model
            # gave 10 s + 5 s for a 15-minute interview, which then ended before the first answer)
            durations = timing.fit_durations(durations, self.inp.duration_seconds)
            total = self.inp.duration_seconds
        s.started_at, s.ends_at = now, now + timedelta(seconds=total)
        s.sections = [SectionRuntime(id=x.id, duration_seconds=d,
                                     followup_budget=x.followup_cap if self.inp.mode == "structured" else 0,
                                     coverage_flags=coverage.initial_flags(x))
                      for x, d in zip(s.plan.sections, durations, strict=False)]
        self._set_status("IN_PROGRESS")
        self._event("system", "INTERVIEW_STARTED", {"duration_seconds": total, "ends_at": s.ends_at.isoformat(),
                                                    "sections": [{"id": x.id, "seconds": d} for x, d in
                                                                 zip(s.plan.sections, durations, strict=False)]})
        self._set_phase("opening")
        self._say(f"🎬 Interview started: {len(s.sections)} sections, {total // 60} min")
        self._start_section(0)
        return out

    def finished_before_this_run(self) -> bool:
        """A state carried after the interview ended (the end raced with continue-as-new): nothing is live any
        more — no entries, no controls, no clock; the run only writes up."""
        if self.state.status in ("FINALIZING", "TERMINATED"):
            self.ended, self.accepting = True, False
        return self.ended

    @property
    def started(self) -> bool:
        return self.state.started_at is not None

    # ====================================================================================== entries
    def check_entry(self, entry: TranscriptEntry) -> TranscriptEntry:
        """The entry with its speaker normalised, or EntryError saying what is wrong."""
        if not self.accepting:
            raise EntryError(f"interview {self.wid} has ended ({self.state.exit_reason or 'finished'}); "
                             f"entries are no longer accepted")
        checked = validate_entry(entry, self.inp.max_entry_chars)
        self._check_order(checked)
        return checked

    def _check_order(self, entry: TranscriptEntry) -> None:
        """Entries land in their client's order: one numbered below an entry already recorded from the same client
        (an update the client gave up on, delivered late) is refused, never recorded after it. Its id seen
        before: a duplicate, answered as such."""
        if entry.client_id is None or entry.client_seq is None or entry.entry_id in self.seen:
            return
        last = self.state.client_seqs.get(entry.client_id, 0)
        if entry.client_seq <= last:
            raise EntryError(f"entry {entry.entry_id!r} is out of order: client {entry.client_id!r} already sent "
                             f"entry number {last}, this one is number {entry.client_seq} (the client gave up on "
                             f"it); send it again with a new number")

    def reject_entry(self, now: datetime, entry: TranscriptEntry, error: EntryError) -> Outcome:
        out = self._begin(now)
        self._event("system", "ENTRY_REJECTED", {"entry_id": entry.entry_id, "error": str(error)})
        return out

    def accept_entry(self, now: datetime, raw: TranscriptEntry) -> tuple[TranscriptEntry, bool, Outcome]:
        """Record an entry: (the recorded entry, whether it was a duplicate, outcome). Dedupe by entry id."""
        out, s = self._begin(now), self.state
        entry = validate_entry(raw, self.inp.max_entry_chars)
        if entry.entry_id in self.seen:
            existing = next((e for e in s.transcript_tail if e.entry_id == entry.entry_id), entry)
            return existing, True, out
        if entry.client_id is not None and entry.client_seq is not None:
            s.client_seqs[entry.client_id] = max(entry.client_seq, s.client_seqs.get(entry.client_id, 0))
        section_id, late = self.attribute_late(now, entry)
        s.transcript_count += 1
        entry = entry.model_copy(update={"seq": s.transcript_count, "received_at": now,
                                         "elapsed_seconds": self.elapsed(now), "section_id": section_id,
                                         "late": late, "session_id": self.wid})
        self.seen.add(entry.entry_id)
        s.seen_entry_ids.append(entry.entry_id)
        s.transcript_tail.append(entry)
        rt = next((x for x in s.sections if x.id == section_id), None)
        if rt is not None:
            rt.entry_ids.append(entry.entry_id)
        if entry.speaker == "interviewee":
            s.answered_questions = record_answer(s.answered_questions, s.transcript_tail[:-1])
            if rt is not None:
                rt.candidate_words += word_count(entry.text)
            etype = "CANDIDATE_CODE_SUBMISSION" if entry.kind == "code" else "CANDIDATE_MESSAGE"
            self._event("candidate", etype, {"entry_id": entry.entry_id, "seq": entry.seq, "text": entry.text,
                                             "late": late, "client_timestamp": entry.client_timestamp.isoformat()
                                             if entry.client_timestamp else None}, section_id=section_id)
        else:
            self._event("interviewer", "INTERVIEWER_MESSAGE", {"entry_id": entry.entry_id, "seq": entry.seq,
                                                               "text": entry.text}, section_id=section_id)
            self._mark_asked(entry.text)
            if s.status in LIVE_STATUSES and self._closes(entry.text):
                self._event("system", "CLOSING_DETECTED", {"entry_id": entry.entry_id})
                self._say("👋 Closing remark detected — ending the interview")
                self._end_interview("interviewer_closing", section_reason="interview_ended")
        out.wake = True
        return entry, False, out

    def echoes_decision(self, text: str) -> bool:
        """Whether an interviewer entry repeats the question the engine proposed (the decision in force)."""
        d = self.state.decision
        if d is None:
            return False
        proposed = d.decision.next_question.text
        return " ".join(text.split()) == " ".join(proposed.split()) or jaccard(text, proposed) > coverage.MATCH_THRESHOLD

    def _mark_asked(self, text: str) -> None:
        """000 question tracking, when an interviewer entry asks: the decided question's id when the entry echoes
        the decision in force, else the best unasked plan question with Jaccard > 0.6. Decisions only propose."""
        s = self.state
        if s.plan is None:
            return
        asked = set(s.asked_question_ids)
        d = s.decision
        marked, how = None, "jaccard"
        if d is not None and d.marked_question_id and d.marked_question_id not in asked and self.echoes_decision(text):
            marked, how = d.marked_question_id, d.match_method if d.match_method != "none" else "direct_id"
        if marked is None:
            marked = coverage.find_matching_question_id(text, s.plan, asked)
        if marked:
            s.asked_question_ids.append(marked)
            self._say(f"✓ Question marked as asked (id: {marked}, method: {how.replace('_', ' ')})")

    def _closes(self, text: str) -> bool:
        """Closing detection (000, see docs/interview.md "Closing"): a closing remark with no question or topic
        turn after it ends the interview when a person wrote it; the engine's own proposal (the decision in force,
        recorded as the interviewer's line by `join`/`rehearse`) closes only in the wrap-up phase."""
        old = is_closing_remark_v1(text)
        if not old:
            return False
        new = is_closing_remark(text) and (self.state.phase == "wrap_up" or not self.echoes_decision(text))
        return new if new == old or self.patched(PATCH_CLOSING) else old

    def submit_result(self, entry: TranscriptEntry, duplicate: bool) -> SubmitEntryResult:
        s = self.state
        return SubmitEntryResult(entry=entry, duplicate=duplicate, status=s.status, phase=s.phase,
                                 section_id=self.current_section_id(), next_question=self.next_question(),
                                 interviewer_instructions=self.instructions)

    def attribute_late(self, now: datetime, entry: TranscriptEntry | None = None) -> tuple[str | None, bool]:
        """Which section an entry arriving `now` belongs to, and whether it is late (003 §5.2).

        Within `late_grace_seconds` (15 s) of a section ending by time, an interviewee's entry belongs — late — to
        that section only while it still answers that section's question: the client says which section's question
        it showed (`reply_to_section_id`), else it arrives before the new section's first interviewer entry. Any
        other entry belongs to the section in force. After the last section it belongs to the last one (late while
        in grace)."""
        grace, sections, current = self.inp.late_grace_seconds, self.state.sections, self.state.current_index
        if 0 <= current < len(sections):
            if current > 0:
                prev = sections[current - 1]
                if prev.exit_reason == "time_expired" and timing.in_grace(now, prev.ended_at, grace):
                    if entry is None or self._answers_previous(prev, sections[current], entry) \
                            or not self.patched(PATCH_LATE_GRACE):
                        return prev.id, True
            return sections[current].id, False
        if sections and current >= len(sections):
            last = sections[-1]
            return last.id, last.ended_at is not None and timing.in_grace(now, last.ended_at, grace)
        return None, False

    def _answers_previous(self, prev: SectionRuntime, rt: SectionRuntime, entry: TranscriptEntry) -> bool:
        if normalize_speaker(entry.speaker) != "interviewee":
            return False
        if entry.reply_to_section_id:
            return entry.reply_to_section_id == prev.id
        asked_here = {e.entry_id for e in self.state.transcript_tail
                      if e.section_id == rt.id and e.speaker == "interviewer"}
        return not asked_here

    # ===================================================================================== controls
    def check_control(self, control: SessionControl) -> str:
        """The normalised action, or EntryError (unknown action, or the interview has ended)."""
        action = validate_action(control.action)
        if not self.accepting:
            raise EntryError(f"interview {self.wid} has ended ({self.state.exit_reason or 'finished'}); "
                             f"{action!r} is not possible any more")
        return action

    def reject_control(self, now: datetime, control: SessionControl, error: EntryError) -> Outcome:
        out = self._begin(now)
        self._event("system", "CONTROL_REJECTED", {"action": control.action, "error": str(error)})
        return out

    def control(self, now: datetime, action: str, reason: str | None = None) -> Outcome:
        """pause/disconnect (the clock keeps running), resume/reconnect, candidate_done, end."""
        out, s = self._begin(now), self.state
        if action in ("pause", "disconnect"):
            self._pause(action, reason)
        elif action in ("resume", "reconnect"):
            self._resume(action)
        elif action == "candidate_done":
            self._candidate_done()
        elif action == "end":
            if s.status == "NOT_STARTED" and not self.log.events and self.inp.carried is None:
                self._created()         # delivered with the start, before the run began: the log starts as ever
            if s.status in LIVE_STATUSES or s.status in ("PLANNING", "NOT_STARTED"):
                self._end_interview("ended_by_client", section_reason="interview_ended")
        out.wake = True
        return out

    def _pause(self, action: str, detail: str | None = None) -> None:
        s = self.state
        if s.status != "IN_PROGRESS":
            return
        s.paused_since, s.paused_reason = self._now, action
        self._set_status("PAUSED")
        self._event("client" if action == "pause" else "system", "SESSION_PAUSED", {"reason": action, "detail": detail})
        self._say(f"⏸️ Session paused ({action}{': ' + detail if detail else ''}); the clock keeps running")

    def _resume(self, action: str) -> None:
        s = self.state
        if s.status != "PAUSED":
            return
        paused = timing.seconds_between(s.paused_since, self._now) if s.paused_since else 0.0
        s.paused_since, s.paused_reason = None, None
        self._set_status("IN_PROGRESS")
        self._event("client", "SESSION_RESUMED", {"reason": action, "paused_seconds": paused})
        self._say(f"▶️ Session resumed ({action}) after {paused:.0f}s")
        if self.presence_on():
            s.presence_from = self._now      # absence counts again from the resume, not from before the pause
            self._out.reschedule = True

    # ===================================================================================== presence
    def presence_on(self) -> bool:
        """Presence is on once an interviewee heartbeat arrived (and the timeout is not 0): sessions whose
        clients never heartbeat (CLI scripts, rehearsals, recorded histories) are never paused by it."""
        return self.inp.presence_timeout_seconds > 0 and self.state.interviewee_seen_at is not None

    def presence_deadline(self) -> datetime | None:
        """When the interviewee counts as gone: no heartbeat for `presence_timeout_seconds` (while IN_PROGRESS)."""
        s = self.state
        if not self.presence_on() or s.status != "IN_PROGRESS" or s.interviewee_seen_at is None:
            return None
        since = max(s.interviewee_seen_at, s.presence_from or s.interviewee_seen_at)
        return since + timedelta(seconds=self.inp.presence_timeout_seconds)

    def heartbeat(self, now: datetime, hb: Heartbeat) -> Outcome:
        """A client showing the session is still there. The interviewee's first heartbeat turns presence on; one
        after a disconnect pause is the reconnect (resume; the question in force stays the same one — clients
        re-show it, nothing is added to the transcript). A pause by a person is not undone by heartbeats."""
        out, s = self._begin(now), self.state
        if hb.role != "interviewee" or self.ended or self.inp.presence_timeout_seconds <= 0:
            return out
        first = s.interviewee_seen_at is None
        s.interviewee_seen_at, s.interviewee_client = now, hb.client_id
        if first:
            self._say(f"🔌 Interviewee connected ({hb.client_id}): paused after "
                      f"{self.inp.presence_timeout_seconds:g}s without a heartbeat")
            out.reschedule = True
        if s.status == "PAUSED" and s.paused_reason == "disconnect":
            self._resume("reconnect")
        return out

    def _check_presence(self) -> None:
        due = self.presence_deadline()
        if due is not None and self._now >= due:
            self._pause("disconnect", f"no heartbeat from the interviewee for {self.inp.presence_timeout_seconds:g}s")

    def _candidate_done(self) -> None:
        """003 §6.4: 'I'm done' ends the section once minimum content exists; an early skip gets one prompt."""
        rt, sec = self.runtime(), self.snapshot()
        if rt is None or sec is None or self.state.status not in LIVE_STATUSES:
            return
        met = rt.candidate_words >= self.inp.min_content_words
        self._event("candidate", "CANDIDATE_DONE_REQUESTED", {"words": rt.candidate_words, "minimum_met": met,
                                                              "already_prompted": rt.min_content_prompted},
                    section_id=rt.id)
        if met or rt.min_content_prompted:
            self._end_section("candidate_done", {"minimum_content_met": met})
            return
        rt.min_content_prompted = True
        self._present(NextQuestion(text=decisions.MINIMUM_CONTENT_PROMPT, target_section_id=rt.id, source="system"),
                      brief="The interviewee wants to move on: ask for a brief outline first.", method="engine",
                      event_type="PROMPT_PRESENTED", extra={"kind": "minimum_content"})

    def check_assistant_query(self, query: AssistantQuery) -> None:
        if not query.query_id.strip():
            raise EntryError("query_id is required")
        if not query.text.strip():
            raise EntryError("the assistant query is empty")
        if len(query.text) > MAX_ASSISTANT_QUERY_CHARS:
            raise EntryError(f"the assistant query is {len(query.text)} characters; "
                             f"the limit is {MAX_ASSISTANT_QUERY_CHARS}")
        if not self.accepting and query.query_id not in self.state.assistant_answers:
            raise EntryError(f"interview {self.wid} has ended; the assistant is closed")

    def assistant_asked(self, now: datetime, query: AssistantQuery) -> tuple[AssistantInput, Outcome]:
        out, sec = self._begin(now), self.snapshot()
        self._event("candidate", "ASSISTANT_QUERY", {"query_id": query.query_id, "text": query.text})
        return AssistantInput(topic=self.inp.topic, section_title=sec.title if sec else "",
                              section_goal=sec.goal if sec else "", query=query), out

    def assistant_unavailable(self, query: AssistantQuery, error: str) -> AssistantAnswer:
        return AssistantAnswer(query_id=query.query_id, text="The assistant is unavailable right now.",
                               flagged=False, flag_reason=error[:200])

    def assistant_answered(self, now: datetime, answer: AssistantAnswer) -> Outcome:
        """003 §8: logged, never changes the interview."""
        out = self._begin(now)
        self.state.assistant_answers[answer.query_id] = answer
        self._event("assistant_ai", "ASSISTANT_RESPONSE", {"query_id": answer.query_id, "text": answer.text,
                                                           "flagged": answer.flagged, "flag_reason": answer.flag_reason})
        return out

    # ======================================================================================== clock
    def next_due(self, now: datetime) -> datetime | None:
        """When the clock must next look: late grace end, else the nearest deadline/warning/phase change/end."""
        s = self.state
        if s.grace_until is not None:
            return min([s.grace_until, *self._summaries_due()])
        if self.ended or s.status not in LIVE_STATUSES:
            return None     # on_clock does nothing then: a timer for a past moment would fire again and again
        candidates: list[datetime] = list(self._summaries_due())
        rt = self.runtime()
        if rt is not None and rt.deadline is not None and rt.started_at is not None:
            candidates.append(rt.deadline)
            warn = timing.next_warning_at(rt.deadline, self.inp.warning_thresholds_seconds, rt.warnings_sent,
                                          timing.seconds_between(rt.started_at, rt.deadline))
            if warn:
                candidates.append(warn)
        if s.started_at is not None:
            total = self.total_seconds()
            for fraction in (0.15, 0.85):
                at = s.started_at + timedelta(seconds=total * fraction)
                if at > now:
                    candidates.append(at)
        if s.ends_at is not None:
            candidates.append(s.ends_at)
        presence = self.presence_deadline()
        if presence is not None:
            candidates.append(presence)
        return min(candidates) if candidates else None

    def on_clock(self, now: datetime) -> Outcome:
        """Whatever is due at `now`: the end of the late grace, the phase, section warnings and deadline, the end —
        all of it, however late the timer fired (several sections may have run out meanwhile): afterwards nothing
        is due at or before `now`, so the clock never arms a timer for a moment already past."""
        out = self._begin(now)
        for _ in range(4 * len(self.state.sections) + 8):
            self._clock_step(now)
            due = self.next_due(now)
            if due is None or due > now or not self.patched(PATCH_CLOCK_CATCH_UP):
                break
        return out

    def _clock_step(self, now: datetime) -> None:
        s = self.state
        self._start_due_summaries(now)
        if s.grace_until is not None:
            if now >= s.grace_until:
                s.grace_until = None
                self._complete(s.exit_reason or "time_expired")
            return
        if s.started_at is None or s.status not in LIVE_STATUSES:
            return
        self._check_presence()
        new_phase = phase_for(self.elapsed(now), self.total_seconds())
        if new_phase != s.phase:
            self._set_phase(new_phase)
        rt = self.runtime()
        if rt is not None and rt.deadline is not None and rt.started_at is not None:
            section_seconds = timing.seconds_between(rt.started_at, rt.deadline)
            for t in timing.warnings_due(rt.deadline, now, self.inp.warning_thresholds_seconds, rt.warnings_sent,
                                         section_seconds):
                rt.warnings_sent.append(t)
                if now >= rt.deadline:
                    continue        # the timer fired after the section's end: no "time left" for it
                self._event("system", "SECTION_TIME_WARNING", {"seconds_left": t, "deadline": rt.deadline.isoformat()},
                            section_id=rt.id)
                self._say(f"⏰ {timing.fmt_clock(t)} left in section {rt.id}")
            if now >= rt.deadline:
                self._end_section("time_expired")
        if s.ends_at is not None and now >= s.ends_at and not self.ended and s.grace_until is None:
            if self.runtime() is None:      # every section already over: nothing left but to finish
                self._complete(s.exit_reason or "time_expired")
                return
            for later in s.sections[s.current_index + 1:]:
                later.exit_reason, later.substate = "not_reached", "SECTION_ENDED"
            self._end_section("time_expired", start_next=False)

    # ===================================================================================== sections
    def _start_section(self, index: int, at: datetime | None = None) -> None:
        s = self.state
        assert s.plan is not None
        s.current_index = index
        self._out.reschedule = True
        if index >= len(s.sections):
            return
        now = at or self._now
        sec, rt = s.plan.sections[index], s.sections[index]
        duration = rt.duration_seconds or sec.duration_seconds or 60
        deadline = min(now + timedelta(seconds=duration), s.ends_at) if s.ends_at else now + timedelta(seconds=duration)
        rt.started_at, rt.deadline, rt.substate = now, deadline, "SECTION_INTRO"
        self._out.wake = True
        self._event("system", "SECTION_STARTED", {"title": sec.title, "goal": sec.goal, "deadline": deadline.isoformat(),
                                                  "duration_seconds": timing.seconds_between(now, deadline),
                                                  "followup_cap": rt.followup_budget,
                                                  "required_dimensions": [d.name for d in sec.required_dimensions]},
                    section_id=sec.id)
        self._say(f"📂 Section {sec.id} started: {sec.title} (until {timing.fmt_clock(self.elapsed(deadline))})")
        if self.inp.mode == "structured":
            self._present(NextQuestion(text=decisions.primary_prompt(sec), target_section_id=sec.id,
                                       source="plan", source_question_id=sec.questions[0].id if sec.questions else None),
                          brief=f"Present the section goal: {sec.goal}", method="engine", event_type="PROMPT_PRESENTED")
        rt.substate = "SECTION_QUESTION_ACTIVE"

    def _end_section(self, reason: str, extra: dict[str, Any] | None = None, start_next: bool = True) -> None:
        s, rt = self.state, self.runtime()
        if rt is None:
            return
        now = self._now
        if reason == "time_expired" and rt.deadline is not None and rt.deadline <= now:
            now = rt.deadline   # server-authoritative schedule: the next section starts at the deadline itself
        rt.substate, rt.ended_at, rt.exit_reason = "SECTION_ENDED", now, reason
        self._event("system", "SECTION_ENDED", {"reason": reason, "coverage_flags": dict(rt.coverage_flags),
                                                "followups_asked": len(rt.followups_asked), **(extra or {})},
                    section_id=rt.id)
        self._say(f"🏁 Section {rt.id} ended ({reason})")
        if reason == "time_expired" and self.inp.late_grace_seconds > 0 and self.patched(PATCH_LATE_SUMMARY):
            rt.summary_due = now + timedelta(seconds=self.inp.late_grace_seconds)   # late answers belong to it
        else:
            self._summarize_later(s.current_index)
        nxt = s.current_index + 1
        if start_next and nxt < len(s.sections) and reason != "interview_ended":
            self._start_section(nxt, at=now)
            if reason != "time_expired":
                self._reschedule_end(nxt, now, reason)
            return
        s.current_index = len(s.sections)
        self._out.reschedule = True
        if reason == "interview_ended":
            return
        if reason == "time_expired" and self.inp.late_grace_seconds > 0:
            s.exit_reason = "time_expired"
            s.grace_until = now + timedelta(seconds=self.inp.late_grace_seconds)
            self._say(f"⌛ Time is up — accepting late answers for {self.inp.late_grace_seconds:.0f}s")
        else:
            self._complete(reason)

    def _reschedule_end(self, index: int, now: datetime, reason: str) -> None:
        """A section ended early (candidate_done, coverage, budget): the sections left keep their durations, so
        the interview now ends when they do — `ends_at` says so (never later than planned)."""
        s = self.state
        if s.ends_at is None:
            return
        projected = now + timedelta(seconds=sum(rt.duration_seconds for rt in s.sections[index:]))
        if projected >= s.ends_at or not self.patched(PATCH_ENDS_AT):
            return
        s.ends_at = projected
        self._out.reschedule = True
        self._event("system", "SCHEDULE_CHANGED", {"ends_at": projected.isoformat(), "reason": reason,
                                                   "duration_seconds": self.total_seconds()})
        self._say(f"🕒 The interview now ends at {timing.fmt_clock(self.elapsed(projected))} ({reason})")

    def _summaries_due(self) -> list[datetime]:
        return [rt.summary_due for rt in self.state.sections if rt.summary_due is not None]

    def _start_due_summaries(self, now: datetime | None) -> None:
        """Summaries of sections whose late grace is over (`now` None: all of them — the interview is over)."""
        for index, rt in enumerate(self.state.sections):
            if rt.summary_due is not None and (now is None or now >= rt.summary_due):
                rt.summary_due = None
                self._summarize_later(index)

    def _summarize_later(self, index: int) -> None:
        """003 §7: a section in which the interviewee said something gets a summary (the workflow calls the agent)."""
        s = self.state
        if not (0 <= index < len(s.sections)) or s.plan is None:
            return
        rt, sec = s.sections[index], s.plan.sections[index]
        entries = [e for e in s.transcript_tail if e.section_id == rt.id]
        held = {e.entry_id for e in entries}
        archived = list(s.transcript_segments) if any(i not in held for i in rt.entry_ids) else []
        if archived or any(e.speaker == "interviewee" for e in entries):    # (archived: an earlier run held some)
            self._out.summaries.append((index, SectionSummaryInput(section_id=rt.id, title=sec.title, goal=sec.goal,
                                                                   entries=entries, archived=archived)))

    # ======================================================================================== exits
    def _end_interview(self, reason: str, section_reason: str) -> None:
        if self.runtime() is not None:
            self._end_section(section_reason)
        self.state.current_index = len(self.state.sections)
        self._complete(reason)

    def _not_reached(self) -> None:
        """Sections that never started end as `not_reached` (003 §5) whatever ended the interview."""
        for rt in self.state.sections:
            if rt.started_at is None and rt.exit_reason is None:
                rt.exit_reason, rt.substate = "not_reached", "SECTION_ENDED"

    def _complete(self, reason: str) -> None:
        if self.ended:
            return
        s = self.state
        self._not_reached()
        self._start_due_summaries(None)
        if s.ends_at is not None and s.started_at is not None and self._now < s.ends_at:
            s.ends_at = max(s.started_at, self._now)    # it ended now: no time "left" on a finished interview
        s.exit_reason = reason
        self.ended, self.accepting = True, False
        s.grace_until = None
        self._event("system", "INTERVIEW_COMPLETED", {"reason": reason, "entries": s.transcript_count})
        self._set_status("FINALIZING")
        self.instructions = status_instructions("COMPLETED", reason)
        self._say(f"✅ Interview over ({reason}), {s.transcript_count} entries")

    def terminate(self, now: datetime, reason: str, error: str) -> Outcome:
        """INTERVIEW_TERMINATED during the session (structured: the interviewer AI failed after one retry)."""
        out, s = self._begin(now), self.state
        if self.ended:
            return out
        if self.runtime() is not None:
            self._end_section("system_error", {"error": error})
        s.current_index = len(s.sections)
        self._not_reached()
        self._start_due_summaries(None)
        s.exit_reason, self.error = reason, error
        self.ended, self.accepting = True, False
        s.grace_until = None
        self._event("system", "INTERVIEW_TERMINATED", {"reason": reason, "error": error, "entries": s.transcript_count})
        self._set_status("TERMINATED")
        self.instructions = status_instructions("TERMINATED", reason)
        self._say(f"🛑 Interview terminated ({reason}): {error}")
        return out

    def terminate_early(self, now: datetime, error: str) -> Outcome:
        """INTERVIEW_TERMINATED before the session started (the plan could not be prepared)."""
        out = self._begin(now)
        self._event("system", "INTERVIEW_TERMINATED", {"reason": "system_error", "error": error})
        self._set_status("TERMINATED")
        return out

    def early_result(self, error: str) -> InterviewResult:
        return InterviewResult(workflow_id=self.wid, status="TERMINATED", exit_reason="system_error", error=error,
                               usage=self.state.usage)

    # ==================================================================================== live step
    def new_entries(self) -> list[TranscriptEntry]:
        return [e for e in self.state.transcript_tail if e.seq > self.state.processed_seq]

    def cycle_begins(self, now: datetime, new: list[TranscriptEntry]) -> tuple[bool, Outcome]:
        """000 processLiveUpdate: whether the NoteTaker and Researcher run (only when the interviewee said something
        new: an interviewer-only entry gives them nothing to note or look up)."""
        out = self._begin(now)
        said = [e for e in new if e.speaker == "interviewee"]
        if not cadence.should_run_listeners(len(said)) and (not new or self.patched(PATCH_LISTEN)):
            self._say("ℹ️ Skipping NoteTaker/Researcher - no new content" if not new else
                      "ℹ️ Skipping NoteTaker/Researcher - nothing new from the interviewee")
            return False, out
        self._say(f"🎛️ Processing update ({self.progress(now)}% through interview, "
                  f"{self.state.transcript_count} exchanges so far)")
        self._say("   ↳ NoteTaker and Researcher working in parallel...")
        return True, out

    def progress(self, now: datetime) -> int:
        return progress_percent(self.elapsed(now), self.total_seconds())

    def note_taker_input(self) -> NoteTakerInput:
        s = self.state
        assert s.plan is not None
        return NoteTakerInput(topic=s.plan.topic, research_goal=s.plan.research_goal, angle=s.plan.angle,
                              sections=[{"id": x.id, "title": x.title} for x in s.plan.sections],
                              window=cadence.lines(cadence.listen_window(s.transcript_tail, s.processed_seq,
                                                                         cadence.NOTES_WINDOW)),
                              notes_text=summary_text(s.notes), current_section_id=self.current_section_id())

    def merge_notes(self, now: datetime, found: NotesState) -> Outcome:
        out, s = self._begin(now), self.state
        before = s.notes
        s.notes = merge_note_states(s.notes, found)
        self._say(f"📝 NoteTaker found: {diff_summary(before, s.notes)}")
        return out

    def researcher_input(self, now: datetime) -> ResearcherInput:
        s = self.state
        assert s.plan is not None
        recent = [t for t, at in s.researched_at.items()
                  if timing.seconds_between(at, now) < cadence.TOPIC_REFRESH_SECONDS]
        window = cadence.listen_window(s.transcript_tail, s.processed_seq, cadence.RESEARCH_WINDOW)
        return ResearcherInput(topic=s.plan.topic, window=cadence.lines(window),
                               existing_topics=[r.topic for r in s.research], recent_topics=recent)

    def add_research(self, now: datetime, found: ResearchOutput, asked_at: datetime | None = None) -> Outcome:
        """New research items only: a topic is not looked up again for 300 s (counted from `asked_at`, when the
        cycle asked the Researcher)."""
        out, s = self._begin(now), self.state
        at = asked_at or now
        fresh = cadence.fresh_topics([i.topic for i in found.items], s.researched_at, at)
        items: list[ResearchItem] = []
        for item in found.items:
            if item.topic in fresh and item.topic not in [i.topic for i in items]:
                items.append(item)
        s.researched_at = cadence.mark_researched(s.researched_at, [i.topic for i in items], at)
        s.research.extend(items)
        if found.topics_considered:
            self._say(f"🔍 Researcher wants to look up: {', '.join(found.topics_considered[:4])}")
        self._say(f"🔍 Researcher done — {len(items)} new piece(s) of context")
        return out

    def needs_decision(self, now: datetime, new_entries: int, cycle_at: datetime | None = None) -> tuple[bool, Outcome]:
        """Adaptive mode: ask the Orchestrator, or keep the decision in force (a question waits for its answer,
        or nothing new arrived and the decision is < 30 s old as of `cycle_at`, when the cycle began)."""
        out, s = self._begin(now), self.state
        at = cycle_at or now
        context = (s.phase, self.current_section_id())
        changed = context != self.last_decision_context
        if s.decision is not None and self._question_waiting() and (not changed or self._waits_in_section()):
            self._say("ℹ️ Keeping the current decision — the interviewer's question is waiting for an answer")
            return False, out
        if s.decision is not None and cadence.should_reuse_decision(new_entries, s.decision.decided_at, at, changed):
            age = timing.seconds_between(s.decision.decided_at, at)
            self._say(f"ℹ️ Reusing previous Orchestrator decision (no new content, {age:.0f}s since last run)")
            return False, out
        self.last_decision_context = context
        self._say(f"🎯 Orchestrator deciding next move ({self.progress(at)}% done, "
                  f"{len(s.asked_question_ids)} questions asked)")
        return True, out

    def _waits_in_section(self) -> bool:
        """The question waiting was put in force in the section still running: a phase change or a new run (after
        continue-as-new) does not swap it — only its answer, the section's end, a skip or the end do."""
        d = self.state.decision
        return (d is not None and d.section_id is not None and d.section_id == self.current_section_id()
                and self.patched(PATCH_KEEP_QUESTION))

    def _question_waiting(self) -> bool:
        """The interviewer's last entry is a question still waiting for its answer."""
        tail = self.state.transcript_tail
        return bool(tail) and tail[-1].speaker == "interviewer"

    def decision_due(self) -> datetime | None:
        """Adaptive mode: when the decision in force expires under 000's 30 s rule, so the live loop must look
        again without a new entry — only while the session runs and no interviewer question waits for its answer
        (then only a new entry can change anything, and an entry wakes the loop itself). None: no timer needed."""
        s = self.state
        if (self.inp.mode != "adaptive" or s.status != "IN_PROGRESS" or s.decision is None or self.ended
                or self.runtime() is None):
            return None
        if self._question_waiting():
            return None
        return s.decision.decided_at + timedelta(seconds=cadence.DECISION_REUSE_SECONDS)

    def orchestrator_input(self, now: datetime) -> OrchestratorInput:
        s = self.state
        assert s.plan is not None
        sec, rt, asked = self.snapshot(), self.runtime(), set(s.asked_question_ids)
        return OrchestratorInput(
            topic=s.plan.topic, research_goal=s.plan.research_goal, angle=s.plan.angle, mode=self.inp.mode,
            plan_coverage=coverage.plan_coverage_text(s.plan, asked),
            window=cadence.lines(cadence.window(s.transcript_tail, cadence.ORCHESTRATOR_WINDOW)),
            notes_text=summary_text(s.notes), research=s.research[-cadence.RESEARCH_IN_PROMPT:],
            elapsed_seconds=self.elapsed(now), target_seconds=self.total_seconds(),
            phase=s.phase,  # type: ignore[arg-type]
            current_section_id=sec.id if sec else None, current_section_title=sec.title if sec else "",
            section_seconds_remaining=timing.seconds_between(now, rt.deadline) if rt and rt.deadline else None,
            dimensions=dict(rt.coverage_flags) if rt else {},
            fallback=self.fallback_decision(),
            follow_up_context=s.plan.follow_up_context if s.plan.is_follow_up else "")

    def fallback_decision(self) -> OrchestratorDecision:
        """000: the next unasked plan question, P1 > P2 > P3."""
        assert self.state.plan is not None
        return decisions.fallback_decision(self.state.plan, set(self.state.asked_question_ids), self.state.phase)

    def present_decision(self, now: datetime, decision: OrchestratorDecision, method: str) -> Outcome:
        """Adaptive mode: the Orchestrator's (or the fallback's) next question becomes the one in force."""
        out = self._begin(now)
        if self.ended or self.runtime() is None:
            return out          # time is up (late grace): no new question after the last section
        if self._question_waiting() and self._waits_in_section():
            self._say("ℹ️ A question is waiting for its answer: the Orchestrator's proposal is not put in force")
            return out          # (it was asked for before that question came: a skip, a person's own question)
        decision = decision.model_copy(update={"phase": self.state.phase})
        answered = self.state.answered_questions
        if is_repeat(decision.next_question.text, answered) and self.patched(PATCH_NO_REPEAT):
            self._say(f"🔁 Already answered, not asked again: \"{decision.next_question.text[:60]}\"")
            decision, method = self.fallback_decision(), "fallback"
            if is_repeat(decision.next_question.text, answered):
                self._say("🏁 Every planned question asked and the closing invitation answered")
                self._end_interview("coverage_satisfied", section_reason="interview_ended")
                return out
        self._say(f"🎯 Orchestrator says: ask about \"{decision.next_question.text[:60]}\"")
        self._say(f"   ↳ Phase: {decision.phase}, Reason: {decision.next_question.source}")
        etype = "PROMPT_PRESENTED" if decision.next_question.source == "plan" else "FOLLOWUP_PRESENTED"
        self._present(decision.next_question, brief=decision.interviewer_brief, method=method, event_type=etype)
        return out

    def answers_to_assess(self, new: list[TranscriptEntry]) -> list[TranscriptEntry]:
        """Structured mode: the new, on-time interviewee answers in the current section."""
        rt = self.runtime()
        return [e for e in new if e.speaker == "interviewee" and e.section_id == (rt.id if rt else None)
                and not e.late]

    def assess_coverage(self, now: datetime, rt: SectionRuntime, assessment: OrchestratorDecision) -> Outcome:
        """003 §6: merge the interviewer AI's assessment (flags only rise); all covered ends the section, else the
        next follow-up from the pool while the budget lasts; budget spent ends it."""
        out, sec = self._begin(now), self.snapshot()
        if self.ended or self.runtime() is not rt or sec is None:
            return out
        said = " ".join(e.text for e in self.state.transcript_tail
                        if e.section_id == rt.id and e.speaker == "interviewee")
        assessed: dict[str, str] = {a.dimension: a.status for a in assessment.coverage}
        flags = coverage.merge_flags(rt.coverage_flags, coverage.keyword_assessment(sec, said), assessed)
        if flags != rt.coverage_flags:
            rt.coverage_flags = flags
            self._event("interviewer_ai", "COVERAGE_UPDATED", {"coverage_flags": dict(flags)}, section_id=rt.id)
        if coverage.coverage_satisfied(flags):
            self._end_section("coverage_satisfied")
            return out
        pick = decisions.select_followup(sec, flags, rt.followups_asked, rt.followup_budget)
        if pick is None:
            if rt.followup_budget <= 0:
                self._end_section("followup_budget_exhausted")
            elif self.patched(PATCH_POOL_EXHAUSTED):
                self._end_section("followups_exhausted")    # budget left, but no follow-up for what is still open
            return out
        if self._question_waiting() and self._waits_in_section():
            return out      # a question put in force since (the outline prompt after a skip) waits for its answer
        dimension, question = pick
        rt.followup_budget -= 1
        rt.followups_asked.append(question)
        rt.substate = "SECTION_FOLLOWUP_ACTIVE"
        self._present(NextQuestion(text=question, target_section_id=sec.id, source="followup_pool"),
                      brief=assessment.interviewer_brief, method="engine", event_type="FOLLOWUP_PRESENTED",
                      extra={"dimension": dimension, "budget_remaining": rt.followup_budget})
        return out

    def _present(self, question: NextQuestion, *, brief: str, method: str, event_type: str,
                 extra: dict[str, Any] | None = None) -> None:
        """Make a question the one in force: coverage marking, instructions, the event (when it changed)."""
        s = self.state
        assert s.plan is not None
        marked, how = coverage.resolve_asked_question(question.source_question_id, question.text, s.plan,
                                                      set(s.asked_question_ids))
        # A decision only proposes its question (asked when an interviewer entry asks it, `_mark_asked`); in
        # structured mode the engine is the interviewer: what it presents is on the interviewee's screen, asked.
        if marked and marked not in s.asked_question_ids and self.inp.mode == "structured" and method == "engine":
            s.asked_question_ids.append(marked)
            self._say(f"✓ Question marked as asked (id: {marked}, method: {how.replace('_', ' ')})")
        previous = s.decision.decision.next_question.text if s.decision else None
        decision = OrchestratorDecision(phase=s.phase, next_question=question,  # type: ignore[arg-type]
                                        interviewer_brief=brief)
        s.decision = DecisionRecord(decision=decision, decided_at=self._now, method=method,  # type: ignore[arg-type]
                                    marked_question_id=marked, match_method=how,  # type: ignore[arg-type]
                                    section_id=self.current_section_id())
        self.instructions = interviewer_instructions(decision, s.notes, s.research, s.plan)
        if question.text != previous or event_type == "FOLLOWUP_PRESENTED" and method == "engine":
            self._event("interviewer_ai" if method != "engine" else "system", event_type,
                        {"text": question.text, "source": question.source, "question_id": marked,
                         "method": method, **(extra or {})})
            s.question_event_id = self.log.last_id
        self._say(f"✅ Update complete — now in {s.phase} phase")

    # ================================================================================ continue-as-new
    def continued_as_new(self, now: datetime, run: int, history_events: int) -> Outcome:
        out = self._begin(now)
        self._event("system", "CONTINUED_AS_NEW", {"run": run, "entries": self.state.transcript_count,
                                                  "history_events": history_events})
        return out

    def archive_transcript(self, keep: int) -> list[TranscriptEntry]:
        """Keep the last `keep` entries in memory; return the older ones (to archive)."""
        s = self.state
        old, s.transcript_tail = s.transcript_tail[:-keep], s.transcript_tail[-keep:]
        return old

    def carry(self, run: int, archived_events: int, archived_lines: int) -> InterviewState:
        """The whole state for the next run, less the events and log lines just archived."""
        s = self.state
        return s.model_copy(update={
            "event_seq": self.log.last_id, "events_tail": self.log.events[archived_events:],
            "activity_log": s.activity_log[archived_lines:], "seen_entry_ids": sorted(self.seen), "continued": run})

    # ======================================================================================== views
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
        last = s.transcript_tail[-1] if s.transcript_tail else None
        if last is not None and last.speaker == "interviewer":
            return last.text
        if self.inp.mode == "structured" and s.decision is not None and s.decision.method == "engine":
            answered = last is not None and last.received_at is not None and last.received_at >= s.decision.decided_at
            return None if answered else s.decision.decision.next_question.text
        return None

    def waiting_for(self) -> str:
        """The Web UI's current details: what the session waits for."""
        s = self.state
        if s.status == "PLANNING":
            return f"planning the interview on {self.inp.topic!r}"
        if s.status == "PAUSED":
            if s.paused_reason == "pause":
                return "paused: waiting for someone to resume (the clock keeps running)"
            return "paused: waiting for the interviewee to reconnect (the clock keeps running)"
        if s.grace_until is not None:
            return "time is up: waiting 15 s for late answers"
        if s.status == "IN_PROGRESS":
            q, sec, asked = self.next_question(), self.current_section_id(), self.question_asked()
            if asked:
                return f"section {sec}, {s.phase}: waiting for the answer to: {asked}"
            return f"section {sec}, {s.phase}: next question to ask: {q}" if q else \
                f"section {sec}, {s.phase}: waiting for the interviewee"
        if s.status == "FINALIZING":
            return "writing up: transcript, analysis, essay, exports"
        return s.status.lower()

    def allowed_actions(self) -> list[str]:
        status = self.state.status
        if status == "IN_PROGRESS":
            sec = self.snapshot()
            base = list(sec.allowed_actions) if sec else ["chat", "submit", "ask_assistant"]
            return base + ["pause", "candidate_done", "end"]
        if status == "PAUSED":
            return ["resume", "reconnect", "end"]
        if status in ("PLANNING", "NOT_STARTED"):
            return ["end"]
        return []

    def view(self, now: datetime, *, failed: bool = False) -> SessionState:
        """003 §9: everything a UI renders (`failed`: the run was refused, its input invalid)."""
        s, sec, rt = self.state, self.snapshot(), self.runtime()
        upcoming = [x.title for x in (s.plan.sections[s.current_index + 1:] if s.plan else [])]
        asked = set(s.asked_question_ids)
        status = None
        if sec is not None and rt is not None:
            remaining = timing.seconds_between(now, rt.deadline) if rt.deadline else None
            status = SectionStatus(id=sec.id, title=sec.title, goal=sec.goal, substate=rt.substate,
                                   deadline=rt.deadline, seconds_remaining=max(0.0, remaining or 0.0),
                                   followup_budget_remaining=rt.followup_budget if self.inp.mode == "structured" else None,
                                   asked=sum(1 for q in sec.questions if q.id in asked),
                                   total_questions=len(sec.questions), importance=sec.importance)
        return SessionState(
            workflow_id=self.wid, topic=self.inp.topic, mode=self.inp.mode, status=s.status, phase=s.phase,
            colloquy_status=interview_status(s.status, failed=failed), current_section=status, section_goal_text=sec.goal if sec else "",
            seconds_remaining_in_section=status.seconds_remaining if status else None,
            seconds_remaining_overall=max(0.0, timing.seconds_between(now, s.ends_at)) if s.ends_at else None,
            elapsed_seconds=self.elapsed(now), duration_seconds=self.total_seconds(),
            upcoming_sections=upcoming, allowed_actions=self.allowed_actions(), next_question=self.next_question(),
            interviewer_instructions=self.instructions,
            coverage_summary=coverage.coverage_summary(s.plan, asked) if s.plan else [],
            coverage_flags=dict(rt.coverage_flags) if rt else {}, waiting_for=self.waiting_for(),
            max_entry_chars=self.inp.max_entry_chars,
            entries=s.transcript_count, last_event_id=self.log.last_id, exit_reason=s.exit_reason,
            paused_since=s.paused_since, previous_session_id=self.inp.previous_session_id,
            minimum_content_prompted=rt.min_content_prompted if rt else False,
            research_topics=[r.topic for r in s.research], as_of=now, ends_at=s.ends_at,
            asked_question_ids=list(s.asked_question_ids),
            decision_method=s.decision.method if s.decision else None, usage=s.usage,
            question_event_id=s.question_event_id if self.next_question() else 0, paused_reason=s.paused_reason,
            presence_timeout_seconds=self.inp.presence_timeout_seconds, interviewee_seen_at=s.interviewee_seen_at)

    def event_page(self, after_event_id: int = 0) -> EventLogPage:
        return EventLogPage(events=self.log.after(after_event_id), last_event_id=self.log.last_id,
                            first_event_id_in_memory=self.log.first_id(), archived=list(self.state.event_segments))

    def transcript_view(self) -> TranscriptView:
        s = self.state
        return TranscriptView(entries=list(s.transcript_tail), total_entries=s.transcript_count,
                              archived=list(s.transcript_segments))

    # ==================================================================================== finishing
    def wants_essay(self) -> bool:
        """Analysis, essay and follow-up only when asked for, when the interviewee said something, and (unless
        asked for) not after a termination."""
        s, inp = self.state, self.inp
        said = any(e.speaker == "interviewee" for e in s.transcript_tail) or bool(s.transcript_segments)
        return inp.write_essay and said and (s.status != "TERMINATED" or inp.essay_on_termination)

    def save_transcript_input(self) -> SaveTranscriptInput:
        s = self.state
        return SaveTranscriptInput(workflow_id=self.wid, segments=s.transcript_segments, tail=s.transcript_tail,
                                   previous=s.previous_transcript)

    def analysis_input(self, transcript: ArtifactRef) -> AnalysisInput:
        assert self.state.plan is not None
        return AnalysisInput(workflow_id=self.wid, plan=self.state.plan, notes=self.state.notes, transcript=transcript)

    def writer_input(self, analysis: AnalysisSummary, transcript: ArtifactRef) -> WriterInput:
        assert self.state.plan is not None
        return WriterInput(workflow_id=self.wid, plan=self.state.plan, analysis=analysis, transcript=transcript,
                           style=self.inp.style, interviewee_name=self.inp.interviewee_name)

    def follow_up_input(self, transcript: ArtifactRef) -> FollowUpInput:
        assert self.state.plan is not None
        return FollowUpInput(workflow_id=self.wid, plan=self.state.plan, notes=self.state.notes, transcript=transcript)

    def export_input(self, final: str, transcript: ArtifactRef, follow_up: FollowUpAnalysis | None,
                     title: str) -> ExportInput:
        s = self.state
        assert s.plan is not None
        return ExportInput(workflow_id=self.wid, status=final, exit_reason=s.exit_reason or "unknown",
                           plan=s.plan, notes=s.notes, sections=self.section_artifacts(), transcript=transcript,
                           event_segments=s.event_segments, events_tail=self.log.events, activity_log=s.activity_log,
                           activity_log_segments=s.activity_log_segments, usage=s.usage, follow_up=follow_up,
                           title=title)

    def section_artifacts(self) -> list[SectionArtifact]:
        s = self.state
        assert s.plan is not None
        return [SectionArtifact(section_id=rt.id, title=x.title, started_at=rt.started_at, ended_at=rt.ended_at,
                                exit_reason=rt.exit_reason, entry_ids=rt.entry_ids, coverage_flags=rt.coverage_flags,
                                followups_asked=rt.followups_asked, summary=rt.summary)
                for rt, x in zip(s.sections, s.plan.sections, strict=False)]
