"""Issue 35's defects, as the shortest sequences that show them (items 3 and 6): what a model writes was shown to
the interviewee whatever it was, and a follow-up put in force a question answered in the earlier session. Each test
also runs the engine as it was (its patch off, `old=True`) and asserts the defect there."""

from __future__ import annotations

from typing import Literal

import pytest

from models.interview.activities import SessionRecord
from models.interview.analysis import FollowUpAnalysis, FollowUpTopic
from models.interview.notes import NotesState
from models.interview.plan import DimensionSpec, PlanSnapshot, QuestionSnapshot, SectionSnapshot
from models.interview.workflow import InterviewInput
from rules.interview.question_text import is_askable
from rules.interview.session import Session
from tests.unit.interview.test_session import T0, WID, assessment, at, entry, plan
from tests.unit.interview.test_session_regressions import AFTER_FIX, BEFORE_FIX, adaptive, decide, patched_off

TIMER = "Where it started (140s left)"
DEBRIS = "Where it started (120s left) },\n[id]: 3, … { targetSectionID } …(no notes yet),\n{"
PLANNED = [q.text for x in plan().sections for q in x.questions]


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
@pytest.mark.parametrize("proposal", [TIMER, DEBRIS, "Ask the interviewee about the outage.",
                                      '{"next_question": {"text": "What happened?"}}'])
def test_an_orchestrator_proposal_that_is_not_a_question_gives_way_to_the_fallback(old, proposal):
    """The local model (issue 35): 3 of 5 "questions" shown were a section title with the prompt's timer, or the
    prompt's template. The no-blank rule passed them: they have words."""
    s = adaptive(old)
    decide(s, at(5), text=proposal)
    if old:
        assert s.next_question() == proposal                                       # the defect
        return
    assert s.next_question() == PLANNED[0] and s.state.decision is not None
    assert s.state.decision.method == "fallback" and s.state.decision.rejected_question_reason
    presented = [e for e in s.log.events if e.type in ("PROMPT_PRESENTED", "FOLLOWUP_PRESENTED")][-1]
    assert presented.payload["rejected_question_reason"] == s.state.decision.rejected_question_reason
    assert presented.payload["rejected_text"] == proposal[:120]


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_proposal_in_quotes_is_shown_without_them(old):
    s = adaptive(old)
    decide(s, at(5), text="“What did the worst night teach you?”")
    assert s.next_question() == ("“What did the worst night teach you?”" if old else "What did the worst night teach you?")
    assert s.state.decision is not None and s.state.decision.method == "orchestrator"


def test_a_question_in_another_language_is_shown():
    s = adaptive(AFTER_FIX)
    decide(s, at(5), text="¿Qué aprendiste de aquella noche?")
    assert s.next_question() == "¿Qué aprendiste de aquella noche?"


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_models_plan_keeps_only_its_questions(old):
    """A model's plan whose questions are its prompt's debris: they were the fallback's questions."""
    inp = InterviewInput(topic="What on-call taught me", duration_seconds=900)
    s = Session(inp, WID)
    if old:
        patched_off(s)
    s.create(T0)
    assert not isinstance(s.plan_or_request(), PlanSnapshot)
    s.set_plan(T0, PlanSnapshot(topic=inp.topic, research_goal="g", angle="a", sections=[
        SectionSnapshot(id="1", title="Where it started", questions=[
            QuestionSnapshot(id="a", text=TIMER), QuestionSnapshot(id="b", text="What made you stay?"),
            QuestionSnapshot(id="c", text="{ targetSectionID }")])]))
    s.start(T0)
    decide(s, at(5))                        # the fallback: the next plan question
    if old:
        assert s.next_question() == TIMER                                          # the defect
        return
    assert s.state.plan is not None and [q.text for q in s.state.plan.sections[0].questions] == ["What made you stay?"]
    assert s.next_question() == "What made you stay?"


# ------------------------------------------------------------------------------ follow-ups (issue 35 item 6)
ANSWERED = "What exactly happened with the double charge?"


def earlier_session() -> SessionRecord:
    """The earlier session: the double charge was asked and answered; its Follow-Up agent still suggested it."""
    return SessionRecord(workflow_id="interview-earlier", plan=plan(), notes=NotesState(), transcript=[
        entry("q-1", "interviewer", ANSWERED),
        entry("a-1", "interviewee", "A retry nobody had made idempotent charged four thousand customers twice."),
        entry("q-2", "interviewer", "Who found it first?")], follow_up=FollowUpAnalysis(
        summary="The double charge.", suggested_topics=[FollowUpTopic(
            title="The double charge", suggested_questions=[ANSWERED, "How did you make retries safe?"])]))


def follow_up(old: bool, mode: Literal["adaptive", "structured"] = "adaptive") -> Session:
    record = earlier_session()
    inp = InterviewInput(topic="On-call", mode=mode, previous_session_id=record.workflow_id,
                         follow_up_topic="The double charge", duration_seconds=360)
    s = Session(inp, WID)
    if old:
        patched_off(s)
    s.create(T0)
    s.load_previous(record)
    planned = s.plan_or_request(record)
    assert isinstance(planned, PlanSnapshot)
    s.set_plan(T0, planned)
    s.start(T0)
    return s


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_follow_up_never_puts_in_force_a_question_answered_in_the_earlier_session(old):
    """`continue --topic "<a suggested topic>"` put in force, word for word, a question the earlier session asked
    and got an answer to (the Follow-Up agent suggested it again)."""
    s = follow_up(old)
    decide(s, at(5))                        # the fallback: the plan's first question
    if old:
        assert s.next_question() == ANSWERED                                       # the defect
        return
    assert s.next_question() == "How did you make retries safe?"
    s.accept_entry(at(20), entry("a-2", "interviewee", "We added idempotency keys to every retry."))
    decide(s, at(60), text=ANSWERED.upper())   # the Orchestrator proposes it again: not asked either
    assert s.next_question() not in (ANSWERED, ANSWERED.upper())


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_structured_follow_up_does_not_open_with_the_answered_question(old):
    s = follow_up(old, mode="structured")
    if old:
        assert s.next_question() == ANSWERED                                       # the defect
        return
    assert s.next_question() == "How did you make retries safe?" and is_askable(s.next_question() or "")[0]


def test_a_question_asked_but_not_answered_in_the_earlier_session_may_be_asked():
    record = earlier_session()
    record.follow_up.suggested_topics[0].suggested_questions = ["Who found it first?"]  # type: ignore[union-attr]
    inp = InterviewInput(topic="On-call", previous_session_id=record.workflow_id, follow_up_topic="The double charge",
                         duration_seconds=360)
    s = Session(inp, WID)
    s.create(T0)
    s.load_previous(record)
    s.set_plan(T0, s.plan_or_request(record))  # type: ignore[arg-type]
    s.start(T0)
    decide(s, at(5))
    assert s.next_question() == "Who found it first?"


def test_a_follow_up_whose_every_question_was_answered_gets_the_topics_plan_without_them():
    record = earlier_session()
    record.follow_up.suggested_topics[0].suggested_questions = [ANSWERED]  # type: ignore[union-attr]
    inp = InterviewInput(topic="On-call", previous_session_id=record.workflow_id, follow_up_topic="The double charge",
                         duration_seconds=360)
    s = Session(inp, WID)
    s.create(T0)
    s.load_previous(record)
    s.set_plan(T0, s.plan_or_request(record))  # type: ignore[arg-type]
    s.start(T0)
    assert s.state.plan is not None
    texts = [q.text for x in s.state.plan.sections for q in x.questions]
    assert texts and ANSWERED not in texts


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_structured_follow_up_whose_only_suggestion_was_answered_asks_a_question(old):
    """Found by the generated scenarios (shown-text-is-a-question): with its one suggested question left out, the
    follow-up's section opened with its goal, "Go deeper on The double charge", which asks nothing."""
    record = earlier_session()
    record.follow_up.suggested_topics[0].suggested_questions = [ANSWERED]  # type: ignore[union-attr]
    inp = InterviewInput(topic="On-call", mode="structured", previous_session_id=record.workflow_id,
                         follow_up_topic="The double charge", duration_seconds=360)
    s = Session(inp, WID)
    if old:
        patched_off(s)
    s.create(T0)
    s.load_previous(record)
    s.set_plan(T0, s.plan_or_request(record))  # type: ignore[arg-type]
    s.start(T0)
    if old:
        assert s.next_question() == ANSWERED                                       # the defect
        return
    shown = s.next_question() or ""
    assert is_askable(shown)[0] and shown != ANSWERED


@pytest.mark.parametrize("old", [AFTER_FIX, BEFORE_FIX])
def test_a_dimensions_default_follow_up_names_it_in_words(old):
    """Found by the generated whole interviews (shown-text-is-a-question): a schema's dimension with no follow-up
    pool got the default follow-up, which showed its name as is: "Could you say more about failure_modes?"."""
    section = SectionSnapshot(id="design", title="System design", goal="Design a rate limiter", duration_seconds=300,
                              followup_cap=2, primary_prompt="Design a rate limiter for our public API.",
                              required_dimensions=[DimensionSpec(name="metrics", keywords=["latency"]),
                                                   DimensionSpec(name="failure_modes", keywords=["outage"])],
                              followup_pool={"metrics": ["How would you measure whether it works?"]})
    s = Session(InterviewInput(topic="Rate limiter", mode="structured", sections=[section]), WID)
    if old:
        patched_off(s)
    s.create(T0)
    s.set_plan(T0, s.plan_or_request())  # type: ignore[arg-type]
    s.start(T0)
    s.accept_entry(at(10), entry("a-1", "interviewee", "Latency is what we watch, at the p99."))
    rt = s.runtime()
    assert rt is not None
    s.assess_coverage(at(11), rt, assessment(metrics="covered", failure_modes="not_covered"))
    if old:
        assert s.next_question() == "Could you say more about failure_modes?"       # the defect
        return
    assert s.next_question() == "Could you say more about failure modes?" and is_askable(s.next_question() or "")[0]
