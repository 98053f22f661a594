"""InterviewWorkflow: plan → live session → analysis → essay → follow-up, as one durable workflow.

    plan = await planner(topic, context, duration)                        (fallback: a plan from the topic)
    INTERVIEW_STARTED; SECTION_STARTED(first section)
    ┌ clock task: section deadlines, T-2:00/T-0:30 warnings, phases at 15 %/85 %, the end + 15 s late grace
    └ live loop, on a 10 s timer AND on new entries:
          notes, research = await gather(note_taker(last 20), researcher(last 20))   ← only with new content
          decision = await orchestrator(plan+coverage, last 30, notes, research)     ← reused if < 30 s old
          mark the asked question (id, else Jaccard > 0.6); publish interviewer instructions
          structured mode: dimension coverage → bounded follow-up from the pool, or end the section
          continue-as-new when history grows long (state carried, old texts archived as artifacts)
    transcript (merged with the previous session) → analysis → writer (essay) ; follow-up agent
    export bundles (event log, evaluation input, ops replay)

User input never waits for the loop: handlers validate, dedupe by entry id, append, wake the loop.
Every agent call is logged as AI_REQUEST / AI_RESPONSE (or AI_FAILED) in the 003 event log.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.interview import (
        interview_analysis,
        interview_archive_lines,
        interview_assistant,
        interview_export_bundles,
        interview_follow_up,
        interview_load_session,
        interview_note_taker,
        interview_orchestrator,
        interview_planner,
        interview_researcher,
        interview_save_transcript,
        interview_section_summary,
        interview_writer,
    )
    from core import search_attributes as sa
    from models.common import ArtifactRef, UsageTotals
    from models.interview import (
        QUERY_EVENT_LOG,
        QUERY_NOTES,
        QUERY_PLAN,
        QUERY_SESSION_STATE,
        QUERY_TRANSCRIPT,
        SIGNAL_SESSION_CONTROL,
        SIGNAL_TRANSCRIPT_ENTRY,
        UPDATE_ASSISTANT_QUERY,
        UPDATE_SESSION_CONTROL,
        UPDATE_SUBMIT_ENTRY,
        WORKFLOW_TYPE,
        AnalysisInput,
        ArchiveInput,
        AssistantAnswer,
        AssistantInput,
        AssistantQuery,
        CarriedState,
        DecisionRecord,
        EventLogPage,
        ExportInput,
        FollowUpAnalysis,
        FollowUpInput,
        InterviewInput,
        InterviewResult,
        LoadSessionInput,
        NextQuestion,
        NotesState,
        NoteTakerInput,
        OrchestratorDecision,
        OrchestratorInput,
        PlannerInput,
        PlanSnapshot,
        ResearcherInput,
        ResearchItem,
        SaveTranscriptInput,
        SectionArtifact,
        SectionRuntime,
        SectionStatus,
        SectionSummaryInput,
        SessionControl,
        SessionState,
        SubmitEntryResult,
        TranscriptEntry,
        TranscriptView,
        WriterInput,
    )
    from rules.errors import error_message
    from rules.interview import cadence, coverage, decisions, timing
    from rules.interview.entries import (
        EntryError,
        is_closing_remark,
        validate_action,
        validate_entry,
        word_count,
    )
    from rules.interview.events import EventLog
    from rules.interview.instructions import interviewer_instructions, status_instructions
    from rules.interview.notes import diff_summary, merge_notes
    from rules.interview.phases import phase_for, progress_percent
    from rules.interview.plan import default_plan, follow_up_plan, normalize_plan
    from workflows.calls import call_activity, call_agent, save_artifact

PIPELINE = "interview"
KEEP_EVENTS = 200            # events kept in memory across continue-as-new (older ones are archived)
KEEP_ENTRIES = 40            # transcript entries kept in memory (windows need 30)
KEEP_LOG_LINES = 100
LIVE_STATUSES = ("IN_PROGRESS", "PAUSED")


class AgentFailed(Exception):
    pass



@workflow.defn(name=WORKFLOW_TYPE)
class InterviewWorkflow:
    @workflow.init
    def __init__(self, inp: InterviewInput) -> None:
        self.inp = inp
        self.wid = workflow.info().workflow_id
        self.ended = False
        self.accepting = True
        self.exit_reason: str | None = None
        self.error: str | None = None
        self.wake = False
        self.can_requested = False
        self.schedule_changed = False
        self.instructions = status_instructions("NOT_STARTED")
        self.summary_tasks: list[asyncio.Task] = []
        self.grace_until: datetime | None = None
        self.last_decision_context: tuple = ()
        self.tick = False
        self.clock_fired = False
        self.timer_tasks: list[asyncio.Task] = []
        c = inp.carried
        if c is not None:
            self.plan: PlanSnapshot | None = c.plan
            self.started_at: datetime | None = c.started_at
            self.ends_at: datetime | None = c.ends_at
            self.status, self.phase = c.status, c.phase
            self.sections = list(c.sections)
            self.current = c.current_index
            self.notes, self.research = c.notes, list(c.research)
            self.researched_at = dict(c.researched_at)
            self.asked = list(c.asked_question_ids)
            self.decision = c.decision
            self.log = EventLog(c.events_tail, next_id=c.event_seq + 1)
            self.event_segments = list(c.event_segments)
            self.tail = list(c.transcript_tail)
            self.transcript_segments = list(c.transcript_segments)
            self.count = c.transcript_count
            self.seen_ids = set(c.seen_entry_ids)
            self.assistant_answers = dict(c.assistant_answers)
            self.processed_seq = c.processed_seq
            self.paused_since = c.paused_since
            self.usage = c.usage
            self.previous_transcript = list(c.previous_transcript)
            self.activity_log = list(c.activity_log)
            self.activity_log_segments = list(c.activity_log_segments)
            self.continued = c.continued
            self.grace_until, self.exit_reason = c.grace_until, c.exit_reason
        else:
            self.plan = None
            self.started_at = self.ends_at = None
            self.status, self.phase = "NOT_STARTED", "opening"
            self.sections: list[SectionRuntime] = []
            self.current = -1
            self.notes, self.research = NotesState(), []
            self.researched_at: dict[str, datetime] = {}
            self.asked: list[str] = []
            self.decision: DecisionRecord | None = None
            self.log = EventLog()
            self.event_segments: list[ArtifactRef] = []
            self.tail: list[TranscriptEntry] = []
            self.transcript_segments: list[ArtifactRef] = []
            self.count = 0
            self.seen_ids: set[str] = set()
            self.assistant_answers: dict[str, AssistantAnswer] = {}
            self.processed_seq = 0
            self.paused_since: datetime | None = None
            self.usage = UsageTotals()
            self.previous_transcript: list[TranscriptEntry] = []
            self.activity_log: list[str] = []
            self.activity_log_segments: list[ArtifactRef] = []
            self.continued = 0
        if self.decision is not None and self.plan is not None:
            self.instructions = interviewer_instructions(self.decision.decision, self.notes, self.research, self.plan)

    # ================================================================================================ run
    @workflow.run
    async def run(self, inp: InterviewInput) -> InterviewResult:
        if inp.carried is None:
            self._event("system", "INTERVIEW_CREATED", {"topic": inp.topic, "mode": inp.mode, "style": inp.style,
                                                        "duration_seconds": inp.duration_seconds,
                                                        "previous_session_id": inp.previous_session_id})
            self._set_status("PLANNING")
            workflow.upsert_search_attributes([sa.PIPELINE.value_set(PIPELINE), sa.TOPIC.value_set(inp.topic[:200]),
                                               sa.PHASE.value_set("planning")])
            try:
                await self._prepare_plan()
            except (AgentFailed, ActivityError) as err:
                return await self._terminate_early(error_message(err) if isinstance(err, ActivityError) else str(err))
            if self.ended:
                return await self._finish()
            self._start_session()
        else:
            self._say(f"↻ Continued as new (run {self.continued + 1}), {self.count} entries so far")
        clock = asyncio.create_task(self._clock())
        await self._live_loop()
        self.can_requested = self.can_requested and not self.ended
        self.schedule_changed = True
        await clock
        if self.can_requested:
            await self._continue_as_new()
        return await self._finish()

    # =========================================================================================== planning
    async def _prepare_plan(self) -> None:
        inp = self.inp
        workflow.set_current_details(f"planning the interview on {inp.topic!r}")
        if inp.previous_session_id:
            record = await call_activity(interview_load_session, LoadSessionInput(workflow_id=inp.previous_session_id),
                                         kind="storage", summary=f"load previous session {inp.previous_session_id}")
            self.previous_transcript = [e.model_copy(update={"session_id": e.session_id or record.workflow_id})
                                        for e in record.transcript]
            self.notes = record.notes
            fu = record.follow_up or FollowUpAnalysis(summary="")
            topic = inp.follow_up_topic or (fu.suggested_topics[0].title if fu.suggested_topics else inp.topic)
            chosen = next((t for t in fu.suggested_topics if t.title.lower() == topic.lower()), None)
            if chosen is not None:
                plan = follow_up_plan(record.plan, topic, fu.summary, chosen.suggested_questions, record.workflow_id)
            else:
                planned = await self._plan_with_agent(PlannerInput(
                    topic=topic, context=inp.context, duration_seconds=inp.duration_seconds, mode=inp.mode,
                    follow_up_topic=topic, previous_summary=fu.summary))
                plan = planned.model_copy(update={"is_follow_up": True, "previous_session_id": record.workflow_id,
                                                  "follow_up_context": fu.summary, "topic": topic})
            self._say(f"🔁 Follow-up of {record.workflow_id}: {len(self.previous_transcript)} earlier entries")
        elif inp.plan is not None:
            plan = inp.plan
        elif inp.sections:
            plan = PlanSnapshot(topic=inp.topic, research_goal=inp.context or inp.topic, angle=inp.topic,
                                sections=inp.sections)
        else:
            plan = await self._plan_with_agent(PlannerInput(topic=inp.topic, context=inp.context,
                                                            duration_seconds=inp.duration_seconds, mode=inp.mode))
        self.plan = normalize_plan(plan, inp.mode)
        if not self.plan.sections:
            self.plan = default_plan(inp.topic, inp.context, inp.mode, inp.duration_seconds)
        self._event("system", "PLAN_READY", {"research_goal": self.plan.research_goal, "angle": self.plan.angle,
                                             "sections": [s.id for s in self.plan.sections],
                                             "questions": sum(len(s.questions) for s in self.plan.sections)})

    async def _plan_with_agent(self, planner_input: PlannerInput) -> PlanSnapshot:
        try:
            result = await self._agent(interview_planner, planner_input, agent="interview_planner", actor="system",
                                       kind="agent", summary=f"Planner: {planner_input.topic[:60]}")
            return result.output
        except AgentFailed:
            self._say("⚠️ Planner failed — using the plan derived from the topic")
            return default_plan(planner_input.topic, planner_input.context, planner_input.mode,
                                planner_input.duration_seconds)

    def _start_session(self) -> None:
        assert self.plan is not None
        now = workflow.now()
        durations = timing.allocate_durations(self.plan.sections, self.inp.duration_seconds)
        total = sum(durations) if all(s.duration_seconds for s in self.plan.sections) else self.inp.duration_seconds
        self.started_at, self.ends_at = now, now + timedelta(seconds=total)
        self.sections = [SectionRuntime(id=s.id, duration_seconds=d,
                                        followup_budget=s.followup_cap if self.inp.mode == "structured" else 0,
                                        coverage_flags=coverage.initial_flags(s))
                         for s, d in zip(self.plan.sections, durations, strict=False)]
        self._set_status("IN_PROGRESS")
        self._event("system", "INTERVIEW_STARTED", {"duration_seconds": total, "ends_at": self.ends_at.isoformat(),
                                                    "sections": [{"id": s.id, "seconds": d} for s, d in
                                                                 zip(self.plan.sections, durations, strict=False)]})
        self._set_phase("opening")
        self._say(f"🎬 Interview started: {len(self.sections)} sections, {total // 60} min")
        self._start_section(0)

    # ============================================================================================ handlers
    @workflow.signal(name=SIGNAL_TRANSCRIPT_ENTRY)
    async def on_transcript_entry(self, entry: TranscriptEntry) -> None:
        try:
            self._check_entry(entry)
        except EntryError as err:
            self._event("system", "ENTRY_REJECTED", {"entry_id": entry.entry_id, "error": str(err)})
            workflow.logger.warning("entry rejected: %s", err)
            return
        await self._session_open()
        if self.accepting:
            self._accept_entry(entry)

    @workflow.update(name=UPDATE_SUBMIT_ENTRY)
    async def submit_entry(self, entry: TranscriptEntry) -> SubmitEntryResult:
        await self._session_open()   # entries sent while the plan is being prepared join the first section
        if not self.accepting:
            raise ApplicationError(f"interview {self.wid} has ended ({self.exit_reason or 'finished'}); "
                                   f"entries are no longer accepted", type="InterviewEnded", non_retryable=True)
        accepted, duplicate = self._accept_entry(entry)
        return SubmitEntryResult(entry=accepted, duplicate=duplicate, status=self.status, phase=self.phase,
                                 section_id=self._current_section_id(), next_question=self._next_question(),
                                 interviewer_instructions=self.instructions)

    @submit_entry.validator
    def _validate_submit_entry(self, entry: TranscriptEntry) -> None:
        try:
            self._check_entry(entry)
        except EntryError as err:
            raise ValueError(str(err)) from None

    @workflow.signal(name=SIGNAL_SESSION_CONTROL)
    def on_session_control(self, control: SessionControl) -> None:
        try:
            action = self._check_control(control)
        except EntryError as err:
            self._event("system", "CONTROL_REJECTED", {"action": control.action, "error": str(err)})
            return
        self._apply_control(action, control.reason)

    @workflow.update(name=UPDATE_SESSION_CONTROL)
    def control_session(self, control: SessionControl) -> SessionState:
        self._apply_control(self._check_control(control), control.reason)
        return self.session_state()

    @control_session.validator
    def _validate_control(self, control: SessionControl) -> None:
        try:
            self._check_control(control)
        except EntryError as err:
            raise ValueError(str(err)) from None

    @workflow.update(name=UPDATE_ASSISTANT_QUERY)
    async def assistant_query(self, query: AssistantQuery) -> AssistantAnswer:
        if query.query_id in self.assistant_answers:
            return self.assistant_answers[query.query_id].model_copy(update={"duplicate": True})
        section = self._section_snapshot()
        self._event("candidate", "ASSISTANT_QUERY", {"query_id": query.query_id, "text": query.text})
        try:
            result = await self._agent(
                interview_assistant, AssistantInput(topic=self.inp.topic, section_title=section.title if section else "",
                                                    section_goal=section.goal if section else "", query=query),
                agent="interview_assistant", actor="assistant_ai", kind="fast_agent",
                summary=f"Assistant: {query.text[:60]}")
            answer = result.output
        except AgentFailed as err:
            answer = AssistantAnswer(query_id=query.query_id, text="The assistant is unavailable right now.",
                                     flagged=False, flag_reason=str(err)[:200])
        self.assistant_answers[query.query_id] = answer
        self._event("assistant_ai", "ASSISTANT_RESPONSE", {"query_id": query.query_id, "text": answer.text,
                                                           "flagged": answer.flagged, "flag_reason": answer.flag_reason})
        return answer

    @assistant_query.validator
    def _validate_assistant(self, query: AssistantQuery) -> None:
        if not query.query_id.strip():
            raise ValueError("query_id is required")
        if not query.text.strip():
            raise ValueError("the assistant query is empty")
        if len(query.text) > 2000:
            raise ValueError(f"the assistant query is {len(query.text)} characters; the limit is 2000")
        if not self.accepting and query.query_id not in self.assistant_answers:
            raise ValueError(f"interview {self.wid} has ended; the assistant is closed")

    @workflow.query(name=QUERY_SESSION_STATE)
    def session_state(self) -> SessionState:
        now = workflow.now()
        sec = self._section_snapshot()
        rt = self._section_runtime()
        upcoming = [s.title for s in (self.plan.sections[self.current + 1:] if self.plan else [])]
        asked = set(self.asked)
        status = None
        if sec is not None and rt is not None:
            remaining = timing.seconds_between(now, rt.deadline) if rt.deadline else None
            status = SectionStatus(id=sec.id, title=sec.title, goal=sec.goal, substate=rt.substate,
                                   deadline=rt.deadline, seconds_remaining=max(0.0, remaining or 0.0),
                                   followup_budget_remaining=rt.followup_budget if self.inp.mode == "structured" else None,
                                   asked=sum(1 for q in sec.questions if q.id in asked),
                                   total_questions=len(sec.questions), importance=sec.importance)
        summary = coverage.coverage_summary(self.plan, asked) if self.plan else []
        return SessionState(
            workflow_id=self.wid, topic=self.inp.topic, mode=self.inp.mode, status=self.status, phase=self.phase,
            current_section=status, section_goal_text=sec.goal if sec else "",
            seconds_remaining_in_section=status.seconds_remaining if status else None,
            seconds_remaining_overall=max(0.0, timing.seconds_between(now, self.ends_at)) if self.ends_at else None,
            elapsed_seconds=self._elapsed(now), duration_seconds=self._total_seconds(),
            upcoming_sections=upcoming, allowed_actions=self._allowed_actions(), next_question=self._next_question(),
            interviewer_instructions=self.instructions, coverage_summary=summary,
            coverage_flags=dict(rt.coverage_flags) if rt else {}, waiting_for=self._waiting_for(),
            entries=self.count, last_event_id=self.log.last_id, exit_reason=self.exit_reason,
            paused_since=self.paused_since, previous_session_id=self.inp.previous_session_id,
            minimum_content_prompted=rt.min_content_prompted if rt else False,
            research_topics=[r.topic for r in self.research], as_of=now, ends_at=self.ends_at, asked_question_ids=list(self.asked),
            decision_method=self.decision.method if self.decision else None, usage=self.usage)

    @workflow.query(name=QUERY_EVENT_LOG)
    def event_log(self, after_event_id: int = 0) -> EventLogPage:
        return EventLogPage(events=self.log.after(after_event_id), last_event_id=self.log.last_id,
                            first_event_id_in_memory=self.log.first_id(), archived=list(self.event_segments))

    @workflow.query(name=QUERY_TRANSCRIPT)
    def transcript(self) -> TranscriptView:
        return TranscriptView(entries=list(self.tail), total_entries=self.count,
                              archived=list(self.transcript_segments))

    @workflow.query(name=QUERY_NOTES)
    def notes_query(self) -> NotesState:
        return self.notes

    @workflow.query(name=QUERY_PLAN)
    def plan_query(self) -> PlanSnapshot | None:
        return self.plan

    # ----------------------------------------------------------------------------------- entry handling
    async def _session_open(self) -> None:
        await workflow.wait_condition(lambda: self.started_at is not None or self.ended)

    def _check_entry(self, entry: TranscriptEntry) -> TranscriptEntry:
        if not self.accepting:
            raise EntryError(f"interview {self.wid} has ended ({self.exit_reason or 'finished'}); "
                             f"entries are no longer accepted")
        return validate_entry(entry, self.inp.max_entry_chars)

    def _accept_entry(self, raw: TranscriptEntry) -> tuple[TranscriptEntry, bool]:
        entry = validate_entry(raw, self.inp.max_entry_chars)
        if entry.entry_id in self.seen_ids:
            existing = next((e for e in self.tail if e.entry_id == entry.entry_id), entry)
            return existing, True
        now = workflow.now()
        section_id, late = self._attribute(now)
        self.count += 1
        entry = entry.model_copy(update={"seq": self.count, "received_at": now, "elapsed_seconds": self._elapsed(now),
                                         "section_id": section_id, "late": late, "session_id": self.wid})
        self.seen_ids.add(entry.entry_id)
        self.tail.append(entry)
        rt = next((s for s in self.sections if s.id == section_id), None)
        if rt is not None:
            rt.entry_ids.append(entry.entry_id)
        if entry.speaker == "interviewee":
            if rt is not None:
                rt.candidate_words += word_count(entry.text)
            etype = "CANDIDATE_CODE_SUBMISSION" if entry.kind == "code" else "CANDIDATE_MESSAGE"
            self._event("candidate", etype, {"entry_id": entry.entry_id, "seq": entry.seq, "text": entry.text,
                                             "late": late, "client_timestamp": entry.client_timestamp.isoformat()
                                             if entry.client_timestamp else None}, section_id=section_id)
        else:
            self._event("interviewer", "INTERVIEWER_MESSAGE", {"entry_id": entry.entry_id, "seq": entry.seq,
                                                               "text": entry.text}, section_id=section_id)
            if self.plan is not None:
                match = coverage.find_matching_question_id(entry.text, self.plan, set(self.asked))
                if match:
                    self.asked.append(match)
            if is_closing_remark(entry.text) and self.status in LIVE_STATUSES:
                self._event("system", "CLOSING_DETECTED", {"entry_id": entry.entry_id})
                self._say("👋 Closing remark detected — ending the interview")
                self._end_interview("interviewer_closing", section_reason="interview_ended")
        self.wake = True
        return entry, False

    def _attribute(self, now: datetime) -> tuple[str | None, bool]:
        """003 §5.2: within 15 s of a section's end an entry belongs (late) to that section; after, the next."""
        grace = self.inp.late_grace_seconds
        if 0 <= self.current < len(self.sections):
            if self.current > 0:
                prev = self.sections[self.current - 1]
                if prev.exit_reason == "time_expired" and timing.in_grace(now, prev.ended_at, grace):
                    return prev.id, True
            return self.sections[self.current].id, False
        if self.sections and self.current >= len(self.sections):
            last = self.sections[-1]
            return last.id, last.ended_at is not None and timing.in_grace(now, last.ended_at, grace)
        return None, False

    # -------------------------------------------------------------------------------------- controls
    def _check_control(self, control: SessionControl) -> str:
        action = validate_action(control.action)
        if not self.accepting:
            raise EntryError(f"interview {self.wid} has ended ({self.exit_reason or 'finished'}); "
                             f"{action!r} is not possible any more")
        return action

    def _apply_control(self, action: str, reason: str | None) -> None:
        now = workflow.now()
        if action in ("pause", "disconnect"):
            if self.status == "IN_PROGRESS":
                self.paused_since = now
                self._set_status("PAUSED")
                self._event("client" if action == "pause" else "system", "SESSION_PAUSED",
                            {"reason": action, "detail": reason}, section_id=self._current_section_id())
                self._say(f"⏸️ Session paused ({action}); the clock keeps running")
        elif action in ("resume", "reconnect"):
            if self.status == "PAUSED":
                paused = timing.seconds_between(self.paused_since, now) if self.paused_since else 0.0
                self.paused_since = None
                self._set_status("IN_PROGRESS")
                self._event("client", "SESSION_RESUMED", {"reason": action, "paused_seconds": paused},
                            section_id=self._current_section_id())
                self._say(f"▶️ Session resumed after {paused:.0f}s")
        elif action == "candidate_done":
            self._candidate_done(now)
        elif action == "end":
            if self.status in LIVE_STATUSES or self.status in ("PLANNING", "NOT_STARTED"):
                self._end_interview("ended_by_client", section_reason="interview_ended")
        self.wake = True

    def _candidate_done(self, now: datetime) -> None:
        """003 §6.4: 'I'm done' ends the section once minimum content exists; an early skip gets one prompt."""
        rt, sec = self._section_runtime(), self._section_snapshot()
        if rt is None or sec is None or self.status not in LIVE_STATUSES:
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

    # ============================================================================================ clock
    async def _clock(self) -> None:
        """Server-authoritative time (003 §5): every deadline is a workflow timer, never the wall clock.

        Timers are never cancelled: when the schedule moves earlier a new, earlier timer is started and the old
        one fires later harmlessly (a cancelled timer that had already fired strands the run on the
        time-skipping test server, temporalio/sdk-java#3088; it also keeps the history free of cancellations)."""
        armed: datetime | None = None
        while not self.ended and not self.can_requested:
            now = workflow.now()
            self._apply_due(now)
            if self.ended:
                break
            due = self._next_due()
            if due is not None and (armed is None or due < armed):
                self._start_timer(timing.seconds_between(now, due), "clock_fired", f"clock: next due {due:%H:%M:%S}")
                armed = due
            self.schedule_changed = False
            await workflow.wait_condition(
                lambda: self.ended or self.schedule_changed or self.clock_fired or self.can_requested)
            if self.clock_fired:
                self.clock_fired = False
                armed = None          # re-arm for whatever is due next

    def _start_timer(self, seconds: float, flag: str, summary: str) -> None:
        async def fire() -> None:
            await workflow.sleep(max(0.001, seconds), summary=summary)
            setattr(self, flag, True)

        self.timer_tasks = [t for t in self.timer_tasks if not t.done()]
        self.timer_tasks.append(asyncio.create_task(fire()))

    def _next_due(self) -> datetime | None:
        candidates: list[datetime] = []
        if self.grace_until is not None:
            return self.grace_until
        rt = self._section_runtime()
        if rt is not None and rt.deadline is not None and rt.started_at is not None:
            candidates.append(rt.deadline)
            warn = timing.next_warning_at(rt.deadline, self.inp.warning_thresholds_seconds, rt.warnings_sent,
                                          timing.seconds_between(rt.started_at, rt.deadline))
            if warn:
                candidates.append(warn)
        if self.started_at is not None:
            total = self._total_seconds()
            for fraction in (0.15, 0.85):
                at = self.started_at + timedelta(seconds=total * fraction)
                if at > workflow.now():
                    candidates.append(at)
        if self.ends_at is not None:
            candidates.append(self.ends_at)
        return min(candidates) if candidates else None

    def _apply_due(self, now: datetime) -> None:
        if self.grace_until is not None:
            if now >= self.grace_until:
                self.grace_until = None
                self._complete_interview(self.exit_reason or "time_expired")
            return
        if self.started_at is None or self.status not in LIVE_STATUSES:
            return
        new_phase = phase_for(self._elapsed(now), self._total_seconds())
        if new_phase != self.phase:
            self._set_phase(new_phase)
        rt = self._section_runtime()
        if rt is not None and rt.deadline is not None and rt.started_at is not None:
            section_seconds = timing.seconds_between(rt.started_at, rt.deadline)
            for t in timing.warnings_due(rt.deadline, now, self.inp.warning_thresholds_seconds, rt.warnings_sent,
                                         section_seconds):
                rt.warnings_sent.append(t)
                self._event("system", "SECTION_TIME_WARNING", {"seconds_left": t, "deadline": rt.deadline.isoformat()},
                            section_id=rt.id)
                self._say(f"⏰ {timing.fmt_clock(t)} left in section {rt.id}")
            if now >= rt.deadline:
                self._end_section("time_expired")
        if self.ends_at is not None and now >= self.ends_at and not self.ended and self.grace_until is None:
            if self._section_runtime() is None:      # every section already over: nothing left but to finish
                self._complete_interview(self.exit_reason or "time_expired")
                return
            for later in self.sections[self.current + 1:]:
                later.exit_reason, later.substate = "not_reached", "SECTION_ENDED"
            self._end_section("time_expired", start_next=False)

    # =========================================================================================== sections
    def _start_section(self, index: int, at: datetime | None = None) -> None:
        assert self.plan is not None
        self.current = index
        self.schedule_changed = True
        if index >= len(self.sections):
            return
        now = at or workflow.now()
        sec, rt = self.plan.sections[index], self.sections[index]
        duration = rt.duration_seconds or sec.duration_seconds or 60
        deadline = min(now + timedelta(seconds=duration), self.ends_at) if self.ends_at else now + timedelta(seconds=duration)
        rt.started_at, rt.deadline, rt.substate = now, deadline, "SECTION_INTRO"
        self.wake = True
        self._event("system", "SECTION_STARTED", {"title": sec.title, "goal": sec.goal, "deadline": deadline.isoformat(),
                                                  "duration_seconds": timing.seconds_between(now, deadline),
                                                  "followup_cap": rt.followup_budget,
                                                  "required_dimensions": [d.name for d in sec.required_dimensions]},
                    section_id=sec.id)
        self._say(f"📂 Section {sec.id} started: {sec.title} (until {timing.fmt_clock(self._elapsed(deadline))})")
        if self.inp.mode == "structured":
            self._present(NextQuestion(text=decisions.primary_prompt(sec), target_section_id=sec.id,
                                       source="plan", source_question_id=sec.questions[0].id if sec.questions else None),
                          brief=f"Present the section goal: {sec.goal}", method="engine", event_type="PROMPT_PRESENTED")
            rt.substate = "SECTION_QUESTION_ACTIVE"
        else:
            rt.substate = "SECTION_QUESTION_ACTIVE"
        self._update_details()

    def _end_section(self, reason: str, extra: dict | None = None, start_next: bool = True) -> None:
        rt = self._section_runtime()
        if rt is None:
            return
        now = workflow.now()
        if reason == "time_expired" and rt.deadline is not None and rt.deadline <= now:
            now = rt.deadline   # server-authoritative schedule: the next section starts at the deadline itself
        rt.substate, rt.ended_at, rt.exit_reason = "SECTION_ENDED", now, reason
        self._event("system", "SECTION_ENDED", {"reason": reason, "coverage_flags": dict(rt.coverage_flags),
                                                "followups_asked": len(rt.followups_asked), **(extra or {})},
                    section_id=rt.id)
        self._say(f"🏁 Section {rt.id} ended ({reason})")
        self._summarize_section_later(self.current)
        nxt = self.current + 1
        if start_next and nxt < len(self.sections) and reason != "interview_ended":
            self._start_section(nxt, at=now)
            return
        self.current = len(self.sections)
        self.schedule_changed = True
        if reason == "interview_ended":
            return
        if reason == "time_expired" and self.inp.late_grace_seconds > 0:
            self.exit_reason = "time_expired"
            self.grace_until = now + timedelta(seconds=self.inp.late_grace_seconds)
            self._say(f"⌛ Time is up — accepting late answers for {self.inp.late_grace_seconds:.0f}s")
        else:
            self._complete_interview(reason)

    def _end_interview(self, reason: str, section_reason: str) -> None:
        if self._section_runtime() is not None:
            self._end_section(section_reason)
        self.current = len(self.sections)
        self._complete_interview(reason)

    def _complete_interview(self, reason: str) -> None:
        if self.ended:
            return
        self.exit_reason = reason
        self.ended, self.accepting = True, False
        self.grace_until = None
        self._event("system", "INTERVIEW_COMPLETED", {"reason": reason, "entries": self.count})
        self._set_status("FINALIZING")
        self.instructions = status_instructions("COMPLETED", reason)
        self._say(f"✅ Interview over ({reason}), {self.count} entries")

    def _terminate(self, reason: str, error: str) -> None:
        if self.ended:
            return
        if self._section_runtime() is not None:
            self._end_section("system_error", {"error": error})
        self.current = len(self.sections)
        self.exit_reason, self.error = reason, error
        self.ended, self.accepting = True, False
        self.grace_until = None
        self._event("system", "INTERVIEW_TERMINATED", {"reason": reason, "error": error, "entries": self.count})
        self._set_status("TERMINATED")
        self.instructions = status_instructions("TERMINATED", reason)
        self._say(f"🛑 Interview terminated ({reason}): {error}")

    def _summarize_section_later(self, index: int) -> None:
        if not (0 <= index < len(self.sections)) or self.plan is None:
            return
        rt, sec = self.sections[index], self.plan.sections[index]
        entries = [e for e in self.tail if e.section_id == rt.id]
        if not any(e.speaker == "interviewee" for e in entries):
            return
        self.summary_tasks.append(asyncio.create_task(self._summarize_section(rt, sec.title, sec.goal, entries)))

    async def _summarize_section(self, rt: SectionRuntime, title: str, goal: str,
                                 entries: list[TranscriptEntry]) -> None:
        try:
            result = await self._agent(interview_section_summary,
                                       SectionSummaryInput(section_id=rt.id, title=title, goal=goal, entries=entries),
                                       agent="interview_section_summary", actor="system", kind="agent",
                                       summary=f"Section summary: {rt.id}", section_id=rt.id)
            rt.summary = result.output
        except AgentFailed:
            self._say(f"⚠️ Section summary for {rt.id} failed — the section keeps its raw transcript only")

    # ========================================================================================= live loop
    async def _live_loop(self) -> None:
        self._start_ticker()
        while not self.ended:
            await workflow.wait_condition(lambda: self.ended or self.wake or self.tick)
            self.wake = False
            if self.tick:
                self.tick = False
                self._start_ticker()          # the cycle's cadence: one timer at a time, never cancelled
            if self.ended:
                break
            if self._should_continue_as_new():
                self.can_requested = True
                return
            if self.status != "IN_PROGRESS" or self._section_runtime() is None:
                continue   # paused (silence costs nothing) or in the late grace after time ran out
            await self._cycle()

    def _start_ticker(self) -> None:
        self._start_timer(self.inp.cycle_seconds, "tick", f"live cycle tick ({self.inp.cycle_seconds:g}s)")

    async def _cycle(self) -> None:
        """000 processLiveUpdate: never raises; every agent has its fallback (structured mode: 003 §10.2)."""
        assert self.plan is not None
        now = workflow.now()
        up_to = self.count
        new = [e for e in self.tail if e.seq > self.processed_seq]
        pct = progress_percent(self._elapsed(now), self._total_seconds())
        if cadence.should_run_listeners(len(new)):
            self._say(f"🎛️ Processing update ({pct}% through interview, {self.count} exchanges so far)")
            self._say("   ↳ NoteTaker and Researcher working in parallel...")
            await asyncio.gather(self._run_note_taker(), self._run_researcher(now))
            self._say("   ↳ Both finished, asking Orchestrator what to do next")
        else:
            self._say("ℹ️ Skipping NoteTaker/Researcher - no new content")
        self.processed_seq = up_to
        if self.ended:
            return
        if self.inp.mode == "structured":
            await self._structured_step(new)
        else:
            await self._adaptive_step(new, now)
        self._update_details()

    async def _run_note_taker(self) -> None:
        assert self.plan is not None
        inp = NoteTakerInput(topic=self.plan.topic, research_goal=self.plan.research_goal, angle=self.plan.angle,
                             sections=[{"id": s.id, "title": s.title} for s in self.plan.sections],
                             window=cadence.window(self.tail, cadence.NOTES_WINDOW), notes=self.notes,
                             current_section_id=self._current_section_id())
        try:
            result = await self._agent(interview_note_taker, inp, agent="interview_note_taker", actor="system",
                                       kind="live_agent", summary=f"NoteTaker: last {len(inp.window)} entries")
        except AgentFailed:
            self._say("📝 NoteTaker failed — keeping the previous notes")
            return
        before = self.notes
        self.notes = merge_notes(self.notes, result.output)
        self._say(f"📝 NoteTaker found: {diff_summary(before, self.notes)}")

    async def _run_researcher(self, now: datetime) -> None:
        assert self.plan is not None
        recent = [t for t, at in self.researched_at.items()
                  if timing.seconds_between(at, now) < cadence.TOPIC_REFRESH_SECONDS]
        inp = ResearcherInput(topic=self.plan.topic, window=cadence.window(self.tail, cadence.RESEARCH_WINDOW),
                              existing_topics=[r.topic for r in self.research], recent_topics=recent)
        try:
            result = await self._agent(interview_researcher, inp, agent="interview_researcher", actor="system",
                                       kind="live_agent", summary=f"Researcher: last {len(inp.window)} entries")
        except AgentFailed:
            self._say("🔍 Researcher failed — no new research this cycle")
            return
        fresh = cadence.fresh_topics([i.topic for i in result.output.items], self.researched_at, now)
        items: list[ResearchItem] = []
        for item in result.output.items:
            if item.topic in fresh and item.topic not in [i.topic for i in items]:
                items.append(item)
        self.researched_at = cadence.mark_researched(self.researched_at, [i.topic for i in items], now)
        self.research.extend(items)
        if result.output.topics_considered:
            self._say(f"🔍 Researcher wants to look up: {', '.join(result.output.topics_considered[:4])}")
        self._say(f"🔍 Researcher done — {len(items)} new piece(s) of context")

    def _orchestrator_input(self, now: datetime) -> OrchestratorInput:
        assert self.plan is not None
        sec, rt = self._section_snapshot(), self._section_runtime()
        return OrchestratorInput(
            topic=self.plan.topic, research_goal=self.plan.research_goal, angle=self.plan.angle, mode=self.inp.mode,
            plan_coverage=coverage.plan_coverage_text(self.plan, set(self.asked)),
            window=cadence.window(self.tail, cadence.ORCHESTRATOR_WINDOW), notes=self.notes, research=self.research,
            elapsed_seconds=self._elapsed(now), target_seconds=self._total_seconds(),
            phase=self.phase,  # type: ignore[arg-type]
            current_section_id=sec.id if sec else None, current_section_title=sec.title if sec else "",
            section_seconds_remaining=timing.seconds_between(now, rt.deadline) if rt and rt.deadline else None,
            dimensions=dict(rt.coverage_flags) if rt else {},
            fallback=decisions.fallback_decision(self.plan, set(self.asked), self.phase),
            follow_up_context=self.plan.follow_up_context if self.plan.is_follow_up else "")

    async def _adaptive_step(self, new: list[TranscriptEntry], now: datetime) -> None:
        assert self.plan is not None
        context = (self.phase, self._current_section_id())
        changed = context != self.last_decision_context
        question_in_the_air = bool(self.tail) and self.tail[-1].speaker == "interviewer"
        if self.decision is not None and question_in_the_air and not changed:
            self._say("ℹ️ Keeping the current decision — the interviewer's question is waiting for an answer")
            return
        if self.decision is not None and cadence.should_reuse_decision(len(new), self.decision.decided_at, now,
                                                                         changed):
            age = timing.seconds_between(self.decision.decided_at, now)
            self._say(f"ℹ️ Reusing previous Orchestrator decision (no new content, {age:.0f}s since last run)")
            return
        self.last_decision_context = context
        self._say(f"🎯 Orchestrator deciding next move ({progress_percent(self._elapsed(now), self._total_seconds())}% "
                  f"done, {len(self.asked)} questions asked)")
        inp = self._orchestrator_input(now)
        try:
            result = await self._agent(interview_orchestrator, inp, agent="interview_orchestrator",
                                       actor="interviewer_ai", kind="live_agent",
                                       summary=f"Orchestrator: {self.phase}, {len(self.asked)} asked")
            decision, method = result.output, "orchestrator"
        except AgentFailed:
            decision, method = decisions.fallback_decision(self.plan, set(self.asked), self.phase), "fallback"
            self._say("🎯 Orchestrator failed — next unasked plan question (P1 > P2 > P3)")
        if self.ended:
            return
        decision = decision.model_copy(update={"phase": self.phase})
        self._say(f"🎯 Orchestrator says: ask about \"{decision.next_question.text[:60]}\"")
        self._say(f"   ↳ Phase: {decision.phase}, Reason: {decision.next_question.source}")
        etype = "PROMPT_PRESENTED" if decision.next_question.source == "plan" else "FOLLOWUP_PRESENTED"
        self._present(decision.next_question, brief=decision.interviewer_brief, method=method, event_type=etype)

    async def _structured_step(self, new: list[TranscriptEntry]) -> None:
        """003 §6: the interviewer AI assesses coverage (one retry, then INTERVIEW_TERMINATED); the engine
        ends the section when covered, else asks the next follow-up from the pool while the budget lasts."""
        assert self.plan is not None
        rt, sec = self._section_runtime(), self._section_snapshot()
        answers = [e for e in new if e.speaker == "interviewee" and e.section_id == (rt.id if rt else None)
                   and not e.late]
        if rt is None or sec is None or not answers:
            return
        now = workflow.now()
        try:
            result = await self._agent(interview_orchestrator, self._orchestrator_input(now),
                                       agent="interview_orchestrator", actor="interviewer_ai", kind="live_agent",
                                       summary=f"Interviewer AI: coverage of {sec.id}", section_id=sec.id)
        except AgentFailed as err:
            self._terminate("system_error", f"interviewer AI failed after one retry: {err}")
            return
        if self.ended or self._section_runtime() is not rt:
            return
        said = " ".join(e.text for e in self.tail if e.section_id == rt.id and e.speaker == "interviewee")
        assessed = {a.dimension: a.status for a in result.output.coverage}
        flags = coverage.merge_flags(rt.coverage_flags, coverage.keyword_assessment(sec, said), assessed)
        if flags != rt.coverage_flags:
            rt.coverage_flags = flags
            self._event("interviewer_ai", "COVERAGE_UPDATED", {"coverage_flags": dict(flags)}, section_id=rt.id)
        if coverage.coverage_satisfied(flags):
            self._end_section("coverage_satisfied")
            return
        pick = decisions.select_followup(sec, flags, rt.followups_asked, rt.followup_budget)
        if pick is None:
            if rt.followup_budget <= 0:
                self._end_section("followup_budget_exhausted")
            return
        dimension, question = pick
        rt.followup_budget -= 1
        rt.followups_asked.append(question)
        rt.substate = "SECTION_FOLLOWUP_ACTIVE"
        self._present(NextQuestion(text=question, target_section_id=sec.id, source="followup_pool"),
                      brief=result.output.interviewer_brief, method="engine", event_type="FOLLOWUP_PRESENTED",
                      extra={"dimension": dimension, "budget_remaining": rt.followup_budget})

    def _present(self, question: NextQuestion, *, brief: str, method: str, event_type: str,
                 extra: dict | None = None) -> None:
        """Make a question the one in force: coverage marking, instructions, the event (when it changed)."""
        assert self.plan is not None
        now = workflow.now()
        marked, how = coverage.resolve_asked_question(question.source_question_id, question.text, self.plan,
                                                      set(self.asked))
        if marked and marked not in self.asked:
            self.asked.append(marked)
            self._say(f"✓ Question marked as asked (id: {marked}, method: {how.replace('_', ' ')})")
        previous = self.decision.decision.next_question.text if self.decision else None
        decision = OrchestratorDecision(phase=self.phase, next_question=question,  # type: ignore[arg-type]
                                        interviewer_brief=brief)
        self.decision = DecisionRecord(decision=decision, decided_at=now, method=method,  # type: ignore[arg-type]
                                       marked_question_id=marked, match_method=how)  # type: ignore[arg-type]
        self.instructions = interviewer_instructions(decision, self.notes, self.research, self.plan)
        if question.text != previous or event_type == "FOLLOWUP_PRESENTED" and method == "engine":
            self._event("interviewer_ai" if method != "engine" else "system", event_type,
                        {"text": question.text, "source": question.source, "question_id": marked,
                         "method": method, **(extra or {})}, section_id=self._current_section_id())
        self._say(f"✅ Update complete — now in {self.phase} phase")

    # ======================================================================================= agent calls
    async def _agent(self, fn, arg, *, agent: str, actor: str, kind: str, summary: str,
                     section_id: str | None = None):
        self._event(actor, "AI_REQUEST", {"agent": agent, "summary": summary}, section_id=section_id)
        try:
            result = await call_agent(fn, arg, kind=kind, summary=summary)
        except ActivityError as err:
            message = error_message(err)
            self._event(actor, "AI_FAILED", {"agent": agent, "error": message}, section_id=section_id)
            workflow.logger.warning("%s failed: %s", agent, message)
            raise AgentFailed(message) from None
        self.usage.add(result.usage)
        u = result.usage
        self._event(actor, "AI_RESPONSE", {"agent": agent, "model": u.model, "provider": u.provider,
                                           "input_tokens": u.input_tokens, "output_tokens": u.output_tokens,
                                           "latency_ms": u.latency_ms, "attempt": u.attempt,
                                           "fallback_used": u.fallback_used}, section_id=section_id)
        return result

    # ========================================================================================= finishing
    async def _finish(self) -> InterviewResult:
        assert self.plan is not None
        terminated = self.status == "TERMINATED"
        workflow.set_current_details("writing up: transcript, analysis, essay, exports")
        workflow.upsert_search_attributes([sa.STATUS.value_set("finalizing" if not terminated else "terminated")])
        if self.summary_tasks:
            await asyncio.gather(*self.summary_tasks)
        transcript = await call_activity(interview_save_transcript, SaveTranscriptInput(
            workflow_id=self.wid, segments=self.transcript_segments, tail=self.tail,
            previous=self.previous_transcript), kind="artifact", summary=f"save transcript ({self.count} entries)")
        essay = analysis_ref = None
        title, follow_up, error = "", None, self.error
        said = any(e.speaker == "interviewee" for e in self.tail) or bool(self.transcript_segments)
        if self.inp.write_essay and said and (not terminated or self.inp.essay_on_termination):
            try:
                analysis = (await self._agent(interview_analysis, AnalysisInput(
                    workflow_id=self.wid, plan=self.plan, notes=self.notes, transcript=transcript.json_ref),
                    agent="interview_analysis", actor="system", kind="agent",
                    summary=f"Analysis: {transcript.entries} entries")).output
                analysis_ref = await save_artifact(self.wid, "analysis.json", analysis.model_dump_json(indent=1),
                                                   "application/json")
                written = (await self._agent(interview_writer, WriterInput(
                    workflow_id=self.wid, plan=self.plan, analysis=analysis, transcript=transcript.json_ref,
                    style=self.inp.style, interviewee_name=self.inp.interviewee_name),
                    agent="interview_writer", actor="system", kind="long_agent",
                    summary=f"Writer: {self.inp.style} essay")).output
                essay, title = written.essay, written.title
                self._say(f"✍️ Essay written: {title!r}, {written.words} words, {written.quotes_verified} verified quotes")
            except AgentFailed as err:
                error = f"essay not written: {err}"
                self._say(f"⚠️ {error} (the transcript is saved)")
            try:
                follow_up = (await self._agent(interview_follow_up, FollowUpInput(
                    workflow_id=self.wid, plan=self.plan, notes=self.notes, transcript=transcript.json_ref),
                    agent="interview_follow_up", actor="system", kind="agent", summary="Follow-up suggestions")).output
            except AgentFailed as err:
                self._say(f"⚠️ follow-up suggestions failed: {err}")
        artifacts = [SectionArtifact(section_id=rt.id, title=s.title, started_at=rt.started_at, ended_at=rt.ended_at,
                                     exit_reason=rt.exit_reason, entry_ids=rt.entry_ids,
                                     coverage_flags=rt.coverage_flags, followups_asked=rt.followups_asked,
                                     summary=rt.summary)
                     for rt, s in zip(self.sections, self.plan.sections, strict=False)]
        self._say("📦 Exporting the event log, evaluation and ops replay bundles")
        exports = await call_activity(interview_export_bundles, ExportInput(
            workflow_id=self.wid, status="TERMINATED" if terminated else "COMPLETED",
            exit_reason=self.exit_reason or "unknown", plan=self.plan, notes=self.notes, sections=artifacts,
            transcript=transcript.json_ref, event_segments=self.event_segments, events_tail=self.log.events,
            activity_log=self.activity_log, activity_log_segments=self.activity_log_segments, usage=self.usage,
            follow_up=follow_up, title=title), kind="artifact", summary="export bundles")
        final = "TERMINATED" if terminated else "COMPLETED"
        self.status = final
        workflow.upsert_search_attributes([sa.STATUS.value_set(final.lower())])
        workflow.set_current_details(f"{final.lower()} ({self.exit_reason}); essay: {essay.name if essay else 'none'}")
        return InterviewResult(
            workflow_id=self.wid, status=final, exit_reason=self.exit_reason or "unknown", title=title, essay=essay,  # type: ignore[arg-type]
            analysis=analysis_ref, notes=exports.notes, transcript=transcript.json_ref, event_log=exports.event_log,
            evaluation_bundle=exports.evaluation_bundle, replay_bundle=exports.replay_bundle,
            section_summaries=exports.section_summaries, follow_up=follow_up, activity_log=exports.activity_log,
            entries=self.count, previous_session_id=self.inp.previous_session_id, usage=self.usage, error=error)

    async def _terminate_early(self, error: str) -> InterviewResult:
        self._event("system", "INTERVIEW_TERMINATED", {"reason": "system_error", "error": error})
        self._set_status("TERMINATED")
        workflow.upsert_search_attributes([sa.STATUS.value_set("terminated")])
        return InterviewResult(workflow_id=self.wid, status="TERMINATED", exit_reason="system_error", error=error,
                               usage=self.usage)

    # ===================================================================================== continue-as-new
    def _should_continue_as_new(self) -> bool:
        if self.grace_until is not None:
            return False          # a few seconds from the end: finish in this run
        info = workflow.info()
        return info.is_continue_as_new_suggested() or \
            info.get_current_history_length() >= self.inp.continue_as_new_after_events

    async def _continue_as_new(self) -> None:
        """Carry the state into a fresh run; old transcript entries, events and log lines go to artifacts."""
        assert self.plan is not None and self.started_at is not None and self.ends_at is not None
        await workflow.wait_condition(workflow.all_handlers_finished)
        if self.summary_tasks:
            await asyncio.gather(*self.summary_tasks)
        run = self.continued + 1
        old_entries, self.tail = self.tail[:-KEEP_ENTRIES], self.tail[-KEEP_ENTRIES:]
        if old_entries:
            self.transcript_segments.append(await call_activity(interview_archive_lines, ArchiveInput(
                workflow_id=self.wid, name=f"transcript-part-{run:03d}.jsonl",
                lines=[e.model_dump_json() for e in old_entries]), kind="artifact",
                summary=f"archive {len(old_entries)} entries"))
        self._event("system", "CONTINUED_AS_NEW", {"run": run, "entries": self.count,
                                                  "history_events": workflow.info().get_current_history_length()})
        old_events = self.log.events[:-KEEP_EVENTS] if len(self.log.events) > KEEP_EVENTS else []
        if old_events:
            self.event_segments.append(await call_activity(interview_archive_lines, ArchiveInput(
                workflow_id=self.wid, name=f"events-part-{run:03d}.jsonl",
                lines=[e.model_dump_json() for e in old_events]), kind="artifact",
                summary=f"archive {len(old_events)} events"))
        old_lines = self.activity_log[:-KEEP_LOG_LINES] if len(self.activity_log) > KEEP_LOG_LINES else []
        if old_lines:
            self.activity_log_segments.append(await call_activity(interview_archive_lines, ArchiveInput(
                workflow_id=self.wid, name=f"activity-log-part-{run:03d}.txt", lines=old_lines), kind="artifact",
                summary="archive activity log"))
        await workflow.wait_condition(workflow.all_handlers_finished)
        # nothing awaits from here on: entries/events that arrived meanwhile are all carried
        keep = self.log.events[len(old_events):]
        self.activity_log = self.activity_log[len(old_lines):]
        carried = CarriedState(
            plan=self.plan, started_at=self.started_at, ends_at=self.ends_at, status=self.status, phase=self.phase,
            sections=self.sections, current_index=self.current, notes=self.notes, research=self.research,
            researched_at=self.researched_at, asked_question_ids=self.asked, decision=self.decision,
            event_seq=self.log.last_id, events_tail=keep, event_segments=self.event_segments,
            transcript_tail=self.tail, transcript_segments=self.transcript_segments, transcript_count=self.count,
            seen_entry_ids=sorted(self.seen_ids), assistant_answers=self.assistant_answers,
            processed_seq=self.processed_seq, paused_since=self.paused_since, usage=self.usage,
            previous_transcript=self.previous_transcript, activity_log=self.activity_log,
            activity_log_segments=self.activity_log_segments, grace_until=self.grace_until,
            exit_reason=self.exit_reason, continued=run)
        workflow.continue_as_new(self.inp.model_copy(update={"carried": carried, "plan": None}))

    # ============================================================================================ helpers
    def _event(self, actor: str, type: str, payload: dict | None = None, section_id: str | None = None) -> None:
        self.log.append(workflow.now(), actor, type, payload, section_id=section_id or self._current_section_id())

    def _say(self, line: str) -> None:
        """AgentLogger-style human-readable activity log (000 'Debugging and Logging')."""
        stamp = workflow.now().strftime("%H:%M:%S")
        self.activity_log.append(f"[{stamp}] {line}")
        if not workflow.unsafe.is_replaying():
            workflow.logger.info(line)

    def _set_status(self, status: str) -> None:
        self.status = status
        workflow.upsert_search_attributes([sa.STATUS.value_set(status.lower())])
        self._update_details()

    def _set_phase(self, phase: str) -> None:
        old, self.phase = self.phase, phase
        workflow.upsert_search_attributes([sa.PHASE.value_set(phase)])
        if self.started_at is not None and old != phase:
            self._event("system", "PHASE_CHANGED", {"from": old, "to": phase})
            self._say(f"🔀 Phase: {old} → {phase}")
            self.wake = True

    def _update_details(self) -> None:
        workflow.set_current_details(self._waiting_for())

    def _waiting_for(self) -> str:
        if self.status == "PLANNING":
            return f"planning the interview on {self.inp.topic!r}"
        if self.status == "PAUSED":
            return "paused: waiting for the interviewee to reconnect (the clock keeps running)"
        if self.grace_until is not None:
            return "time is up: waiting 15 s for late answers"
        if self.status == "IN_PROGRESS":
            q = self._next_question()
            sec = self._current_section_id()
            return f"section {sec}, {self.phase}: waiting for the answer to: {q}" if q else \
                f"section {sec}, {self.phase}: waiting for the interviewee"
        if self.status in ("FINALIZING",):
            return "writing up: transcript, analysis, essay, exports"
        return self.status.lower()

    def _allowed_actions(self) -> list[str]:
        if self.status == "IN_PROGRESS":
            sec = self._section_snapshot()
            base = list(sec.allowed_actions) if sec else ["chat", "submit", "ask_assistant"]
            return base + ["pause", "candidate_done", "end"]
        if self.status == "PAUSED":
            return ["resume", "reconnect", "end"]
        if self.status in ("PLANNING", "NOT_STARTED"):
            return ["end"]
        return []

    def _next_question(self) -> str | None:
        if self.decision is None or self.status not in LIVE_STATUSES:
            return None
        return self.decision.decision.next_question.text

    def _section_runtime(self) -> SectionRuntime | None:
        return self.sections[self.current] if 0 <= self.current < len(self.sections) else None

    def _section_snapshot(self):
        if self.plan is None or not (0 <= self.current < len(self.plan.sections)):
            return None
        return self.plan.sections[self.current]

    def _current_section_id(self) -> str | None:
        rt = self._section_runtime()
        return rt.id if rt else None

    def _elapsed(self, now: datetime) -> float:
        return max(0.0, timing.seconds_between(self.started_at, now)) if self.started_at else 0.0

    def _total_seconds(self) -> int:
        if self.started_at and self.ends_at:
            return int(timing.seconds_between(self.started_at, self.ends_at))
        return self.inp.duration_seconds


WORKFLOWS: list[type] = [InterviewWorkflow]
