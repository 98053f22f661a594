"""What a weak or confused model writes where a question is expected (issue 35), for the generated scenarios:
random text, JSON fragments, its prompt echoed (the real prompt's lines, rendered from the session), instructions
to the interviewer, questions and statements in other languages and scripts, repeats, and questions an earlier
session of the interview already asked and got answered."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from models.interview.analysis import FollowUpAnalysis, FollowUpTopic
from models.interview.notes import NotesState
from models.interview.plan import PlanSnapshot, QuestionSnapshot, SectionSnapshot
from rules.interview.coverage import plan_coverage_text
from rules.interview.notes import summary_text

#: Questions in other languages and scripts: the engine shows them (the person may speak any language).
QUESTIONS_ELSEWHERE = ["¿Qué aprendiste de aquella noche?", "Что ты понял после той ночи?", "那天晚上你学到了什么？",
                       "その夜、何を学びましたか", "그날 밤 무엇을 배웠나요?", "ماذا تعلمت من تلك الليلة؟",
                       "Τι έμαθες εκείνο το βράδυ;", "Was hast du aus dieser Nacht gelernt?", "आपने उस रात क्या सीखा?"]
#: Statements in other languages and scripts: they ask nothing.
STATEMENTS_ELSEWHERE = ["Die Nacht war lang.", "那天晚上很长。", "その夜は長かった。", "La noche fue larga.",
                        "Ночь была длинной.", "كانت الليلة طويلة."]
INSTRUCTIONS = ["Ask the interviewee about the outage.", "Probe for a concrete example, then listen.",
                "Follow up on the double charge?", "Interviewer: What happened next?",
                "## Next Question to Ask\nWhat happened next?", "- What happened?\n- Why?"]
JSON_FRAGMENTS = ['{"next_question": {"text": "What happened?", "target_section_id": "s0"}}',
                  '"text": "What happened?",', '},\n[id]: 3, … { targetSectionID } …(no notes yet),\n{',
                  "```json\n{\"phase\": \"opening\"}\n```", "[P1] What happened?", "source_question_id: q0-0",
                  "{{ section_title }}", "null", "[]"]


def prompt_echoes(plan: PlanSnapshot | None, notes: NotesState, remaining: int) -> list[str]:
    """Lines of the Orchestrator's own prompt, as rendered for this session (what a small model copies back)."""
    out = ["You are the Orchestrator of a live interview. Decide the single next question and how to ask it.",
           "Timing: 30s elapsed of 600s (5% done) — phase opening", summary_text(notes), "(none)",
           "Answer with one JSON object matching the OrchestratorDecision schema"]
    if plan is not None:
        out += [f"{x.title} ({remaining}s left)" for x in plan.sections]
        out += [f"Current section: {x.title}" for x in plan.sections]
        out += plan_coverage_text(plan, set()).splitlines()[:6]
    return out


def hostile(plan: PlanSnapshot | None, notes: NotesState, remaining: int,
            asked_before: list[str]) -> st.SearchStrategy[str]:
    """One hostile model output where a question is expected."""
    return st.one_of(
        st.text(max_size=80),
        st.sampled_from(JSON_FRAGMENTS),
        st.sampled_from(prompt_echoes(plan, notes, remaining)),
        st.sampled_from(INSTRUCTIONS),
        st.sampled_from(QUESTIONS_ELSEWHERE + STATEMENTS_ELSEWHERE),
        st.sampled_from(asked_before or ["(none)"]),
        st.builds(json.dumps, st.fixed_dictionaries({"text": st.sampled_from(QUESTIONS_ELSEWHERE)})),
        st.sampled_from(["\"What did the worst night teach you?\"", "  What did the worst night teach you?\n",
                         "Why " * 120 + "?"]),
    )


#: Questions of the earlier session (some also in the generated plans, some suggested again by its Follow-Up agent).
EARLIER = ["Question 0 about part 0?", "Question 1 about part 0?", "How would you measure part 0?",
           "What exactly happened with the double charge?", "How did you make retries safe?",
           "Is there anything else you'd like to add that we haven't covered?"]


def model_plan(texts: list[list[str]]) -> PlanSnapshot:
    """A model's plan: one section per list of question texts."""
    return PlanSnapshot(topic="Generated", research_goal="g", angle="a", sections=[
        SectionSnapshot(id=f"m{i}", title=f"Where it started ({40 * i}s left)" if i % 2 else f"Part {i}",
                        questions=[QuestionSnapshot(id=f"m{i}-{j}", text=t) for j, t in enumerate(qs)])
        for i, qs in enumerate(texts)])


def follow_up(suggested: list[str]) -> FollowUpAnalysis:
    return FollowUpAnalysis(summary="The earlier session.", suggested_topics=[
        FollowUpTopic(title="Deeper", suggested_questions=suggested)])
