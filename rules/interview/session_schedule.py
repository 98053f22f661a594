"""The interview's clock: presence (heartbeats, the disconnect pause), pause/resume, the phases, section
warnings and deadlines, sections starting and ending, the late grace, and the exits (complete, terminate)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from models.interview import patches as patches
from models.interview.activities import SectionSummaryInput
from models.interview.entries import Heartbeat
from models.interview.notes import NextQuestion
from models.interview.workflow import InterviewResult

from . import decisions, timing
from .instructions import status_instructions
from .phases import phase_for
from .session_base import LIVE_STATUSES, Outcome, SessionBase


class SessionSchedule(SessionBase):

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
            if due is None or due > now or not self.patched(patches.CLOCK_CATCH_UP):
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
        if reason == "time_expired" and self.inp.late_grace_seconds > 0 and self.patched(patches.LATE_SUMMARY):
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
        if projected >= s.ends_at or not self.patched(patches.ENDS_AT):
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
