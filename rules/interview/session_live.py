"""The live step (000 processLiveUpdate): listeners, the Orchestrator's decision (adaptive), the coverage
assessment and follow-ups (structured)."""

from __future__ import annotations

from datetime import datetime, timedelta

from models.interview import patches as patches
from models.interview.entries import TranscriptEntry
from models.interview.notes import (
    NextQuestion,
    NotesState,
    OrchestratorDecision,
    ResearchItem,
    ResearchOutput,
)
from models.interview.workflow import SectionRuntime

from . import answer_flow, budget, cadence, coverage, decisions, timing
from .entries import is_closing_remark
from .notes import diff_summary
from .notes import merge_notes as merge_note_states
from .phases import progress_percent
from .question_text import is_askable, repaired
from .questions import is_repeat
from .session_base import Outcome
from .session_controls import SessionControls


class SessionLive(SessionControls):

    def new_entries(self) -> list[TranscriptEntry]:
        return [e for e in self.state.transcript_tail if e.seq > self.state.processed_seq]

    def cycle_begins(self, now: datetime, new: list[TranscriptEntry]) -> tuple[bool, Outcome]:
        """000 processLiveUpdate: whether the NoteTaker and Researcher run (only when the interviewee said something
        new: an interviewer-only entry gives them nothing to note or look up)."""
        out = self._begin(now)
        said = [e for e in new if e.speaker == "interviewee"]
        if not cadence.should_run_listeners(len(said)) and (not new or self.patched(patches.LISTEN)):
            self._say("ℹ️ Skipping NoteTaker/Researcher - no new content" if not new else
                      "ℹ️ Skipping NoteTaker/Researcher - nothing new from the interviewee")
            return False, out
        self._say(f"🎛️ Processing update ({self.progress(now)}% through interview, "
                  f"{self.state.transcript_count} exchanges so far)")
        self._say("   ↳ NoteTaker and Researcher working in parallel...")
        return True, out

    def progress(self, now: datetime) -> int:
        return progress_percent(self.elapsed(now), self.total_seconds())

    def merge_notes(self, now: datetime, found: NotesState) -> Outcome:
        out, s = self._begin(now), self.state
        before = s.notes
        s.notes = merge_note_states(s.notes, found)
        if budget.notes_bytes(s.notes) > budget.NOTES_BYTES and self.patched(patches.NOTES_BOUNDED):
            s.notes = budget.shed_notes(s.notes)    # a long interview: the oldest notes go (carried state bounded)
        self._say(f"📝 NoteTaker found: {diff_summary(before, s.notes)}")
        return out

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
        if (sum(map(budget.model_bytes, s.research)) > budget.RESEARCH_BYTES
                and self.patched(patches.NOTES_BOUNDED)):
            s.research = budget.shed_research(s.research)
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

    def answer_settles_at(self, now: datetime) -> datetime | None:
        """When the live loop may decide on the last answer, while it may still go on in parts (None: now;
        rules/interview/answer_flow.py): one answer, one decision, after its last part."""
        due = self.answer_due()
        if due is None or due <= now or not self.patched(patches.ANSWER_PARTS):
            return None
        return due

    def answer_due(self) -> datetime | None:
        inp = self.inp
        return answer_flow.settles_at(self.state.answer, max_entry_chars=inp.max_entry_chars,
                                      settle_seconds=inp.answer_settle_seconds,
                                      parts_wait_seconds=inp.answer_parts_wait_seconds)

    def decision_late(self, now: datetime, waited: float) -> Outcome:
        """No decision came within the bound (`decision_deadline_seconds`): the fallback's question is put in force
        (000's fallback: the next unasked plan question), counted, and the console shows "model slow"."""
        out, s = self._begin(now), self.state
        if self.ended or self.runtime() is None or s.status != "IN_PROGRESS" or self._question_waiting():
            return out      # nothing to decide (a question waits for its answer): nobody waits on the model
        s.slow_decisions += 1
        self._event("system", "DECISION_SLOW", {"waited_seconds": waited, "count": s.slow_decisions})
        self._say(f"🐢 No decision within {waited:g}s (model slow) — the plan's next question instead "
                  f"({s.slow_decisions} so far)")
        self._put_in_force(self.fallback_decision(), "fallback")
        s.model_slow = True
        return out

    def fallback_decision(self) -> OrchestratorDecision:
        """000: the next unasked plan question, P1 > P2 > P3."""
        assert self.state.plan is not None
        return decisions.fallback_decision(self.state.plan, set(self.state.asked_question_ids), self.state.phase)

    def present_decision(self, now: datetime, decision: OrchestratorDecision, method: str) -> Outcome:
        """Adaptive mode: the Orchestrator's (or the fallback's) next question becomes the one in force."""
        out = self._begin(now)
        self._put_in_force(decision, method)
        return out

    def _put_in_force(self, decision: OrchestratorDecision, method: str) -> None:
        if self.ended or self.runtime() is None:
            return              # time is up (late grace): no new question after the last section
        if self._question_waiting() and self._waits_in_section():
            self._say("ℹ️ A question is waiting for its answer: the Orchestrator's proposal is not put in force")
            return              # (it was asked for before that question came: a skip, a person's own question)
        decision = decision.model_copy(update={"phase": self.state.phase})
        proposed = decision.next_question.text
        if not decision.next_question.text.strip() and self.patched(patches.NO_BLANK):
            self._say("⚠️ The Orchestrator proposed no question: the fallback's is asked instead")
            decision, method = self.fallback_decision(), "fallback"
        decision, rejected = self._as_question(decision, method)
        if rejected is not None:
            self._say(f"⚠️ The Orchestrator's proposal is not a question ({rejected}): the fallback's is asked instead")
            decision, method = self.fallback_decision(), "fallback"
        answered = self.state.answered_questions
        if is_repeat(decision.next_question.text, answered) and self.patched(patches.NO_REPEAT):
            self._say(f"🔁 Already answered, not asked again: \"{decision.next_question.text[:60]}\"")
            decision, method = self.fallback_decision(), "fallback"
            if is_repeat(decision.next_question.text, answered):
                self._say("🏁 Every planned question asked and the closing invitation answered")
                self._end_interview("coverage_satisfied", section_reason="interview_ended")
                return
        self._say(f"🎯 Orchestrator says: ask about \"{decision.next_question.text[:60]}\"")
        self._say(f"   ↳ Phase: {decision.phase}, Reason: {decision.next_question.source}")
        etype = "PROMPT_PRESENTED" if decision.next_question.source == "plan" else "FOLLOWUP_PRESENTED"
        self._present(decision.next_question, brief=decision.interviewer_brief, method=method, event_type=etype,
                      extra=None if rejected is None else {"rejected_question_reason": rejected,
                                                           "rejected_text": proposed[:120]})
        if rejected is not None and self.state.decision is not None:
            self.state.decision.rejected_question_reason = rejected
        if self.state.engine_asks and self.state.phase == "wrap_up" and is_closing_remark(decision.next_question.text):
            # the engine's own closing line (wrap-up only: a closing-sounding question earlier is just a question)
            self._event("system", "CLOSING_DETECTED", {"entry_id": self.question_entry_id})
            self._say("👋 Closing remark — ending the interview")
            self._end_interview("interviewer_closing", section_reason="interview_ended")

    def _as_question(self, decision: OrchestratorDecision, method: str) -> tuple[OrchestratorDecision, str | None]:
        """The Orchestrator's decision with its text as shown (a proposal in quotes loses them), and why the text
        may not be shown to the interviewee at all (rules/interview/question_text.py: template residue, an
        instruction, a text that does not ask), or None when it may. The closing line in the wrap-up thanks."""
        text = decision.next_question.text
        if method != "orchestrator" or not text.strip():
            return decision, None   # (the fallback's is the plan's; a blank one is `interview-no-blank-question`'s)
        closing = self.state.phase == "wrap_up" and is_closing_remark(text)
        ok, why = is_askable(text, closing=closing)
        shown = repaired(text)
        if ok and shown == text or not self.patched(patches.ASKABLE):
            return decision, None
        if not ok:
            return decision, why
        return decision.model_copy(update={"next_question": decision.next_question.model_copy(
            update={"text": shown})}), None

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
            elif self.patched(patches.POOL_EXHAUSTED):
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
