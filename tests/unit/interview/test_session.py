"""The session state machine (rules/interview/session.py), without Temporal: given `now`, each step returns the
events it logged and the effects (search-attribute upserts, summaries to start, wake, reschedule)."""

from datetime import UTC, datetime, timedelta

import pytest

from models.common import LLMUsage
from models.interview.entries import SessionControl, TranscriptEntry
from models.interview.notes import DimensionAssessment, NextQuestion, OrchestratorDecision
from models.interview.plan import DimensionSpec, PlanSnapshot, QuestionSnapshot, SectionSnapshot
from models.interview.workflow import InterviewInput, InterviewState
from rules.interview import decisions
from rules.interview.entries import EntryError
from rules.interview.session import Session

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
WID = "interview-rate-limiter-abc123"


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def entry(entry_id: str, speaker: str, text: str) -> TranscriptEntry:
    return TranscriptEntry(entry_id=entry_id, speaker=speaker, text=text)


def shown(s: Session, now: datetime, entry_id: str) -> None:
    """A client shows the question in force. Since the engine records its questions (ENGINE_ASKS) that is all; on
    a run from before, the client recorded it as the interviewer's entry (its echo)."""
    if not s.state.engine_asks:
        s.accept_entry(now, entry(entry_id, "interviewer", s.next_question() or ""))


def sections() -> list[SectionSnapshot]:
    """Two structured sections: 5 min (T-2:00 and T-0:30 warnings) and 1 min (no T-2:00 warning)."""
    return [
        SectionSnapshot(id="design", title="System design", goal="Design a rate limiter", duration_seconds=300,
                        followup_cap=2, primary_prompt="Design a rate limiter for our public API.",
                        required_dimensions=[DimensionSpec(name="metrics", keywords=["latency"]),
                                             DimensionSpec(name="failure_modes", priority=2, keywords=["outage"])],
                        followup_pool={"metrics": ["How would you measure whether it works?"],
                                       "failure_modes": ["What happens when the counter store is down?"]}),
        SectionSnapshot(id="wrap", title="Wrap-up", goal="Reflect", duration_seconds=60, followup_cap=1,
                        primary_prompt="What would you improve?",
                        required_dimensions=[DimensionSpec(name="reflection", keywords=["improve"])],
                        followup_pool={"reflection": ["What would you do differently?"]}),
    ]


def plan() -> PlanSnapshot:
    return PlanSnapshot(topic="On-call", research_goal="Why on-call breaks teams", angle="Pager fatigue", sections=[
        SectionSnapshot(id="origins", title="Origins", importance="high", questions=[
            QuestionSnapshot(id="q-origin", text="How did you end up carrying the pager?", priority=1)]),
        SectionSnapshot(id="practice", title="Practice", questions=[
            QuestionSnapshot(id="q-measure", text="How do you measure a healthy rotation?", priority=1)])])


def started(mode: str = "structured", secs: list[SectionSnapshot] | None = None, **fields) -> Session:
    if mode == "structured":
        inp = InterviewInput(topic="Rate limiter", mode="structured", sections=secs or sections(), **fields)
    else:
        inp = InterviewInput(topic="On-call", plan=plan(), duration_seconds=840, **fields)
    s = Session(inp, WID)
    s.create(T0)
    ready = s.plan_or_request()
    assert isinstance(ready, PlanSnapshot)      # sections or a plan given: no Planner call
    s.set_plan(T0, ready)
    s.start(T0)
    return s


def assessment(**flags: str) -> OrchestratorDecision:
    return OrchestratorDecision(phase="opening", next_question=NextQuestion(text="(engine picks)"),
                                interviewer_brief="Keep it crisp.",
                                coverage=[DimensionAssessment.model_validate({"dimension": k, "status": v})
                                          for k, v in flags.items()])


# ------------------------------------------------------------------------------------------ start
def test_create_and_start_log_events_and_upsert_status_then_phase_in_order():
    inp = InterviewInput(topic="Rate limiter", mode="structured", sections=sections())
    s = Session(inp, WID)
    out = s.create(T0)
    assert out.types() == ["INTERVIEW_CREATED"] and out.upserts == [("status", "planning")]
    assert s.waiting_for() == "planning the interview on 'Rate limiter'" and s.allowed_actions() == ["end"]
    s.set_plan(T0, s.plan_or_request())  # type: ignore[arg-type]
    out = s.start(T0)
    assert out.upserts == [("status", "in_progress"), ("phase", "opening")]
    assert out.types() == ["INTERVIEW_STARTED", "SECTION_STARTED", "PROMPT_PRESENTED"]
    assert out.wake and out.reschedule
    assert s.state.ends_at == at(360) and s.runtime().deadline == at(300)  # type: ignore[union-attr]
    assert s.next_question() == "Design a rate limiter for our public API."
    assert [e.event_id for e in s.log.events] == [1, 2, 3, 4, 5]


def test_without_a_plan_the_planner_is_asked_and_its_failure_falls_back_to_the_topic_plan():
    s = Session(InterviewInput(topic="Gardening at scale"), WID)
    request = s.plan_or_request()
    assert not isinstance(request, PlanSnapshot) and request.topic == "Gardening at scale"
    assert s.planner_fallback(request).sections


# ---------------------------------------------------------------------------------------- entries
def test_an_entry_is_numbered_attributed_and_logged_and_a_repeated_id_changes_nothing():
    s = started()
    assert [e.entry_id for e in s.state.transcript_tail] == ["question-5"]    # the engine's primary prompt
    accepted, duplicate, out = s.accept_entry(at(5), entry("e-1", "candidate", "A counter per key."))
    assert not duplicate and accepted.seq == 2 and accepted.speaker == "interviewee"
    assert accepted.section_id == "design" and not accepted.late and accepted.session_id == WID
    assert out.types() == ["CANDIDATE_MESSAGE"] and out.wake
    again, duplicate, out = s.accept_entry(at(6), entry("e-1", "candidate", "A counter per key."))
    assert duplicate and again.seq == 2 and out.events == [] and s.state.transcript_count == 2


def test_bad_entries_are_rejected_with_a_reason():
    s = started()
    with pytest.raises(EntryError, match="empty text"):
        s.check_entry(entry("e-1", "interviewee", "   "))
    with pytest.raises(EntryError, match="unknown speaker"):
        s.check_entry(entry("e-1", "narrator", "hello"))
    out = s.reject_entry(at(1), entry("e-1", "narrator", "hello"), EntryError("unknown speaker", code="unknown_speaker"))
    assert out.types() == ["ENTRY_REJECTED"] and s.state.transcript_count == 1     # (the engine's prompt)


def test_an_interviewer_closing_remark_ends_the_interview():
    s = started(mode="adaptive")
    s.accept_entry(at(10), entry("e-1", "interviewee", "I carried the pager for six years."))
    _, _, out = s.accept_entry(at(20), entry("e-2", "interviewer", "Thank you so much for your time today."))
    assert out.types() == ["INTERVIEWER_MESSAGE", "CLOSING_DETECTED", "SECTION_ENDED", "INTERVIEW_COMPLETED"]
    assert s.ended and s.state.exit_reason == "interviewer_closing" and out.upserts == [("status", "finalizing")]
    assert [i for i, _ in out.summaries] == [0]          # the interviewee spoke in the section: summarise it
    with pytest.raises(EntryError, match="has ended"):
        s.check_entry(entry("e-3", "interviewee", "one more thing"))


def test_an_interviewer_question_that_matches_the_plan_marks_it_asked():
    s = started(mode="adaptive")
    s.accept_entry(at(5), entry("e-1", "interviewer", "How did you end up carrying the pager?"))
    assert "q-origin" in s.state.asked_question_ids


# --------------------------------------------------------------------------------------- controls
def test_pause_and_resume_keep_the_section_and_report_the_pause():
    s = started()
    out = s.control(at(10), s.check_control(SessionControl(action="pause")))
    assert s.state.status == "PAUSED" and out.upserts == [("status", "paused")] and out.types() == ["SESSION_PAUSED"]
    assert out.events[0].actor == "client" and s.allowed_actions() == ["resume", "reconnect", "end"]
    assert s.control(at(11), "pause").types() == []                 # already paused: nothing happens
    out = s.control(at(40), "reconnect")
    assert out.types() == ["SESSION_RESUMED"] and out.events[0].payload["paused_seconds"] == 30.0
    assert s.state.status == "IN_PROGRESS" and s.current_section_id() == "design"


def test_disconnect_is_a_system_pause_and_unknown_actions_are_rejected():
    s = started()
    assert s.control(at(10), "disconnect").events[0].actor == "system"
    with pytest.raises(EntryError, match="unknown session control action"):
        s.check_control(SessionControl(action="explode"))


def test_end_by_the_client_completes_the_interview():
    s = started()
    out = s.control(at(30), "end")
    assert out.types() == ["SECTION_ENDED", "INTERVIEW_COMPLETED"]
    assert out.events[0].payload["reason"] == "interview_ended" and s.state.exit_reason == "ended_by_client"
    assert out.summaries == []                           # nobody spoke: no section summary
    with pytest.raises(EntryError, match="not possible any more"):
        s.check_control(SessionControl(action="pause"))


def test_end_while_planning_completes_without_sections():
    s = Session(InterviewInput(topic="Rate limiter"), WID)
    s.create(T0)
    out = s.control(at(1), "end")
    assert out.types() == ["INTERVIEW_COMPLETED"] and s.ended and s.state.exit_reason == "ended_by_client"


def test_candidate_done_early_gets_one_outline_prompt_then_ends_the_section():
    s = started()
    s.accept_entry(at(5), entry("e-1", "interviewee", "Not sure."))
    out = s.control(at(10), "candidate_done")
    assert out.types() == ["CANDIDATE_DONE_REQUESTED", "PROMPT_PRESENTED"]
    assert s.next_question() == decisions.MINIMUM_CONTENT_PROMPT and s.runtime().min_content_prompted  # type: ignore[union-attr]
    out = s.control(at(20), "candidate_done")
    # the sections left keep their durations: the interview now ends earlier, and says so
    assert out.types() == ["CANDIDATE_DONE_REQUESTED", "SECTION_ENDED", "SECTION_STARTED", "PROMPT_PRESENTED",
                           "SCHEDULE_CHANGED"]
    assert out.events[1].payload["minimum_content_met"] is False and s.current_section_id() == "wrap"
    assert s.state.sections[0].exit_reason == "candidate_done" and [i for i, _ in out.summaries] == [0]


def test_candidate_done_with_enough_words_ends_the_last_section_and_the_interview():
    s = started(min_content_words=3)
    s.control(at(10), "candidate_done")                  # design: nothing said yet, prompted
    s.control(at(11), "candidate_done")                  # design ends, wrap starts
    s.accept_entry(at(12), entry("e-1", "interviewee", "I would improve the docs."))
    out = s.control(at(13), "candidate_done")
    assert out.types()[-1] == "INTERVIEW_COMPLETED" and s.state.exit_reason == "candidate_done"


# ------------------------------------------------------------------------------------------ clock
def test_warnings_at_t_minus_2_and_30_seconds_then_the_deadline_starts_the_next_section_at_the_deadline():
    s = started()
    assert s.next_due(at(0)) == at(54)                   # deep_dive at 15 % of 6 minutes
    assert s.on_clock(at(54)).types() == ["PHASE_CHANGED"]
    assert s.next_due(at(54)) == at(180)                 # T-2:00 in a 5-minute section
    out = s.on_clock(at(180))
    assert out.types() == ["SECTION_TIME_WARNING"] and out.events[0].payload["seconds_left"] == 120
    assert s.next_due(at(180)) == at(270)
    assert s.on_clock(at(270)).events[0].payload["seconds_left"] == 30
    out = s.on_clock(at(301))                            # the timer fires a little late
    assert out.types() == ["SECTION_ENDED", "SECTION_STARTED", "PROMPT_PRESENTED"] and out.reschedule
    design, wrap = s.state.sections
    assert design.exit_reason == "time_expired" and design.ended_at == at(300) and wrap.started_at == at(300)
    assert wrap.deadline == at(360)
    assert s.next_due(at(301)) == at(306)                # wrap_up at 85 %
    assert s.on_clock(at(306)).types() == ["PHASE_CHANGED"]
    assert s.next_due(at(306)) == at(315)                # design's late grace over: its summary (late answers in)
    assert s.on_clock(at(315)).types() == []
    assert s.next_due(at(315)) == at(330)                # only T-0:30: a 1-minute section gets no T-2:00
    assert s.on_clock(at(330)).events[0].payload["seconds_left"] == 30


def test_phases_change_at_15_and_85_percent():
    s = started(mode="adaptive")
    assert s.next_due(at(0)) == at(126)
    out = s.on_clock(at(126))
    assert out.types()[0] == "PHASE_CHANGED" and ("phase", "deep_dive") in out.upserts and out.wake
    assert s.on_clock(at(714)).events[0].payload == {"from": "deep_dive", "to": "wrap_up"}


def test_the_clock_keeps_running_while_paused():
    s = started()
    s.control(at(10), "pause")
    assert s.on_clock(at(300)).types()[-3:-1] == ["SECTION_ENDED", "SECTION_STARTED"]


# ----------------------------------------------------------------------------- late answers (003 §5.2)
def test_attribute_late_gives_answers_within_the_grace_to_the_section_that_ran_out_of_time():
    s = started()
    s.on_clock(at(300))                                  # design ends by time at 300 s
    assert s.attribute_late(at(310)) == ("design", True)
    assert s.attribute_late(at(314.9)) == ("design", True)
    assert s.attribute_late(at(315)) == ("wrap", False)
    late, _, out = s.accept_entry(at(305), entry("e-1", "interviewee", "...and the latency budget."))
    assert late.section_id == "design" and late.late and out.events[0].payload["late"] is True
    assert out.events[0].section_id == "design" and "e-1" in s.state.sections[0].entry_ids


def test_sections_ended_otherwise_get_no_late_answers():
    s = started()
    s.control(at(10), "candidate_done")
    s.control(at(11), "candidate_done")                  # design ends by request, not by time
    assert s.attribute_late(at(12)) == ("wrap", False)


def test_time_up_waits_the_late_grace_then_completes_with_time_expired():
    s = started()
    s.on_clock(at(300))
    out = s.on_clock(at(360))                            # the end of the last section is the end
    assert [rt.exit_reason for rt in s.state.sections] == ["time_expired", "time_expired"]
    assert out.types()[-1] == "SECTION_ENDED" and not s.ended and s.state.grace_until == at(375)
    assert s.waiting_for() == "time is up: waiting 15 s for late answers"
    assert s.next_due(at(360)) == at(375)
    assert s.attribute_late(at(370)) == ("wrap", True)
    assert s.on_clock(at(374)).events == []
    out = s.on_clock(at(375))
    assert out.types() == ["INTERVIEW_COMPLETED"] and out.upserts == [("status", "finalizing")]
    assert s.ended and s.state.exit_reason == "time_expired" and s.attribute_late(at(376)) == ("wrap", False)


def test_sections_the_clock_never_reached_are_marked_not_reached():
    extra = SectionSnapshot(id="extra", title="Extra", duration_seconds=60, primary_prompt="Anything else?")
    s = started(secs=[*sections(), extra])
    s.on_clock(at(10))
    s.on_clock(at(420))                                  # the clock wakes only at the very end
    assert [rt.exit_reason for rt in s.state.sections] == ["time_expired", "time_expired", "not_reached"]
    # the grace ran from the deadline that passed (360 s) and is over too: all of it settled at once
    assert s.ended and s.state.exit_reason == "time_expired" and s.next_due(at(420)) is None
    old = started(secs=[*sections(), extra])
    old.patched = lambda patch_id: False                # histories recorded before the catch-up: one step a timer
    old.on_clock(at(10))
    old.on_clock(at(420))
    assert old.state.grace_until == at(375) and not old.ended


def test_without_a_late_grace_time_up_completes_at_once():
    s = started(late_grace_seconds=0)
    s.on_clock(at(300))
    assert s.on_clock(at(360)).types()[-2:] == ["SECTION_ENDED", "INTERVIEW_COMPLETED"]


# --------------------------------------------------------------------------------- coverage (003 §6)
def test_partial_coverage_asks_a_follow_up_from_the_pool_within_the_budget():
    s = started()
    s.accept_entry(at(5), entry("e-1", "interviewee", "A counter per key."))
    rt = s.runtime()
    assert rt is not None and len(s.answers_to_assess(s.new_entries())) == 1
    out = s.assess_coverage(at(8), rt, assessment(metrics="partially_covered"))
    assert out.types() == ["COVERAGE_UPDATED", "FOLLOWUP_PRESENTED"]
    assert out.events[1].payload["dimension"] == "failure_modes" and rt.followup_budget == 1
    assert s.next_question() == "What happens when the counter store is down?"
    assert rt.substate == "SECTION_FOLLOWUP_ACTIVE"


def test_full_coverage_ends_the_section_and_stale_assessments_are_ignored():
    s = started()
    rt = s.runtime()
    assert rt is not None
    out = s.assess_coverage(at(8), rt, assessment(metrics="covered", failure_modes="covered"))
    assert out.types() == ["COVERAGE_UPDATED", "SECTION_ENDED", "SECTION_STARTED", "PROMPT_PRESENTED",
                           "SCHEDULE_CHANGED"]
    assert rt.exit_reason == "coverage_satisfied"
    assert s.assess_coverage(at(9), rt, assessment(metrics="covered")).events == []   # that section is over


def test_a_spent_budget_ends_the_section_and_the_last_section_ends_the_interview():
    s = started()
    rt = s.runtime()
    assert rt is not None
    for i in range(3):                                   # an answer to each question the engine asked, assessed
        s.accept_entry(at(4.5 + i), entry(f"a-{i}", "interviewee", "It counts."))
        out = s.assess_coverage(at(5 + i), rt, assessment())
    assert rt.followup_budget == 0 and out.types()[0] == "SECTION_ENDED"
    assert rt.exit_reason == "followup_budget_exhausted"
    last = s.runtime()
    assert last is not None and last.id == "wrap"
    out = s.assess_coverage(at(8), last, assessment(reflection="covered"))
    assert out.types()[-1] == "INTERVIEW_COMPLETED" and s.state.exit_reason == "coverage_satisfied"


def test_the_interviewer_ai_failing_terminates_with_system_error():
    s = started()
    out = s.terminate(at(20), "system_error", "interviewer AI failed after one retry: boom")
    assert out.types()[0] == "SECTION_ENDED" and out.types()[-1] == "INTERVIEW_TERMINATED"
    assert out.upserts == [("status", "terminated")] and s.state.sections[0].exit_reason == "system_error"
    assert s.ended and s.error and s.state.exit_reason == "system_error"
    assert s.terminate(at(21), "system_error", "again").events == []


# ------------------------------------------------------------------------------- adaptive decisions
def test_a_waiting_question_is_kept_and_a_recent_decision_is_reused():
    s = started(mode="adaptive")
    go, _ = s.needs_decision(at(10), 0)
    assert go                                            # nothing decided yet
    out = s.present_decision(at(11), s.fallback_decision(), "fallback")
    assert out.types() == ["PROMPT_PRESENTED"] and s.state.decision.method == "fallback"  # type: ignore[union-attr]
    s.accept_entry(at(12), entry("e-1", "interviewer", "How did you end up carrying the pager?"))
    go, out = s.needs_decision(at(13), 1)
    assert not go and "waiting for an answer" in out.said[0]
    s.accept_entry(at(14), entry("e-2", "interviewee", "By accident."))
    go, out = s.needs_decision(at(20), 0)
    assert not go and "Reusing previous Orchestrator decision" in out.said[0]
    go, _ = s.needs_decision(at(60), 0)
    assert go                                            # older than 30 s


def test_agent_calls_are_logged_and_usage_is_summed():
    s = started(mode="adaptive")
    assert s.agent_called(at(1), "system", "interview_note_taker", "NoteTaker").types() == ["AI_REQUEST"]
    usage = LLMUsage(agent="interview_note_taker", model="offline/m", provider="offline", input_tokens=10, output_tokens=5)
    out = s.agent_answered(at(2), "system", "interview_note_taker", usage)
    assert out.types() == ["AI_RESPONSE"] and out.events[0].payload["input_tokens"] == 10
    assert s.state.usage.input_tokens == 10


# -------------------------------------------------------------------------------- continue-as-new
def test_the_whole_state_crosses_continue_as_new_as_one_model():
    s = started()
    s.accept_entry(at(5), entry("e-1", "interviewee", "A counter per key."))
    s.on_clock(at(180))
    carried = s.carry(run=1, archived_events=2, archived_lines=0)
    assert carried.continued == 1 and carried.event_seq == s.log.last_id
    assert carried.events_tail[0].event_id == 3 and carried.seen_entry_ids == ["e-1", "question-5"]
    inp = InterviewInput(topic="Rate limiter", mode="structured", sections=sections(), carried=carried)
    again = Session(InterviewInput.model_validate_json(inp.model_dump_json()), WID,
                    InterviewInput.model_validate_json(inp.model_dump_json()).carried)
    assert again.state.status == "IN_PROGRESS" and again.current_section_id() == "design"
    assert again.accept_entry(at(190), entry("e-1", "interviewee", "again"))[1]       # still a duplicate
    assert again.event(at(191), "system", "PHASE_CHANGED").events[0].event_id == s.log.last_id + 1
    assert again.next_due(at(191)) == at(270) and again.instructions == s.instructions


def test_a_state_carried_by_the_previous_code_still_loads():
    """The old CarriedState payload (its required fields only) is read by InterviewState."""
    old = {"plan": plan().model_dump(mode="json"), "started_at": T0.isoformat(), "ends_at": at(840).isoformat(),
           "status": "IN_PROGRESS", "phase": "opening", "sections": [{"id": "origins"}, {"id": "practice"}],
           "current_index": 0, "notes": {}, "research": [], "researched_at": {}, "asked_question_ids": [],
           "decision": None, "event_seq": 7, "events_tail": [], "event_segments": [], "transcript_tail": [],
           "transcript_segments": [], "transcript_count": 3, "seen_entry_ids": ["a", "b", "c"], "usage": {}}
    state = InterviewState.model_validate(old)
    s = Session(InterviewInput(topic="On-call", carried=state), WID, state)
    assert s.log.last_id == 7 and s.state.transcript_count == 3 and s.current_section_id() == "origins"
