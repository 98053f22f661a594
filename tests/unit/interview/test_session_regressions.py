"""Named regressions: each defect found in trials (issue "the interview engine tells the truth") or by the generated
scenarios (test_session_machine.py), as the shortest sequence that showed it. Each test also runs the engine as it
was (its patch off, `old=True`) and asserts the defect there — so it is known to fail on the code before the fix."""

from __future__ import annotations

from datetime import timedelta

import pytest

from models.common import ArtifactRef
from models.interview.entries import TranscriptEntry
from models.interview.notes import NextQuestion, OrchestratorDecision
from models.interview.plan import DimensionSpec, PlanSnapshot, QuestionSnapshot, SectionSnapshot
from models.interview.workflow import InterviewInput, InterviewState
from rules.interview import decisions
from rules.interview.session import Session
from tests.unit.interview.test_session import T0, WID, assessment, at, entry, plan, started
from tests.unit.interview.test_session import shown as show

AFTER_FIX, BEFORE_FIX = False, True


def patched_off(s: Session) -> Session:
    s.patched = lambda _patch_id: False
    s.state.engine_asks = False          # (asked at the start: the engine from before, whose clients echoed)
    return s


def adaptive(old: bool, **fields) -> Session:
    s = started(mode="adaptive", **fields)
    return patched_off(s) if old else s


def decide(s: Session, now, text: str | None = None) -> bool:
    """One live cycle: the Orchestrator (its answer `text`, else the fallback) if the engine asks for one."""
    go, _ = s.needs_decision(now, len(s.new_entries()), cycle_at=now)
    s.state.processed_seq = s.state.transcript_count
    if go:
        d = s.fallback_decision() if text is None else OrchestratorDecision(
            phase="deep_dive", next_question=NextQuestion(text=text, source="gap"), interviewer_brief="Ask.")
        s.present_decision(now, d, "orchestrator")
    return go


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_waiting_question_is_not_swapped_at_a_phase_change(old):
    """A question on the person's screen stayed only while phase and section were unchanged: the opening → deep-dive
    change (15 % of 14 min = 126 s) swapped it, 3 s after it appeared, and the new one was counted as asked too."""
    s = adaptive(old)
    decide(s, at(120))
    shown = s.next_question()
    show(s, at(121), "q1")                                               # the room shows it
    s.on_clock(at(126))                                                  # deep_dive
    swapped = decide(s, at(126))
    if old:
        assert swapped and s.next_question() != shown                    # the defect
        return
    assert not swapped and s.next_question() == shown and s.state.asked_question_ids == ["q-origin"]


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_waiting_question_survives_continue_as_new(old):
    s = adaptive(old)
    decide(s, at(10))
    show(s, at(11), "q1")
    carried = InterviewState.model_validate_json(s.carry(1, 0, 0).model_dump_json())
    inp = s.inp.model_copy(update={"carried": carried, "plan": None})
    again = Session(inp, WID, inp.carried)
    if old:
        patched_off(again)
    swapped = decide(again, at(12))
    assert swapped is old


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_one_answer_then_silence_counts_only_questions_that_were_asked(old):
    """2-minute adaptive interview, one answer, then silence, every question shown recorded by the client: before,
    the question changed at every phase and section change and each was counted as asked."""
    p = PlanSnapshot(topic="t", research_goal="g", angle="a", sections=[
        SectionSnapshot(id=f"s{i}", title=f"S{i}", questions=[
            {"id": f"q{i}{j}", "text": f"Question {j} of section {i}?", "priority": 1} for j in range(3)])
        for i in range(3)])
    s = Session(InterviewInput(topic="t", plan=p, duration_seconds=120), WID)
    if old:
        patched_off(s)
    s.create(T0)
    s.set_plan(T0, p)
    s.start(T0)
    now, n = T0, 0
    while not s.ended and now < T0 + timedelta(seconds=160):
        shown = s.next_question()
        if s.runtime() is not None:             # the live loop cycles only while a section runs
            decide(s, now)
        if s.next_question() != shown and s.next_question():
            n += 1
            show(s, now, f"q{n}")
            if n == 1:
                s.accept_entry(now + timedelta(seconds=2), entry("a1", "interviewee", "We started small."))
        now += timedelta(seconds=3)
        s.on_clock(now)
    asked = len(s.state.asked_question_ids)
    if old:
        assert asked > 4                                                 # the defect: counted without being asked
        return
    assert asked == 4      # the answered one, the one then asked (section 0 ended), one per later section
    assert s.ended and s.state.exit_reason == "time_expired"


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_an_answered_question_is_never_presented_again_and_nothing_left_ends_the_interview(old):
    """A follow-up session on the offline double got the same closing question 127 times: the model proposed it
    again after every answer. Now: an answered question is replaced by the next unasked plan question, and when the
    closing invitation itself was answered the interview ends (coverage_satisfied)."""
    s = adaptive(old)
    closing = decisions.GENERIC_CLOSING_QUESTION
    presented = []
    for i in range(6):
        decide(s, at(10 + 10 * i), closing)
        if s.ended:
            break
        presented.append(s.next_question())
        show(s, at(11 + 10 * i), f"q{i}")
        s.accept_entry(at(12 + 10 * i), entry(f"a{i}", "interviewee", "Nothing more, really."))
    if old:
        assert presented.count(closing) == 6                             # the defect
        return
    assert presented == [closing, "How did you end up carrying the pager?", "How do you measure a healthy rotation?"]
    assert s.ended and s.state.exit_reason == "coverage_satisfied"


def test_a_proposal_that_arrives_after_a_skip_does_not_replace_the_prompt_the_person_sees():
    """Found by the generated scenarios: a cycle asked the Orchestrator; meanwhile the person pressed 'I'm done'
    (the engine's outline prompt went on screen and was shown); the Orchestrator's late answer replaced it."""
    s = adaptive(False)
    go, _ = s.needs_decision(at(5), 0, cycle_at=at(5))
    assert go
    s.control(at(6), "candidate_done")
    prompt = s.next_question()
    assert prompt == decisions.MINIMUM_CONTENT_PROMPT
    show(s, at(7), "q1")
    s.present_decision(at(8), s.fallback_decision(), "orchestrator")
    assert s.next_question() == prompt


def structured_without_followups(old: bool) -> Session:
    sec = SectionSnapshot(id="design", title="Design", goal="Design it", duration_seconds=300, followup_cap=5,
                          primary_prompt="Design a rate limiter.",
                          required_dimensions=[DimensionSpec(name="metrics"), DimensionSpec(name="limits")],
                          followup_pool={"metrics": ["How would you measure it?"]})
    s = started(secs=[sec])
    return patched_off(s) if old else s


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_structured_section_ends_when_its_followups_run_out(old):
    """Budget left but no follow-up for what is still open: before, nothing happened until the deadline (and
    `rehearse` asked the last follow-up again and again)."""
    s = structured_without_followups(old)
    rt = s.runtime()
    shown = []
    for i in range(4):
        s.accept_entry(at(5 + 10 * i), entry(f"a{i}", "interviewee", "A token bucket per key."))
        s.assess_coverage(at(6 + 10 * i), rt, assessment(metrics="partially_covered", limits="not_covered"))
        shown.append(s.next_question())
    assert shown[:2] == ["Could you say more about limits?", "How would you measure it?"]
    if old:
        assert rt.exit_reason is None and rt.followup_budget == 3 and shown[3] == shown[1]   # idle till 300 s
        return
    assert rt.exit_reason == "followups_exhausted" and s.ended


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_state_carried_after_the_end_only_finishes(old):
    """The end arrived while the run continued as new (long entries): the next run held status FINALIZING but was not
    'ended', and its clock armed a 1 ms timer for a past deadline every time it looked, for ever."""
    s = adaptive(False)
    s.control(at(30), "end")
    carried = InterviewState.model_validate_json(s.carry(1, 0, 0).model_dump_json())
    inp = s.inp.model_copy(update={"carried": carried, "plan": None})
    again = Session(inp, WID, inp.carried)
    if old:
        assert again.next_due(at(40)) is None          # (next_due no longer offers a past moment: unguarded fix)
        assert not again.ended                          # the old run went on as if live
        return
    assert again.finished_before_this_run() and again.ended and not again.accepting
    assert again.next_due(at(40)) is None and again.next_question() is None


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_late_timer_settles_everything_due(old):
    """A timer that fires long after its moment (a busy or restarted worker) ends every section that ran out and the
    interview: before, one section per timer, each next timer armed for a moment already past."""
    s = started()                                          # 300 s + 60 s structured sections, 15 s grace
    if old:
        patched_off(s)
    s.on_clock(at(1000))
    due = s.next_due(at(1000))
    if old:
        assert due is not None and due <= at(1000)
        return
    assert s.ended and due is None and [rt.exit_reason for rt in s.state.sections] == ["time_expired"] * 2


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_late_answers_of_the_last_section_reach_its_summary(old):
    s = started()
    if old:
        patched_off(s)
    s.on_clock(at(300))
    s.accept_entry(at(320), entry("a1", "interviewee", "Buckets refill every second."))   # wrap section
    out = s.on_clock(at(360))                                                            # time up: grace starts
    late = s.accept_entry(at(365), entry("a2", "interviewee", "And I would add jitter."))[0]
    assert late.late and late.section_id == "wrap"
    out2 = s.on_clock(at(375))
    summaries = [x for _, x in out.summaries + out2.summaries if x.section_id == "wrap"]
    ids = [e.entry_id for e in summaries[0].entries]
    if old:
        assert "a2" not in ids                                                           # the defect
        return
    assert ids[-1] == "a2" and s.ended


def test_a_summary_after_continue_as_new_points_at_the_archived_entries():
    """Found by the generated scenarios: continue-as-new archived the section's first answers, and its summary was
    written from what the new run held."""
    s = adaptive(False)
    s.accept_entry(at(5), entry("a1", "interviewee", "First answer."))
    s.accept_entry(at(6), entry("q1", "interviewer", "And then?"))
    s.archive_transcript(1)
    ref = ArtifactRef(uri="file:///x", name="transcript-part-001.jsonl", sha256="0" * 64, size_bytes=1)
    s.state.transcript_segments.append(ref)
    out = s.control(at(9), "end")
    (summary,) = [x for _, x in out.summaries]
    assert summary.archived == [ref] and [e.entry_id for e in summary.entries] == ["q1"]


def test_the_summary_activity_reads_the_archived_entries_of_its_section(tmp_path, monkeypatch):
    from activities.artifacts import store
    from activities.interview.section_summary import section_entries
    from models.interview.activities import SectionSummaryInput

    monkeypatch.setenv("COLLOQUY_DATA_DIR", str(tmp_path))
    older = [TranscriptEntry(entry_id=f"a{i}", speaker="interviewee", text=f"answer {i}", section_id=sid)
             for i, sid in enumerate(["origins", "practice", "origins"])]
    ref = store().put(WID, "transcript-part-001.jsonl", "".join(e.model_dump_json() + "\n" for e in older),
                      "application/jsonl")
    inp = SectionSummaryInput(section_id="origins", title="Origins", archived=[ref],
                              entries=[TranscriptEntry(entry_id="a3", speaker="interviewee", text="now",
                                                       section_id="origins")])
    assert [e.entry_id for e in section_entries(inp)] == ["a0", "a2", "a3"]


def test_plan_fixture_is_the_adaptive_plan():
    assert [q.id for x in plan().sections for q in x.questions] == ["q-origin", "q-measure"]


def test_a_late_assessment_does_not_replace_the_outline_prompt_after_a_skip():
    """Found by the generated scenarios (structured twin of the adaptive race above): the interviewer AI's
    assessment landed after 'I'm done' had put the outline prompt on screen, and its follow-up replaced it."""
    s = structured_without_followups(False)
    rt = s.runtime()
    s.accept_entry(at(5), entry("a1", "interviewee", "latency"))
    s.control(at(6), "candidate_done")                        # the assessment of a1 is under way meanwhile
    prompt = s.next_question()
    show(s, at(7), "q1")
    s.assess_coverage(at(8), rt, assessment(metrics="not_covered", limits="not_covered"))
    assert s.next_question() == prompt == decisions.MINIMUM_CONTENT_PROMPT and rt.followup_budget == 5


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_an_end_delivered_with_the_start_is_logged_after_the_creation_and_stays_ended(old):
    """Found by the generated scenarios under load: `end` delivered in the workflow's first task runs before the
    run itself; the run then logged INTERVIEW_CREATED after INTERVIEW_COMPLETED and set the status back to
    PLANNING."""
    s = Session(InterviewInput(topic="t", plan=plan()), WID)
    if old:
        patched_off(s)
    s.control(T0, "end")
    s.create(T0)
    types = [e.type for e in s.log.events]
    if old:
        assert s.state.status == "PLANNING" and types.count("INTERVIEW_CREATED") == 2   # the defect
        return
    assert types == ["INTERVIEW_CREATED", "INTERVIEW_COMPLETED"] and s.state.status == "FINALIZING" and s.ended


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_model_plans_section_times_are_shares_of_the_duration_asked_for(old):
    """Found by the real-model pipeline test (SmolLM2 over llama.cpp's server): the Planner gave its sections 10 s and
    5 s for a 15-minute interview, and the interview ended (time_expired) before the first answer."""
    inp = InterviewInput(topic="What on-call taught me", duration_seconds=900)
    s = Session(inp, WID)
    if old:
        patched_off(s)
    s.create(T0)
    request = s.plan_or_request()
    assert not isinstance(request, PlanSnapshot)                  # the Planner is asked
    planned = PlanSnapshot(topic=inp.topic, research_goal="g", angle="a", sections=[
        SectionSnapshot(id="a", title="A", duration_seconds=10, questions=[QuestionSnapshot(id="qa", text="A?")]),
        SectionSnapshot(id="b", title="B", duration_seconds=5, questions=[QuestionSnapshot(id="qb", text="B?")])])
    s.set_plan(T0, planned)
    s.start(T0)
    if old:
        assert s.state.ends_at == T0 + timedelta(seconds=15)     # the defect
        return
    assert s.state.ends_at == T0 + timedelta(seconds=900)
    assert [rt.duration_seconds for rt in s.state.sections] == [600, 300]


def test_fit_durations_adds_up_to_the_total():
    from hypothesis import given
    from hypothesis import strategies as st

    from rules.interview.timing import fit_durations

    @given(st.lists(st.integers(0, 10_000), min_size=1, max_size=12), st.integers(60, 24 * 3600))
    def check(durations, total):
        out = fit_durations(durations, total)
        assert sum(out) == total and all(d >= 1 for d in out) and len(out) == len(durations)

    check()


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_blank_orchestrator_question_gives_way_to_the_fallback(old):
    """Found by the real-model pipeline test through llama.cpp's server (SmolLM2): the Orchestrator's next question
    was "", the engine put it in force and recorded it, and the rehearsing client waited for a question for 15 min."""
    s = adaptive(old)
    decide(s, at(5), text=" \n")
    if old:
        assert s.next_question() is not None and not s.next_question().strip()      # the defect
        return
    assert s.state.plan is not None and s.next_question() in [q.text for x in s.state.plan.sections for q in x.questions]
    assert s.state.decision is not None and s.state.decision.method == "fallback"


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_blank_primary_prompt_is_never_presented(old):
    """Found by the generated scenarios (no-blank-question): a structured section whose primary prompt is a space
    presented it as the section's first question."""
    section = SectionSnapshot(id="s0", title="Part 0", goal="Goal 0", primary_prompt=" ", followup_cap=1,
                              questions=[QuestionSnapshot(id="q0", text="")])
    inp = InterviewInput(topic="Generated", mode="structured", duration_seconds=60, plan=PlanSnapshot(
        topic="Generated", research_goal="g", angle="a", sections=[section]))
    s = Session(inp, WID)
    if old:
        patched_off(s)
    s.create(T0)
    planned = s.plan_or_request()
    assert isinstance(planned, PlanSnapshot)
    s.set_plan(T0, planned)
    s.start(T0)
    if old:
        assert not (s.next_question() or "").strip()                                 # the defect
        return
    assert s.next_question() == "Goal 0" and s.state.plan is not None and s.state.plan.sections[0].questions == []


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_model_plan_without_a_question_gets_the_topics_plan(old):
    """SmolLM2's plan over llama.cpp's server: one section, no question. Every fallback was then the generic
    closing invitation, asked first."""
    inp = InterviewInput(topic="What on-call taught me", duration_seconds=900)
    s = Session(inp, WID)
    if old:
        patched_off(s)
    s.create(T0)
    assert not isinstance(s.plan_or_request(), PlanSnapshot)
    s.set_plan(T0, PlanSnapshot(topic=inp.topic, research_goal="g", angle="a",
                                sections=[SectionSnapshot(id="1", title="Why I work in a hospital.")]))
    s.start(T0)
    if old:
        assert s.fallback_decision().next_question.text == decisions.GENERIC_CLOSING_QUESTION   # the defect
        return
    assert s.fallback_decision().next_question.text != decisions.GENERIC_CLOSING_QUESTION
    assert s.state.plan is not None and sum(len(x.questions) for x in s.state.plan.sections) >= 3


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_an_answer_after_the_time_ran_out_belongs_to_the_last_section_that_ran(old):
    """Found by the generated scenarios once they drew the topic's plan (4 sections) for a 1-minute interview:
    the clock fired late, at the end, so the time ran out in the third section and the fourth was never reached;
    an answer in the late grace was filed under that fourth section, and no summary ever read it
    (summaries-see-every-answer)."""
    inp = InterviewInput(topic="Generated", duration_seconds=60, late_grace_seconds=15.0)
    s = Session(inp, WID)
    if old:
        patched_off(s)
    s.create(T0)
    assert not isinstance(s.plan_or_request(), PlanSnapshot)
    s.set_plan(T0, PlanSnapshot(topic=inp.topic, research_goal="g", angle="a", sections=[]))   # the topic's plan
    s.start(T0)
    s.on_clock(at(30))
    s.on_clock(at(60))                                   # late: the rest of the time at once
    assert [rt.exit_reason for rt in s.state.sections][-1] == "not_reached"
    recorded, _, _ = s.accept_entry(at(60), entry("a-1", "interviewee", "It was the pager, every night."))
    if old:
        assert recorded.section_id == "reflection" and not recorded.late                 # the defect
        return
    assert recorded.section_id == "tensions" and recorded.late
    summaries = s.control(at(61), "end").summaries
    assert "tensions" in [x.section_id for _, x in summaries]
