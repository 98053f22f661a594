"""The interviewer's closing question in the participant's language (issue 37): the fallback question after every
planned question was English for every participant; now it follows the plan's language, which the study's
Translator sets, and its texts are the pages' catalogs' translations."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from activities.study import translate
from client.web.i18n import CATALOGS, CLOSING_QUESTION, page_translations
from models.common import LLMUsage
from models.interview.plan import PlanSnapshot, QuestionSnapshot, SectionSnapshot
from models.study.activities import TranslatePlanInput
from rules.interview.closing import CLOSING_QUESTIONS, ENGLISH, closing_question
from rules.interview.decisions import GENERIC_CLOSING_QUESTION, fallback_decision


def plan(language: str | None = None) -> PlanSnapshot:
    return PlanSnapshot(topic="t", research_goal="g", angle="a", language=language, sections=[
        SectionSnapshot(id="s1", title="Opening", questions=[QuestionSnapshot(id="q1", text="Wie fing es an?")])])


def test_the_closing_question_is_asked_in_the_plans_language():
    asked = {"q1"}
    assert fallback_decision(plan("ja"), asked, "wrap_up").next_question.text == CLOSING_QUESTIONS["ja"]
    assert fallback_decision(plan("ar"), asked, "wrap_up").next_question.text == CLOSING_QUESTIONS["ar"]
    assert fallback_decision(plan("pt-BR"), asked, "wrap_up").next_question.text == CLOSING_QUESTIONS["pt"]
    # a plan from before (no language) and a language without a text: English, as recorded histories expect
    assert fallback_decision(plan(None), asked, "wrap_up").next_question.text == GENERIC_CLOSING_QUESTION == ENGLISH
    assert fallback_decision(plan("ko"), asked, "wrap_up").next_question.text == ENGLISH


def test_the_engines_texts_are_the_catalogs():
    assert CLOSING_QUESTION == ENGLISH
    assert set(CLOSING_QUESTIONS) == {"en", *CATALOGS}
    for lang in CATALOGS:
        assert CLOSING_QUESTIONS[lang] == page_translations(lang).gettext(CLOSING_QUESTION) != ENGLISH, lang


@given(st.one_of(st.none(), st.sampled_from([*CLOSING_QUESTIONS, "pt-BR", "zh-Hans", "ar-EG", "ko", "tlh"]),
                 st.from_regex(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})?", fullmatch=True)))
def test_closing_question_invariant(language):
    """Always one of the shipped texts: the language's (or its base language's) when shipped, else English."""
    text = closing_question(language)
    base = (language or "en").split("-")[0].lower()
    assert text == CLOSING_QUESTIONS.get(language or "en", CLOSING_QUESTIONS.get(base, ENGLISH))
    assert text in CLOSING_QUESTIONS.values()


async def test_the_translator_marks_the_plans_language(monkeypatch):
    """A translated plan carries its language (so the interview's closing question follows); scripted model."""
    translated = plan().model_copy(update={"sections": [SectionSnapshot(id="s1", title="導入", questions=[
        QuestionSnapshot(id="q1", text="どのように始まりましたか？")])]})

    async def scripted(self, variables, **kw):
        assert variables["language"] == "ja"
        return SimpleNamespace(output=translated, usage=LLMUsage(agent="study_translate", model="m", provider="p"))

    monkeypatch.setattr(type(translate.TRANSLATE), "run", scripted)      # the spec is frozen: its class's method
    result = await translate.study_translate_plan(TranslatePlanInput(plan=plan(), language="ja"))
    assert result.output.translated and result.output.plan.language == "ja"
    assert fallback_decision(result.output.plan, {"q1"}, "wrap_up").next_question.text == CLOSING_QUESTIONS["ja"]
