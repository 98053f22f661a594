"""rules/interview/question_text.py: what may be put in front of the interviewee as a question (issue 35)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.interview import decisions
from rules.interview.plan import LAST_RESORT_QUESTION, default_plan
from rules.interview.question_text import MAX_QUESTION_CHARS, askable_text, is_askable, repaired

ASKABLE = [
    "What did the worst night teach you?",
    "  What did the worst night teach you?\n",
    "“How did you make retries safe?”",
    "You said \"it broke\": why?",
    "Tell me about a specific moment that shaped how you see on-call.",
    "Please provide a brief outline so we can proceed.",
    "¿Qué aprendiste de aquella noche?",
    "Что ты понял после той ночи?",
    "那天晚上你学到了什么？",
    "その夜、何を学びましたか",
    "그날 밤 무엇을 배웠나요",
    "ماذا تعلمت من تلك الليلة؟",
    "Τι έμαθες εκείνο το βράδυ;",
    "Was hast du aus dieser Nacht gelernt?",
    "आपने उस रात क्या सीखा?",
    # words a prompt also uses, in a real question (a technical interview asks about these)
    "How do you handle a P1 incident at night?",
    "Why did you choose JSON over protobuf?",
    "How did you design the database schema?",
    "Why did you switch the build machines to macOS?",
    "What changed for on-call teams in the 1990s (or 2000s)?",
    "How did it feel with 30 seconds left on the clock?",
    "You previously discussed the outage; what changed since?",
    "What did your iPhone tell you at 3am?",
    decisions.GENERIC_CLOSING_QUESTION,
    decisions.MINIMUM_CONTENT_PROMPT,
    LAST_RESORT_QUESTION,
]

NOT_ASKABLE = {
    # issue 35, the local model's "questions"
    "Where it started (140s left)": "timer",
    "Where it started (120s left) },\n[id]: 3, … { targetSectionID } …(no notes yet),\n{": "braces",
    "Where it started": "does not ask",
    # JSON and template fragments
    '{"text": "What happened?", "target_section_id": "s1"}': "braces",
    '"text": "What happened?"': "JSON",
    "{{ section_title }}?": "braces",
    "[id: q1] What happened?": "brackets",
    "What happened? source_question_id": "field name",
    "What happened in targetSectionID?": "field name",
    # prompts echoed
    "○ NOT ASKED What is at stake?": "prompt echoed",
    "You are the Orchestrator of a live interview. Decide the single next question?": "prompt echoed",
    "Current section: Where it started?": "label",
    "Timing: 30s elapsed of 600s (5% done) — phase opening?": "timer",
    "Plan coverage:\n### s1: Origins?": "label",
    "(no notes yet)": "prompt echoed",
    # labels, markdown, instructions
    "Interviewer: What happened next?": "label",
    "## Next Question to Ask\nWhat happened?": "markdown",
    "- What happened?\n- Why?": "markdown",
    "Ask the interviewee about the outage.": "instruction",
    "Probe for a concrete example.": "instruction",
    "What did the interviewee mean by that?": "instruction",
    # not a question, too long, no words
    "The settlement batch failed at three in the morning.": "does not ask",
    "?": "no words",
    "   ": "no words",
    "Why " * 200 + "?": "longer",
}


@pytest.mark.parametrize("text", ASKABLE)
def test_questions_in_any_language_are_askable(text):
    ok, why = is_askable(text)
    assert ok, why
    assert askable_text(text) == repaired(text) and askable_text(text) == askable_text(text).strip()


@pytest.mark.parametrize("text", list(NOT_ASKABLE))
def test_debris_instructions_and_statements_are_not(text):
    ok, why = is_askable(text)
    assert not ok and why and askable_text(text) is None


def test_the_closing_line_thanks_rather_than_asks_but_is_checked_for_debris():
    assert is_askable("Thank you so much for your time today.", closing=True)[0]
    assert not is_askable("Thank you so much for your time today.")[0]
    assert not is_askable("Thank you for your time (30s left)", closing=True)[0]


def test_a_language_narrows_the_forms_without_a_question_mark_only():
    assert is_askable("その夜、何を学びましたか", language="ja")[0]
    assert not is_askable("Tell me about it.", language="ja")[0]
    assert is_askable("Что ты понял?", language="en")[0]      # a question mark asks in any language


@pytest.mark.parametrize("mode", ["adaptive", "structured"])
def test_every_text_of_the_topics_plan_is_askable(mode):
    for topic in ("What on-call taught me", "Why did I leave Google?", "東京での生活"):
        p = default_plan(topic, "", mode, 900)
        texts = [q.text for x in p.sections for q in x.questions]
        texts += [t for x in p.sections for pool in x.followup_pool.values() for t in pool]
        texts += [x.primary_prompt for x in p.sections if x.primary_prompt]
        assert all(is_askable(t)[0] for t in texts), [(t, is_askable(t)) for t in texts if not is_askable(t)[0]]


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=MAX_QUESTION_CHARS + 50))
def test_whatever_is_accepted_is_bounded_has_words_and_no_template_residue(text):
    ok, why = is_askable(text)
    assert ok or why
    if ok:
        shown = repaired(text)
        assert len(shown) <= MAX_QUESTION_CHARS and any(c.isalpha() for c in shown)
        assert not set(shown) & set("{}[]") and "s left)" not in shown
