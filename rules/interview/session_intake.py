"""Planning and the start, and the entries: validation, order, dedupe, late attribution, question tracking, closing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from models.interview import patches as patches
from models.interview.activities import PlannerInput, SessionRecord
from models.interview.analysis import FollowUpAnalysis
from models.interview.entries import SubmitEntryResult, TranscriptEntry
from models.interview.plan import PlanSnapshot
from models.interview.workflow import SectionRuntime

from . import answer_flow, coverage, timing
from .entries import (
    ENDED,
    OUT_OF_ORDER,
    EntryError,
    is_closing_remark,
    is_closing_remark_v1,
    normalize_speaker,
    validate_entry,
    word_count,
)
from .plan import default_plan, follow_up_plan, has_blank_question, last_resort_plan, normalize_plan
from .question_text import askable_text
from .questions import MAX_ANSWERED, answered_keys, record_answer
from .questions import key as question_key
from .session_base import ENGINE_CLIENT, LIVE_STATUSES, Outcome
from .session_schedule import SessionSchedule
from .similarity import jaccard

Keep = Callable[[str], str | None]      # the text to ask for a plan's text, or None: left out


class SessionIntake(SessionSchedule):

    def create(self, now: datetime) -> Outcome:
        """INTERVIEW_CREATED, status PLANNING — unless an `end` delivered with the start (handled before the run
        began) already ended it: then it was logged as created first, and it stays ended."""
        out = self._begin(now)
        if self.ended and self.patched(patches.END_BEFORE_START):
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
                                follow_up_topic=topic, previous_summary=fu.summary,
                                language=record.plan.language or inp.language)
        if inp.plan is not None:
            return inp.plan
        if inp.sections:
            return PlanSnapshot(topic=inp.topic, research_goal=inp.context or inp.topic, angle=inp.topic,
                                sections=inp.sections)
        return PlannerInput(topic=inp.topic, context=inp.context, duration_seconds=inp.duration_seconds, mode=inp.mode,
                            language=inp.language)

    def planner_fallback(self, request: PlannerInput) -> PlanSnapshot:
        """000: the Planner failed — a plan derived from the topic."""
        return default_plan(request.topic, request.context, request.mode, request.duration_seconds,
                            request.language)

    def as_follow_up(self, record: SessionRecord, request: PlannerInput, planned: PlanSnapshot) -> PlanSnapshot:
        """The Planner's plan for a follow-up topic, marked as the follow-up of `record`."""
        fu = record.follow_up or FollowUpAnalysis(summary="")
        return planned.model_copy(update={"is_follow_up": True, "previous_session_id": record.workflow_id,
                                          "follow_up_context": fu.summary, "topic": request.topic})

    def set_plan(self, now: datetime, plan: PlanSnapshot) -> Outcome:
        out, inp = self._begin(now), self.inp
        modelled = inp.plan is None and not inp.sections       # the Planner's plan, not one the person gave
        empty = modelled and inp.mode == "adaptive" and not any(q.text.strip() for x in plan.sections
                                                                 for q in x.questions)
        drop_blank = bool(plan.sections) and (has_blank_question(plan) or empty) and self.patched(patches.NO_BLANK)
        keep, unasked = self._plan_filter(plan, modelled, drop_blank)
        # a dimension's default follow-up names it in words (a person's schema: "failure_modes" was shown as is)
        worded = inp.mode == "structured" and normalize_plan(plan, inp.mode, drop_blank, keep, worded=True) \
            != normalize_plan(plan, inp.mode, drop_blank, keep) and self.patched(patches.ASKABLE)
        p = normalize_plan(plan, inp.mode, drop_blank=drop_blank, keep=keep, worded=worded)
        if keep is not None and modelled and inp.mode == "adaptive" and not any(x.questions for x in p.sections):
            empty = drop_blank = True           # a model's adaptive plan with no question left to ask
        if not p.sections or drop_blank and empty:
            # no section, or a model's adaptive plan with no question to ask: the plan derived from the topic
            language = plan.language or inp.language
            p = default_plan(inp.topic, inp.context, inp.mode, inp.duration_seconds, language)
            if unasked is not None:     # (in a follow-up, without what the earlier session answered)
                p = normalize_plan(p, inp.mode, keep=unasked)
                if not any(x.questions for x in p.sections):
                    p = last_resort_plan(p, inp.mode, language)
        self.state.plan = p
        self._event("system", "PLAN_READY", {"research_goal": p.research_goal, "angle": p.angle,
                                             "sections": [s.id for s in p.sections],
                                             "questions": sum(len(s.questions) for s in p.sections)})
        return out

    def _plan_filter(self, plan: PlanSnapshot, modelled: bool, drop_blank: bool) -> tuple[Keep | None, Keep | None]:
        """What of `plan` may be asked, and what of the topic's plan (None: all of it, as before): a model's
        questions only when they are questions (`interview-shown-text-is-a-question`), and in a follow-up no
        question answered in an earlier session (`interview-no-reask-across-sessions`: those answers also count
        as this session's). The topic's plan is the engine's own: only the second applies to it."""
        s, mode = self.state, self.inp.mode
        prior = answered_keys(s.previous_transcript)
        before = set(prior)
        reask = bool(before) and self.patched(patches.NO_REASK)
        if reask:
            s.answered_questions = (prior + [k for k in s.answered_questions if k not in before])[-MAX_ANSWERED:]

        def not_before(text: str) -> str | None:
            return text if not reask or question_key(text) not in before else None

        def askable(text: str) -> str | None:
            shown = askable_text(text)
            return None if shown is None else not_before(shown)

        unasked = not_before if reask else None
        checks = modelled and bool(plan.sections) and normalize_plan(plan, mode, drop_blank, keep=askable) \
            != normalize_plan(plan, mode, drop_blank, keep=unasked) and self.patched(patches.ASKABLE)
        return (askable if checks else unasked), unasked

    def start(self, now: datetime) -> Outcome:
        """INTERVIEW_STARTED: share the duration among the sections and start the first one."""
        out, s = self._begin(now), self.state
        assert s.plan is not None
        durations = timing.allocate_durations(s.plan.sections, self.inp.duration_seconds)
        total = sum(durations) if all(x.duration_seconds for x in s.plan.sections) else self.inp.duration_seconds
        if (self.inp.plan is None and not self.inp.sections and total != self.inp.duration_seconds
                and self.patched(patches.PLANNER_FITS)):
            # a model's plan: its section times are shares of the duration the person asked for (a small model
            # gave 10 s + 5 s for a 15-minute interview, which then ended before the first answer)
            durations = timing.fit_durations(durations, self.inp.duration_seconds)
            total = self.inp.duration_seconds
        s.started_at, s.ends_at = now, now + timedelta(seconds=total)
        s.engine_asks = self.patched(patches.ENGINE_ASKS)     # (carried: a run from before keeps its clients' echo)
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

    def check_entry(self, entry: TranscriptEntry, validated: bool = False) -> TranscriptEntry:
        """The entry with its speaker normalised, or EntryError saying what is wrong. `validated`: `entry` is what
        this returned before (its text and fields are not checked again; whether it may land now is)."""
        if not self.accepting:
            raise EntryError(f"interview {self.wid} has ended ({self.state.exit_reason or 'finished'}); "
                             f"entries are no longer accepted", code=ENDED)
        checked = entry if validated else validate_entry(entry, self.inp.max_entry_chars)
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
                             f"it); send it again with a new number", code=OUT_OF_ORDER, last=last, seq=entry.client_seq)

    def reject_entry(self, now: datetime, entry: TranscriptEntry, error: EntryError) -> Outcome:
        out = self._begin(now)
        self._event("system", "ENTRY_REJECTED", {"entry_id": entry.entry_id, "error": str(error)})
        return out

    def accept_entry(self, now: datetime, raw: TranscriptEntry,
                     validated: bool = False) -> tuple[TranscriptEntry, bool, Outcome]:
        """Record an entry: (the recorded entry, whether it was a duplicate, outcome). Dedupe by entry id.
        `validated`: `raw` is what `check_entry` returned (not validated again)."""
        out, s = self._begin(now), self.state
        entry = raw if validated else validate_entry(raw, self.inp.max_entry_chars)
        if entry.entry_id in self.seen:
            existing = next((e for e in s.transcript_tail if e.entry_id == entry.entry_id), entry)
            return existing, True, out
        if entry.client_id is not None and entry.client_seq is not None:
            s.client_seqs[entry.client_id] = max(entry.client_seq, s.client_seqs.get(entry.client_id, 0))
        section_id, late = self.attribute_late(now, entry)
        aside = False
        if entry.speaker == "interviewee":
            entry, section_id, late, aside = self._file_answer(now, entry, section_id, late)
        entry = self._append_entry(entry, section_id, late)
        rt = next((x for x in s.sections if x.id == section_id), None)
        if entry.speaker == "interviewee":
            if not aside:       # (a later part, or a late answer, answers nothing asked since)
                s.answered_questions = record_answer(s.answered_questions, s.transcript_tail[:-1])
            if rt is not None:
                rt.candidate_words += word_count(entry.text)
            etype = "CANDIDATE_CODE_SUBMISSION" if entry.kind == "code" else "CANDIDATE_MESSAGE"
            self._event("candidate", etype, {"entry_id": entry.entry_id, "seq": entry.seq, "text": entry.text,
                                             "late": late, "client_timestamp": entry.client_timestamp.isoformat()
                                             if entry.client_timestamp else None}
                        | ({"continues": True, "answer_id": entry.answer_id} if aside else {}), section_id=section_id)
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

    def _file_answer(self, now: datetime, entry: TranscriptEntry, section_id: str | None,
                     late: bool) -> tuple[TranscriptEntry, str | None, bool, bool]:
        """An interviewee entry: (the entry, its section, late, whether it is aside — it answers no question put in
        force since: a later part of the last answer (rules/interview/answer_flow.py), filed with its first part
        while that section is open, or an answer to the question seen before the one in force)."""
        s = self.state
        answer = s.answer
        if answer is not None and answer_flow.continues(entry, answer) and self.patched(patches.ANSWER_PARTS):
            rt = next((x for x in s.sections if x.id == answer.section_id), None)
            if rt is not None and rt is self.runtime() and rt.ended_at is None:
                section_id, late = rt.id, answer.late
            elif rt is not None and rt.exit_reason == "time_expired" and rt.ended_at is not None \
                    and timing.in_grace(now, rt.ended_at, self.inp.late_grace_seconds):
                section_id, late = rt.id, True
            s.answer = answer_flow.add_part(answer, entry, now)
            return (entry.model_copy(update={"continues": True, "answer_id": answer.answer_id,
                                             "part": s.answer.received}), section_id, late, True)
        s.answer = answer_flow.begin(entry, section_id, late, now)
        running = self.runtime()
        earlier = running is not None and section_id != running.id          # late: the previous section's question
        seen = entry.reply_to_question_id
        if seen is not None and s.engine_asks and seen == self.question_entry_id:
            earlier = False     # the question in force (the previous section's, while no new one is in force)
        elif seen is not None and s.engine_asks:
            earlier = earlier or any(e.entry_id == seen and e.speaker == "interviewer" for e in s.transcript_tail)
        if earlier and self.next_question() is not None and self.patched(patches.SEEN_QUESTION):
            return entry.model_copy(update={"continues": True}), section_id, late, True
        return entry, section_id, late, False

    def echoes_decision(self, text: str) -> bool:
        """Whether an interviewer entry repeats the question the engine proposed (the decision in force) — only on
        a run from before the engine recorded its questions, where clients echoed them (retired with ENGINE_ASKS)."""
        d = self.state.decision
        if d is None or self.state.engine_asks:
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
        turn after it ends the interview when a person wrote it. The engine's own question closes only in the
        wrap-up phase (`present_decision`; on runs from before ENGINE_ASKS: its echo by `join`/`rehearse`)."""
        if self.state.engine_asks:
            return is_closing_remark(text)
        old = is_closing_remark_v1(text)
        if not old:
            return False
        new = is_closing_remark(text) and (self.state.phase == "wrap_up" or not self.echoes_decision(text))
        return new if new == old or self.patched(patches.CLOSING) else old

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
        other entry belongs to the section in force. After the last section it belongs to the last one that ran
        (late while in grace; sections the time never reached get none)."""
        grace, sections, current = self.inp.late_grace_seconds, self.state.sections, self.state.current_index
        if 0 <= current < len(sections):
            if current > 0:
                prev = sections[current - 1]
                if prev.exit_reason == "time_expired" and timing.in_grace(now, prev.ended_at, grace):
                    if entry is None or self._answers_previous(prev, sections[current], entry) \
                            or not self.patched(patches.LATE_GRACE):
                        return prev.id, True
            return sections[current].id, False
        if sections and current >= len(sections):
            last = sections[-1]
            if last.started_at is None and self.patched(patches.LATE_TO_LAST_RUN):
                # the time ran out before the last sections started: the answer belongs to the last one that ran
                last = next((x for x in reversed(sections) if x.started_at is not None), last)
            return last.id, last.ended_at is not None and timing.in_grace(now, last.ended_at, grace)
        return None, False

    def _answers_previous(self, prev: SectionRuntime, rt: SectionRuntime, entry: TranscriptEntry) -> bool:
        if normalize_speaker(entry.speaker) != "interviewee":
            return False
        if entry.reply_to_question_id:      # the question on screen when the person began (clients since issue 35)
            seen = next((e for e in self.state.transcript_tail
                         if e.entry_id == entry.reply_to_question_id and e.speaker == "interviewer"), None)
            if seen is not None:
                return seen.section_id == prev.id
            if self.patched(patches.SEEN_AFTER_ARCHIVE):
                # archived by an earlier run (continue-as-new keeps a short tail): its section still lists it
                owner = next((x for x in self.state.sections if entry.reply_to_question_id in x.entry_ids), None)
                if owner is not None:
                    return owner.id == prev.id
        if entry.reply_to_section_id:
            return entry.reply_to_section_id == prev.id
        asked_here = {e.entry_id for e in self.state.transcript_tail      # (a person asked there; the engine's own
                      if e.section_id == rt.id and e.speaker == "interviewer"    # prompt does not say the client
                      and e.client_id != ENGINE_CLIENT}                          # showed it yet)
        return not asked_here
