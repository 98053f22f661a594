"""What the session shows (the Web UI's state, the event and transcript pages) and the agents' inputs."""

from __future__ import annotations

from datetime import datetime

from models.common import ArtifactRef
from models.interview.activities import (
    AnalysisInput,
    ExportInput,
    FollowUpInput,
    NoteTakerInput,
    OrchestratorInput,
    ResearcherInput,
    SaveTranscriptInput,
    WriterInput,
)
from models.interview.analysis import AnalysisSummary, FollowUpAnalysis, SectionArtifact
from models.interview.entries import TranscriptView
from models.interview.workflow import EventLogPage, SectionStatus, SessionState
from models.status import interview_status

from . import cadence, coverage, timing
from .notes import summary_text
from .session_live import SessionLive


class SessionViews(SessionLive):

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
            question_event_id=s.question_event_id if self.next_question() else 0,
            question_entry_id=self.question_entry_id,
            paused_reason=s.paused_reason,
            presence_timeout_seconds=self.inp.presence_timeout_seconds, interviewee_seen_at=s.interviewee_seen_at,
            model_slow=s.model_slow and self.next_question() is not None, slow_decisions=s.slow_decisions,
            answer_in_parts=(due := self.answer_due()) is not None and due > now and s.status == "IN_PROGRESS")

    def event_page(self, after_event_id: int = 0) -> EventLogPage:
        return EventLogPage(events=self.log.after(after_event_id), last_event_id=self.log.last_id,
                            first_event_id_in_memory=self.log.first_id(), archived=list(self.state.event_segments))

    def transcript_view(self) -> TranscriptView:
        s = self.state
        return TranscriptView(entries=list(s.transcript_tail), total_entries=s.transcript_count,
                              archived=list(s.transcript_segments))

    def note_taker_input(self) -> NoteTakerInput:
        s = self.state
        assert s.plan is not None
        return NoteTakerInput(topic=s.plan.topic, research_goal=s.plan.research_goal, angle=s.plan.angle,
                              sections=[{"id": x.id, "title": x.title} for x in s.plan.sections],
                              window=cadence.lines(cadence.listen_window(s.transcript_tail, s.processed_seq,
                                                                         cadence.NOTES_WINDOW)),
                              notes_text=summary_text(s.notes), current_section_id=self.current_section_id())

    def researcher_input(self, now: datetime) -> ResearcherInput:
        s = self.state
        assert s.plan is not None
        recent = [t for t, at in s.researched_at.items()
                  if timing.seconds_between(at, now) < cadence.TOPIC_REFRESH_SECONDS]
        window = cadence.listen_window(s.transcript_tail, s.processed_seq, cadence.RESEARCH_WINDOW)
        return ResearcherInput(topic=s.plan.topic, window=cadence.lines(window),
                               existing_topics=[r.topic for r in s.research], recent_topics=recent)

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
            follow_up_context=s.plan.follow_up_context if s.plan.is_follow_up else "", language=self.language())

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
                           title=title, slow_decisions=s.slow_decisions)

    def section_artifacts(self) -> list[SectionArtifact]:
        s = self.state
        assert s.plan is not None
        return [SectionArtifact(section_id=rt.id, title=x.title, started_at=rt.started_at, ended_at=rt.ended_at,
                                exit_reason=rt.exit_reason, entry_ids=rt.entry_ids, coverage_flags=rt.coverage_flags,
                                followups_asked=rt.followups_asked, summary=rt.summary)
                for rt, x in zip(s.sections, s.plan.sections, strict=False)]
