"""InterviewWorkflow: plan → live session → analysis → essay → follow-up, as one durable workflow.

    plan = await planner(topic, context, duration)                        (fallback: a plan from the topic)
    INTERVIEW_STARTED; SECTION_STARTED(first section)
    ┌ clock task: section deadlines, T-2:00/T-0:30 warnings, phases at 15 %/85 %, the end + 15 s late grace,
    │             presence (after the first interviewee heartbeat: none for 20 s → PAUSED, the next one resumes)
    └ live loop, on new entries (and controls, phase/section changes); a timer only when the decision expires:
          notes, research = await gather(note_taker(last 20), researcher(last 20))   ← only on new interviewee words
          decision = await orchestrator(plan+coverage, last 30, notes, research)     ← reused if < 30 s old
          propose the question; publish interviewer instructions (a plan question is marked asked when an
          interviewer entry asks it: the decided id when the entry echoes the decision, else Jaccard > 0.6)
          structured mode: dimension coverage → bounded follow-up from the pool, or end the section
          continue-as-new when history grows long (state carried, old texts archived as artifacts)
    transcript (merged with the previous session) → analysis → writer (essay) ; follow-up agent
    export bundles (event log, evaluation input, ops replay)

The session's state machine (entries, controls, sections, deadlines, warnings, late grace, coverage, exit reasons)
is the pure `rules.interview.session.Session`; its state is one `InterviewState`, carried whole by continue-as-new.
Here: handlers, the cycle, agent calls and finishing (the live loop, the clock and continue-as-new are the mixins
in loop.py, clock.py and carry.py beside this module); `_apply` carries out each session `Outcome`.
User input never waits for the loop: handlers validate, dedupe by entry id, append, wake the loop.
Every agent call is logged as AI_REQUEST / AI_RESPONSE (or AI_FAILED) in the 003 event log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.agents.base import agent_activity
    from activities.interview import (
        interview_analysis,
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
    from models.common import MAX_ID_CHARS
    from models.interview.activities import LoadSessionInput, PlannerInput, SectionSummaryInput
    from models.interview.entries import (
        AssistantAnswer,
        AssistantQuery,
        Heartbeat,
        SessionControl,
        SubmitEntryResult,
        TranscriptEntry,
        TranscriptView,
    )
    from models.interview.names import (
        QUERY_EVENT_LOG,
        QUERY_NOTES,
        QUERY_PLAN,
        QUERY_SESSION_STATE,
        QUERY_TRANSCRIPT,
        SIGNAL_SESSION_CONTROL,
        SIGNAL_TRANSCRIPT_ENTRY,
        UPDATE_ASSISTANT_QUERY,
        UPDATE_HEARTBEAT,
        UPDATE_SESSION_CONTROL,
        UPDATE_SUBMIT_ENTRY,
        WORKFLOW_TYPE,
    )
    from models.interview.notes import NotesState
    from models.interview.patches import DEADLINE_TIMER_CANCELLED, DECISION_DEADLINE, FINISH_CARRIED_END
    from models.interview.plan import PlanSnapshot
    from models.interview.workflow import EventLogPage, InterviewInput, InterviewResult, SessionState
    from models.status import PHASE_DONE, interview_status
    from rules.errors import error_message
    from rules.interview.entries import EntryError
    from rules.interview.session import Outcome, Session
    from workflows.calls import call_activity, call_agent, save_artifact
    from workflows.inputs import check_start_input, fail_start, invalid, signal_input, update_input
    from workflows.interview.carry import ContinueAsNew
    from workflows.interview.clock import Clock
    from workflows.interview.loop import LiveLoop

PIPELINE = "interview"
R = TypeVar("R")


class AgentFailed(Exception):
    pass


def _validate(check: Callable[[Any], R], arg: Any) -> R:
    """Update validators: the session's EntryError becomes the non-retryable InvalidInput the caller sees, its refusal
    code and numbers in the error's details (a page words them in its participant's language). A rejected update
    writes nothing to the history."""
    try:
        return check(arg)
    except EntryError as err:
        raise invalid(str(err), err.details()) from None


@workflow.defn(name=WORKFLOW_TYPE)
class InterviewWorkflow(LiveLoop, Clock, ContinueAsNew):
    @workflow.init
    def __init__(self, raw: Any = None, *extra: Any) -> None:  # *extra: workflows/one_input.py
        parsed, self.input_error = check_start_input(InterviewInput, raw, WORKFLOW_TYPE)
        inp = parsed or InterviewInput(topic="(invalid input)")   # the run fails at once; queries still answer
        self.inp = inp
        self.wid = workflow.info().workflow_id
        self.s = Session(inp, self.wid, inp.carried)
        self.s.patched = workflow.patched      # behaviour changes that change commands (histories replay the old way)
        self.wake = False              # the live loop should look again
        self.tick = False              # the live loop's cadence timer fired
        self.clock_fired = False       # the clock's timer fired
        self.schedule_changed = False  # the clock should re-plan
        self.can_requested = False
        self.summary_tasks: list[asyncio.Task[None]] = []
        self.checked_entries: dict[str, TranscriptEntry] = {}   # update id -> the entry its validator checked
        self.timer_tasks: list[asyncio.Task[None]] = []
        self.running_cycle: asyncio.Task[None] | None = None   # a cycle past its decision deadline, still running

    # ================================================================================================ run
    @workflow.run
    async def run(self, raw: Any = None, *extra: Any) -> InterviewResult:
        if self.input_error is not None:
            self.s.ended, self.s.accepting = True, False
            fail_start(PIPELINE, self.input_error)
        inp = self.inp
        if inp.carried is None:
            self._apply(self.s.create(workflow.now()))
            sa.upsert(pipeline=PIPELINE, topic=inp.topic, phase="planning", status=interview_status(self.s.state.status))
            workflow.set_current_details(f"planning the interview on {inp.topic!r}")
            try:
                await self._prepare_plan()
            except (AgentFailed, ActivityError) as err:
                error = error_message(err) if isinstance(err, ActivityError) else str(err)
                self._apply(self.s.terminate_early(workflow.now(), error))
                sa.upsert(phase=PHASE_DONE, status=interview_status(self.s.state.status))  # TERMINATED: halted
                workflow.set_current_details(f"halted before it started: {error}")
                return self.s.early_result(error)
            if self.s.ended:
                return await self._finish()
            self._apply(self.s.start(workflow.now()))
        else:
            if self.s.finished_before_this_run() and workflow.patched(FINISH_CARRIED_END):
                return await self._finish()     # ended while the last run continued as new: only the write-up is left
            self._say(f"↻ Continued as new (run {self.s.state.continued + 1}), "
                      f"{self.s.state.transcript_count} entries so far")
        clock = asyncio.create_task(self._clock())
        await self._live_loop()
        if self.running_cycle is not None:
            await self.running_cycle    # a cycle past its deadline finishes before the state is carried or written up
        self.can_requested = self.can_requested and not self.s.ended
        self.schedule_changed = True
        await clock
        if self.can_requested:
            await self._continue_as_new()   # returns only when the interview ended meanwhile: finish here
        return await self._finish()

    def _apply(self, out: Outcome) -> None:
        """Carry out what a session step decided: log lines, search attributes (in order), section summaries."""
        if not workflow.unsafe.is_replaying():
            for line in out.said:
                workflow.logger.info(line)
        for key, value in out.upserts:
            if key == "status":
                sa.upsert(status=interview_status(value))
            else:
                sa.upsert(phase=value)
        for index, summary_input in out.summaries:
            self.summary_tasks.append(asyncio.create_task(self._summarize_section(index, summary_input)))
        self.wake = self.wake or out.wake
        self.schedule_changed = self.schedule_changed or out.reschedule
        if out.upserts or out.reschedule:
            workflow.set_current_details(self.s.waiting_for())

    def _say(self, line: str) -> None:
        self._apply(self.s.say(workflow.now(), line))

    # =========================================================================================== planning
    async def _prepare_plan(self) -> None:
        inp = self.inp
        workflow.set_current_details(f"planning the interview on {inp.topic!r}")
        record = None
        if inp.previous_session_id:
            record = await call_activity(interview_load_session, LoadSessionInput(workflow_id=inp.previous_session_id),
                                         kind="storage", summary=f"load previous session {inp.previous_session_id}")
            self.s.load_previous(record)
        plan = self.s.plan_or_request(record)
        if isinstance(plan, PlannerInput):
            request = plan
            try:
                plan = (await self._agent(interview_planner, request, actor="system", summary=f"Planner: {request.topic[:60]}")).output
            except AgentFailed:
                self._say("⚠️ Planner failed — using the plan derived from the topic")
                plan = self.s.planner_fallback(request)
            if record is not None:
                plan = self.s.as_follow_up(record, request, plan)
        if record is not None:
            self._say(f"🔁 Follow-up of {record.workflow_id}: {len(self.s.state.previous_transcript)} earlier entries")
        self._apply(self.s.set_plan(workflow.now(), plan))

    # ============================================================================================ handlers
    @workflow.signal(name=SIGNAL_TRANSCRIPT_ENTRY)
    async def on_transcript_entry(self, raw: Any) -> None:
        entry = self._signal_arg(TranscriptEntry, raw, SIGNAL_TRANSCRIPT_ENTRY)
        if entry is None:
            return
        try:
            checked = self.s.check_entry(entry)
        except EntryError as err:
            self._apply(self.s.reject_entry(workflow.now(), entry, err))
            workflow.logger.warning("entry rejected: %s", err)
            return
        await workflow.wait_condition(lambda: self.s.started or self.s.ended)
        if self.s.accepting:
            try:   # again (its order only): an entry of the same client may have been recorded meanwhile
                self.s.check_entry(checked, validated=True)
            except EntryError as err:
                self._apply(self.s.reject_entry(workflow.now(), entry, err))
                return
            self._apply(self.s.accept_entry(workflow.now(), checked, validated=True)[2])

    @workflow.update(name=UPDATE_SUBMIT_ENTRY)
    async def submit_entry(self, raw: Any) -> SubmitEntryResult:
        # parsed and validated once, by the validator (on replay validators do not run: then here)
        checked = self.checked_entries.pop(workflow.current_update_info().id, None)  # type: ignore[union-attr]
        entry = checked or update_input(TranscriptEntry, raw, UPDATE_SUBMIT_ENTRY)
        # entries sent while the plan is being prepared join the first section
        await workflow.wait_condition(lambda: self.s.started or self.s.ended)
        if not self.s.accepting:
            raise ApplicationError(f"interview {self.wid} has ended ({self.s.state.exit_reason or 'finished'}); "
                                   f"entries are no longer accepted", type="InterviewEnded", non_retryable=True)
        # validated on arrival, its order checked again now: a later entry of the same client (a signal delivered
        # in the same task) may have been recorded meanwhile — then this one is refused, never recorded after it
        try:
            entry = self.s.check_entry(entry, validated=checked is not None)
        except EntryError as err:
            raise ApplicationError(str(err), err.details(), type="EntryRejected", non_retryable=True) from None
        accepted, duplicate, out = self.s.accept_entry(workflow.now(), entry, validated=True)
        self._apply(out)
        return self.s.submit_result(accepted, duplicate)

    @submit_entry.validator
    def _validate_submit_entry(self, raw: Any) -> None:
        entry = update_input(TranscriptEntry, raw, UPDATE_SUBMIT_ENTRY)
        self.checked_entries[workflow.current_update_info().id] = _validate(  # type: ignore[union-attr]
            self.s.check_entry, entry)

    @workflow.signal(name=SIGNAL_SESSION_CONTROL)
    def on_session_control(self, raw: Any) -> None:
        control = self._signal_arg(SessionControl, raw, SIGNAL_SESSION_CONTROL)
        if control is None:
            return
        try:
            action = self.s.check_control(control)
        except EntryError as err:
            self._apply(self.s.reject_control(workflow.now(), control, err))
            return
        self._apply(self.s.control(workflow.now(), action, control.reason))

    @workflow.update(name=UPDATE_SESSION_CONTROL)
    def control_session(self, raw: Any) -> SessionState:
        control = update_input(SessionControl, raw, UPDATE_SESSION_CONTROL)
        self._apply(self.s.control(workflow.now(), self.s.check_control(control), control.reason))
        return self.session_state()

    @control_session.validator
    def _validate_control(self, raw: Any) -> None:
        _validate(self.s.check_control, update_input(SessionControl, raw, UPDATE_SESSION_CONTROL))

    @workflow.update(name=UPDATE_HEARTBEAT)
    def heartbeat(self, raw: Any) -> SessionState:
        """Presence: the first interviewee heartbeat turns it on (the clock then also watches for silence: no
        heartbeat for presence_timeout_seconds → PAUSED, disconnect); one after that pause resumes. Histories
        recorded before presence have no heartbeat, so their clocks arm exactly the timers they did."""
        self._apply(self.s.heartbeat(workflow.now(), update_input(Heartbeat, raw, UPDATE_HEARTBEAT)))
        return self.session_state()

    @heartbeat.validator
    def _validate_heartbeat(self, raw: Any) -> None:
        update_input(Heartbeat, raw, UPDATE_HEARTBEAT)

    @workflow.update(name=UPDATE_ASSISTANT_QUERY)
    async def assistant_query(self, raw: Any) -> AssistantAnswer:
        query = update_input(AssistantQuery, raw, UPDATE_ASSISTANT_QUERY)
        if query.query_id in self.s.state.assistant_answers:
            return self.s.state.assistant_answers[query.query_id].model_copy(update={"duplicate": True})
        assistant_input, out = self.s.assistant_asked(workflow.now(), query)
        self._apply(out)
        try:
            result = await self._agent(interview_assistant, assistant_input, actor="assistant_ai",
                                       summary=f"Assistant: {query.text[:60]}")
            answer = result.output
        except AgentFailed as err:
            answer = self.s.assistant_unavailable(query, str(err))
        self._apply(self.s.assistant_answered(workflow.now(), answer))
        return answer

    @assistant_query.validator
    def _validate_assistant(self, raw: Any) -> None:
        _validate(self.s.check_assistant_query, update_input(AssistantQuery, raw, UPDATE_ASSISTANT_QUERY))

    def _signal_arg(self, model: Any, raw: Any, name: str) -> Any:
        """The signal's argument, or None after logging ENTRY_REJECTED / CONTROL_REJECTED in the event log (as for
        an entry the session refuses; nothing else changes)."""
        arg, error = signal_input(model, raw, name)
        if arg is None:
            kind = "ENTRY_REJECTED" if name == SIGNAL_TRANSCRIPT_ENTRY else "CONTROL_REJECTED"
            entry_id = raw.get("entry_id") if isinstance(raw, dict) else None
            self.s.event(workflow.now(), "system", kind, {"signal": name, "error": error}
                         | ({"entry_id": str(entry_id)[:MAX_ID_CHARS]} if entry_id is not None else {}))
        return arg

    @workflow.query(name=QUERY_SESSION_STATE)
    def session_state(self) -> SessionState:
        return self.s.view(workflow.now(), failed=self.input_error is not None)

    @workflow.query(name=QUERY_EVENT_LOG)
    def event_log(self, after_event_id: int = 0) -> EventLogPage:
        return self.s.event_page(after_event_id)

    @workflow.query(name=QUERY_TRANSCRIPT)
    def transcript(self) -> TranscriptView:
        return self.s.transcript_view()

    @workflow.query(name=QUERY_NOTES)
    def notes_query(self) -> NotesState:
        return self.s.state.notes

    @workflow.query(name=QUERY_PLAN)
    def plan_query(self) -> PlanSnapshot | None:
        return self.s.state.plan

    # ========================================================================================= live loop
    async def _cycle(self) -> None:
        """One cycle — within `decision_deadline_seconds` in adaptive mode (issue 35): when the listeners and the
        Orchestrator have not decided by then, the fallback's question is put in force ("model slow") and the
        cycle goes on; its decision is then dropped (a question waits for its answer) or, once the fallback's was
        answered, used for that turn. The next cycle waits for it within its own bound."""
        bound = self.inp.decision_deadline_seconds
        if self.inp.mode != "adaptive" or bound <= 0 or not workflow.patched(DECISION_DEADLINE):
            await self._cycle_steps()
            return
        behind = self.running_cycle is not None and not self.running_cycle.done()
        if not behind:
            self.running_cycle = asyncio.create_task(self._cycle_steps())
        running = self.running_cycle
        assert running is not None
        timer = asyncio.create_task(workflow.sleep(bound, summary=f"decision deadline ({bound:g}s)"))
        await workflow.wait_condition(lambda: running.done() or timer.done())
        if not running.done():
            self._apply(self.s.decision_late(workflow.now(), bound))
            return
        if not timer.done() and workflow.patched(DEADLINE_TIMER_CANCELLED):
            timer.cancel()          # in time: the timer would only wake the workflow for nothing (runs before
                                    # this patch let it fire: a workflow task per answer)
        if behind:
            self.wake = True        # the late cycle ended in time: a cycle for what arrived meanwhile

    async def _cycle_steps(self) -> None:
        """000 processLiveUpdate: never raises; every agent has its fallback (structured mode: 003 §10.2)."""
        now = workflow.now()
        up_to = self.s.state.transcript_count
        new = self.s.new_entries()
        listen, out = self.s.cycle_begins(now, new)
        self._apply(out)
        if listen:
            await asyncio.gather(self._run_note_taker(), self._run_researcher(now))
            self._say("   ↳ Both finished, asking Orchestrator what to do next")
        self.s.state.processed_seq = up_to
        if self.s.ended:
            return
        if self.inp.mode == "structured":
            await self._structured_step(new)
        else:
            await self._adaptive_step(new, now)
        workflow.set_current_details(self.s.waiting_for())

    async def _run_note_taker(self) -> None:
        inp = self.s.note_taker_input()
        try:
            result = await self._agent(interview_note_taker, inp, actor="system", summary=f"NoteTaker: last {len(inp.window)} entries")
        except AgentFailed:
            self._say("📝 NoteTaker failed — keeping the previous notes")
            return
        self._apply(self.s.merge_notes(workflow.now(), result.output))

    async def _run_researcher(self, now: datetime) -> None:
        inp = self.s.researcher_input(now)
        try:
            result = await self._agent(interview_researcher, inp, actor="system", summary=f"Researcher: last {len(inp.window)} entries")
        except AgentFailed:
            self._say("🔍 Researcher failed — no new research this cycle")
            return
        self._apply(self.s.add_research(workflow.now(), result.output, asked_at=now))

    async def _adaptive_step(self, new: list[TranscriptEntry], now: datetime) -> None:
        decide, out = self.s.needs_decision(workflow.now(), len(new), cycle_at=now)
        self._apply(out)
        if not decide:
            return
        asked = len(self.s.state.asked_question_ids)
        try:
            result = await self._agent(interview_orchestrator, self.s.orchestrator_input(now), actor="interviewer_ai",
                                       summary=f"Orchestrator: {self.s.state.phase}, {asked} asked")
            decision, method = result.output, "orchestrator"
        except AgentFailed:
            decision, method = self.s.fallback_decision(), "fallback"
            self._say("🎯 Orchestrator failed — next unasked plan question (P1 > P2 > P3)")
        self._apply(self.s.present_decision(workflow.now(), decision, method))

    async def _structured_step(self, new: list[TranscriptEntry]) -> None:
        """003 §6: the interviewer AI assesses coverage (one retry, then INTERVIEW_TERMINATED); the session
        ends the section when covered, else asks the next follow-up from the pool while the budget lasts."""
        rt, sec = self.s.runtime(), self.s.snapshot()
        if rt is None or sec is None or not self.s.answers_to_assess(new):
            return
        try:
            result = await self._agent(interview_orchestrator, self.s.orchestrator_input(workflow.now()),
                                       actor="interviewer_ai",
                                       summary=f"Interviewer AI: coverage of {sec.id}", section_id=sec.id)
        except AgentFailed as err:
            self._apply(self.s.terminate(workflow.now(), "system_error", f"interviewer AI failed after one retry: {err}"))
            return
        self._apply(self.s.assess_coverage(workflow.now(), rt, result.output))

    async def _summarize_section(self, index: int, summary_input: SectionSummaryInput) -> None:
        sid = summary_input.section_id
        try:
            result = await self._agent(interview_section_summary, summary_input, actor="system",
                                       summary=f"Section summary: {sid}", section_id=sid)
            self.s.state.sections[index].summary = result.output
        except AgentFailed:
            self._say(f"⚠️ Section summary for {sid} failed — the section keeps its raw transcript only")

    # ======================================================================================= agent calls
    async def _agent(self, fn: Any, arg: Any, *, actor: str, summary: str, section_id: str | None = None) -> Any:
        """Call an agent through its declaration (its name is the declaration's, logged as AI_REQUEST/…)."""
        declared = agent_activity(fn)
        assert declared is not None, f"{fn!r} is not an agent activity"
        agent = declared.spec.name
        self.s.agent_called(workflow.now(), actor, agent, summary, section_id)
        try:
            result = await call_agent(fn, arg, summary=summary)
        except ActivityError as err:
            message = error_message(err)
            self.s.agent_failed(workflow.now(), actor, agent, message, section_id)
            workflow.logger.warning("%s failed: %s", agent, message)
            raise AgentFailed(message) from None
        self.s.agent_answered(workflow.now(), actor, agent, result.usage, section_id)
        return result

    # ========================================================================================= finishing
    async def _finish(self) -> InterviewResult:
        st, inp = self.s.state, self.inp
        final = "TERMINATED" if st.status == "TERMINATED" else "COMPLETED"
        workflow.set_current_details("writing up: transcript, analysis, essay, exports")
        sa.upsert(status=interview_status(st.status))  # FINALIZING, or TERMINATED: halted
        if self.summary_tasks:
            await asyncio.gather(*self.summary_tasks)
        await self._shed_before_finish()
        transcript = await call_activity(interview_save_transcript, self.s.save_transcript_input(), kind="artifact",
                                         summary=f"save transcript ({st.transcript_count} entries)")
        ref, essay, analysis_ref, title, follow_up, error = transcript.json_ref, None, None, "", None, self.s.error
        if self.s.wants_essay():
            try:
                analysis = (await self._agent(interview_analysis, self.s.analysis_input(ref), actor="system",
                                              summary=f"Analysis: {transcript.entries} entries")).output
                analysis_ref = await save_artifact(self.wid, "analysis.json", analysis.model_dump_json(indent=1),
                                                   "application/json")
                written = (await self._agent(interview_writer, self.s.writer_input(analysis, ref),
                                             actor="system",
                                             summary=f"Writer: {inp.style} essay")).output
                essay, title = written.essay, written.title
                self._say(f"✍️ Essay written: {title!r}, {written.words} words, {written.quotes_verified} verified quotes")
            except AgentFailed as err:
                error = f"essay not written: {err}"
                self._say(f"⚠️ {error} (the transcript is saved)")
            try:
                follow_up = (await self._agent(interview_follow_up, self.s.follow_up_input(ref),
                                               actor="system",
                                               summary="Follow-up suggestions")).output
            except AgentFailed as err:
                self._say(f"⚠️ follow-up suggestions failed: {err}")
        self._say("📦 Exporting the event log, evaluation and ops replay bundles")
        exports = await call_activity(interview_export_bundles, self.s.export_input(final, ref, follow_up, title),
                                      kind="artifact", summary="export bundles")
        st.status = final
        sa.upsert(phase=PHASE_DONE, status=interview_status(final))
        shown = (f"[{essay.name}]({essay.url})" if essay.url else essay.name) if essay else "none"
        workflow.set_current_details(f"{final.lower()} ({st.exit_reason}); essay: {shown}")  # markdown: a link
        return InterviewResult(
            workflow_id=self.wid, status=final, exit_reason=st.exit_reason or "unknown", title=title, essay=essay,  # type: ignore[arg-type]
            analysis=analysis_ref, notes=exports.notes, transcript=ref, event_log=exports.event_log,
            evaluation_bundle=exports.evaluation_bundle, replay_bundle=exports.replay_bundle,
            section_summaries=exports.section_summaries, follow_up=follow_up, activity_log=exports.activity_log,
            entries=st.transcript_count, previous_session_id=inp.previous_session_id, usage=st.usage, error=error)


WORKFLOWS: list[type] = [InterviewWorkflow]
