"""Session controls (pause, resume, candidate_done, end), the assistant, and continue-as-new."""

from __future__ import annotations

from datetime import datetime

from models.interview import patches as patches
from models.interview.activities import AssistantInput
from models.interview.entries import AssistantAnswer, AssistantQuery, SessionControl, TranscriptEntry
from models.interview.notes import NextQuestion
from models.interview.workflow import InterviewState

from . import decisions
from .closing import ASSISTANT_UNAVAILABLE, engine_text
from .entries import (
    ASSISTANT_CLOSED,
    ENDED,
    QUERY_EMPTY,
    QUERY_ID_MISSING,
    QUERY_TOO_LONG,
    EntryError,
    validate_action,
)
from .session_base import (
    LIVE_STATUSES,
    MAX_ASSISTANT_QUERY_CHARS,
    Outcome,
)
from .session_intake import SessionIntake


class SessionControls(SessionIntake):

    def language(self) -> str | None:
        """The language the engine speaks to the interviewee in: the plan's, else the one the interview was started
        in (InterviewInput.language); None: English."""
        plan = self.state.plan
        return (plan.language if plan is not None else None) or self.inp.language

    def check_control(self, control: SessionControl) -> str:
        """The normalised action, or EntryError (unknown action, or the interview has ended)."""
        action = validate_action(control.action)
        if not self.accepting:
            raise EntryError(f"interview {self.wid} has ended ({self.state.exit_reason or 'finished'}); "
                             f"{action!r} is not possible any more", code=ENDED)
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
        prompt = engine_text(decisions.MINIMUM_CONTENT_PROMPT, self.language())
        self._present(NextQuestion(text=prompt, target_section_id=rt.id, source="system"),
                      brief="The interviewee wants to move on: ask for a brief outline first.", method="engine",
                      event_type="PROMPT_PRESENTED", extra={"kind": "minimum_content"})

    def check_assistant_query(self, query: AssistantQuery) -> None:
        if not query.query_id.strip():
            raise EntryError("query_id is required", code=QUERY_ID_MISSING)
        if not query.text.strip():
            raise EntryError("the assistant query is empty", code=QUERY_EMPTY)
        if len(query.text) > MAX_ASSISTANT_QUERY_CHARS:
            raise EntryError(f"the assistant query is {len(query.text)} characters; "
                             f"the limit is {MAX_ASSISTANT_QUERY_CHARS}", code=QUERY_TOO_LONG, length=len(query.text),
                             limit=MAX_ASSISTANT_QUERY_CHARS)
        if not self.accepting and query.query_id not in self.state.assistant_answers:
            raise EntryError(f"interview {self.wid} has ended; the assistant is closed", code=ASSISTANT_CLOSED)

    def assistant_asked(self, now: datetime, query: AssistantQuery) -> tuple[AssistantInput, Outcome]:
        out, sec = self._begin(now), self.snapshot()
        self._event("candidate", "ASSISTANT_QUERY", {"query_id": query.query_id, "text": query.text})
        return AssistantInput(topic=self.inp.topic, section_title=sec.title if sec else "",
                              section_goal=sec.goal if sec else "", query=query, language=self.language()), out

    def assistant_unavailable(self, query: AssistantQuery, error: str) -> AssistantAnswer:
        return AssistantAnswer(query_id=query.query_id, text=engine_text(ASSISTANT_UNAVAILABLE, self.language()),
                               flagged=False, flag_reason=error[:200])

    def assistant_answered(self, now: datetime, answer: AssistantAnswer) -> Outcome:
        """003 §8: logged, never changes the interview."""
        out = self._begin(now)
        self.state.assistant_answers[answer.query_id] = answer
        self._event("assistant_ai", "ASSISTANT_RESPONSE", {"query_id": answer.query_id, "text": answer.text,
                                                           "flagged": answer.flagged, "flag_reason": answer.flag_reason})
        return out

    def continued_as_new(self, now: datetime, run: int, history_events: int) -> Outcome:
        out = self._begin(now)
        self._event("system", "CONTINUED_AS_NEW", {"run": run, "entries": self.state.transcript_count,
                                                  "history_events": history_events})
        return out

    def archive_transcript(self, keep: int) -> list[TranscriptEntry]:
        """Keep the last `keep` entries in memory; return the older ones (to archive)."""
        s = self.state
        old, s.transcript_tail = s.transcript_tail[:-keep], s.transcript_tail[-keep:]
        if not any(not e.continues for e in s.transcript_tail):   # only asides kept: remember who took the turn
            last = next((e for e in reversed(old) if not e.continues), None)
            if last is not None and self.patched(patches.LAST_TURN_CARRIED):
                s.last_turn = last
        return old

    def carry(self, run: int, archived_events: int, archived_lines: int) -> InterviewState:
        """The whole state for the next run, less the events and log lines just archived."""
        s = self.state
        return s.model_copy(update={
            "event_seq": self.log.last_id, "events_tail": self.log.events[archived_events:],
            "activity_log": s.activity_log[archived_lines:], "seen_entry_ids": sorted(self.seen), "continued": run})
