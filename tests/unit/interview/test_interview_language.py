"""The interviewer speaks the participant's language (issue 37, item 3): every agent that writes for the participant
(Planner, Orchestrator, assistant, Analysis, Writer, Follow-Up) is told the language by name in its prompt, the
Planner's plan carries it, and the texts the engine says itself (the closing question, the request for an outline,
the assistant's "unavailable") come in it. The models' answers are scripted; the offline double stays English-only:
a plan it wrote does not claim another language."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from temporalio.testing import ActivityEnvironment

from activities.artifacts import store
from activities.interview import planner as planner_module
from activities.interview.analysis import interview_analysis
from activities.interview.assistant import interview_assistant
from activities.interview.common import language_label
from activities.interview.follow_up import interview_follow_up
from activities.interview.orchestrator import interview_orchestrator
from activities.interview.planner import interview_planner
from activities.interview.writer import interview_writer
from client.web.i18n import ASSISTANT_UNAVAILABLE, CATALOGS, MINIMUM_CONTENT_PROMPT, page_translations
from models.common import LLMUsage
from models.interview.activities import (
    AnalysisInput,
    AssistantInput,
    FollowUpInput,
    OrchestratorInput,
    PlannerInput,
    WriterInput,
)
from models.interview.analysis import AnalysisSummary
from models.interview.entries import AssistantQuery, TranscriptEntry, WindowLine
from models.interview.notes import NotesState
from models.interview.plan import PlanSnapshot, QuestionSnapshot, SectionSnapshot
from models.interview.workflow import InterviewInput
from rules.interview import closing
from rules.interview.question_text import is_askable
from tests.unit.interview.test_session import at, entry

JA = "Japanese (日本語, ja)"
QUESTION_JA = "最初に当番を担当したとき、何が起きましたか？"
ANSWER_JA = "夜中の三時に決済バッチが止まって、手順書が一つもありませんでした。"


@pytest.fixture(autouse=True)
def _artifacts(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))


def _env(activity_type: str) -> ActivityEnvironment:
    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, workflow_id="wf-lang", activity_type=activity_type,
                                   start_to_close_timeout=timedelta(minutes=1),
                                   schedule_to_close_timeout=timedelta(minutes=1))
    return env


def plan_in(language: str | None) -> PlanSnapshot:
    return PlanSnapshot(topic="当番", research_goal="目的", angle="角度", language=language, sections=[
        SectionSnapshot(id="s1", title="はじまり", questions=[QuestionSnapshot(id="q1", text=QUESTION_JA)])])


def _prompt(offline, agent: str) -> str:
    calls = offline.calls(agent)
    assert calls, f"{agent} was not called"
    return "\n".join(str(m["content"]) for m in calls[-1].messages)


def test_a_language_is_named_in_english_in_its_own_script_and_by_code():
    assert language_label("ja") == JA
    assert language_label("ar") == "Arabic (العربية, ar)" and language_label("sw") == "Swahili (Kiswahili, sw)"
    assert language_label("en") == "English (en)"
    assert language_label(None) == "" and language_label("") == ""      # none set: the prompts say nothing
    assert language_label("tlh") == "tlh"                                # unknown to CLDR: its code


@settings(deadline=None)      # the first look-up of a locale reads CLDR data: slow on a busy machine
@given(st.one_of(st.none(), st.sampled_from(["en", *CATALOGS, "pt-BR", "zh-Hans", "tlh", "x-y"])))
def test_language_label_invariant(code):
    label = language_label(code)
    assert bool(label) == bool(code) and (not code or code in label) and "\n" not in label and len(label) < 120


async def test_the_planner_is_told_the_language_and_its_plan_carries_it(offline, monkeypatch):
    written = plan_in(None)

    async def scripted(self, variables, **kw):      # a (scripted) model, not the offline double
        assert variables["language"] == JA
        return SimpleNamespace(output=written.model_copy(deep=True),
                               usage=LLMUsage(agent="interview_planner", model="m", provider="p"))

    monkeypatch.setattr(type(planner_module.PLANNER), "run", scripted)   # the spec is frozen: its class's method
    result = await interview_planner(PlannerInput(topic="当番", language="ja"))
    assert result.output.language == "ja"
    assert closing.closing_question(result.output.language) == closing.CLOSING_QUESTIONS["ja"]


async def test_the_planners_prompt_names_the_language_and_the_offline_plan_stays_english(offline):
    result = await interview_planner(PlannerInput(topic="On-call", language="ja"))
    assert f"The interview is held in {JA}" in _prompt(offline, "interview_planner")
    assert result.usage.offline and result.output.language is None     # the double writes English: it says so
    await interview_planner(PlannerInput(topic="On-call"))
    assert "The interview is held in" not in _prompt(offline, "interview_planner")   # no language: as before


async def test_the_orchestrator_and_the_assistant_are_told_the_language(offline):
    offline.script("interview_orchestrator", {"next_question": {"text": QUESTION_JA, "source": "gap"},
                                              "phase": "opening"})
    out = await interview_orchestrator(OrchestratorInput(
        topic="当番", research_goal="目的", angle="角度", plan_coverage="", elapsed_seconds=0, target_seconds=600,
        phase="opening", window=[WindowLine(speaker="interviewee", text=ANSWER_JA)], language="ja"))
    assert out.output.next_question.text == QUESTION_JA
    assert f"The interview is held in {JA}: write next_question.text in that language" in \
        _prompt(offline, "interview_orchestrator")
    offline.script("interview_assistant", "当番とは、決められた時間に呼び出しに対応する担当のことです。")
    await interview_assistant(AssistantInput(topic="当番", query=AssistantQuery(query_id="a1", text="当番とは？"),
                                             language="ja"))
    assert f"The interview is held in {JA}: answer in that language" in _prompt(offline, "interview_assistant")


async def test_the_analysis_the_writer_and_the_follow_up_are_told_the_language(offline):
    entries = [TranscriptEntry(entry_id="q1", speaker="interviewer", text=QUESTION_JA, section_id="s1", seq=1),
               TranscriptEntry(entry_id="a1", speaker="interviewee", text=ANSWER_JA, section_id="s1", seq=2)]
    ref = store().put("wf-lang", "transcript.json", json.dumps([e.model_dump(mode="json") for e in entries]),
                      "application/json")
    plan = plan_in("ar")
    await _env("interview_analysis").run(interview_analysis, AnalysisInput(
        workflow_id="wf-lang", plan=plan, notes=NotesState(), transcript=ref))
    assert "The interview was held in Arabic (العربية, ar): quotes stay" in _prompt(offline, "interview_analysis")
    await _env("interview_writer").run(interview_writer, WriterInput(
        workflow_id="wf-lang", plan=plan, analysis=AnalysisSummary(), transcript=ref))
    assert "The interview was held in Arabic (العربية, ar): write the essay, its title included, in that language" \
        in _prompt(offline, "interview_writer")
    await _env("interview_follow_up").run(interview_follow_up, FollowUpInput(
        workflow_id="wf-lang", plan=plan, notes=NotesState(), transcript=ref))
    assert "The interview was held in Arabic (العربية, ar)" in _prompt(offline, "interview_follow_up")
    await _env("interview_writer").run(interview_writer, WriterInput(
        workflow_id="wf-lang", plan=plan_in(None), analysis=AnalysisSummary(), transcript=ref))
    assert "The interview was held in" not in _prompt(offline, "interview_writer")     # English: as before


# ------------------------------------------------------------------------------ the engine's own texts
def test_the_engines_texts_are_the_catalogs_in_every_shipped_language():
    for english, texts in closing.ENGINE_TEXTS.items():
        assert english in (MINIMUM_CONTENT_PROMPT, ASSISTANT_UNAVAILABLE)
        assert set(texts) == set(CATALOGS), english
        for lang in CATALOGS:
            assert texts[lang] == page_translations(lang).gettext(english) != english, (lang, english)
    for lang, text in closing.ENGINE_TEXTS[closing.MINIMUM_CONTENT_PROMPT].items():
        assert is_askable(text, lang)[0] and is_askable(text)[0], lang      # shown as a question: it asks


@given(st.sampled_from(list(closing.ENGINE_TEXTS)),
       st.one_of(st.none(), st.sampled_from(["en", *CATALOGS, "pt-BR", "zh-Hans", "ar-EG", "ko", "tlh"])))
def test_engine_text_invariant(english, language):
    """A shipped language (or its base language) gets its text; any other language the English one."""
    text = closing.engine_text(english, language)
    base = (language or "en").split("-")[0]
    assert text == closing.ENGINE_TEXTS[english].get(language or "en", closing.ENGINE_TEXTS[english].get(base,
                                                                                                        english))


def _session(language: str | None, plan_language: str | None):
    from rules.interview.session import Session

    s = Session(InterviewInput(topic="当番", plan=plan_in(plan_language), language=language), "wf-lang")
    s.create(at(0))
    ready = s.plan_or_request()
    assert isinstance(ready, PlanSnapshot)
    s.set_plan(at(0), ready)
    s.start(at(0))
    return s


@pytest.mark.parametrize("lang", ["ja", "ar", "sw"])
def test_the_engine_asks_for_an_outline_and_apologises_in_the_interviews_language(lang):
    s = _session(None, lang)
    s.accept_entry(at(1), entry("a1", "interviewee", "short"))
    s.control(at(2), "candidate_done")
    assert s.next_question() == closing.ENGINE_TEXTS[closing.MINIMUM_CONTENT_PROMPT][lang]
    query = AssistantQuery(query_id="x", text="?")
    asked, _ = s.assistant_asked(at(3), query)
    assert asked.language == lang
    assert s.assistant_unavailable(query, "down").text == closing.ENGINE_TEXTS[closing.ASSISTANT_UNAVAILABLE][lang]
    assert s.orchestrator_input(at(4)).language == lang


def test_the_interviews_language_is_the_plans_else_the_one_it_was_started_in():
    assert _session("ja", "ar").language() == "ar"
    assert _session("ja", None).language() == "ja"
    assert _session(None, None).language() is None
    english = _session(None, None)
    english.accept_entry(at(1), entry("a1", "interviewee", "short"))
    english.control(at(2), "candidate_done")
    assert english.next_question() == closing.MINIMUM_CONTENT_PROMPT                 # English: as before


def test_an_interview_started_in_a_language_asks_the_planner_in_it():
    from rules.interview.session import Session

    s = Session(InterviewInput(topic="当番", language="ja"), "wf-lang")
    s.create(at(0))
    request = s.plan_or_request()
    assert isinstance(request, PlannerInput) and request.language == "ja"
    with pytest.raises(ValueError, match="not a language code"):
        InterviewInput(topic="t", language="Japanese please")


def test_interview_start_takes_a_language_and_refuses_a_sentence_before_connecting():
    from typer.testing import CliRunner

    from client.interview.cli import app

    r = CliRunner().invoke(app, ["start", "On-call", "--language", "Japanese please"])
    assert r.exit_code == 2 and "is not a language code like 'en', 'ja' or 'pt-BR'" in r.output
    assert "Traceback" not in r.output
    assert "--language" in CliRunner().invoke(app, ["start", "--help"]).output


def test_the_room_link_carries_the_interviewees_language(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from client.interview.cli import app

    monkeypatch.setenv("COLLOQUY_ROOM_SECRET", "s" * 32)
    r = CliRunner().invoke(app, ["link", "interview-abc123", "--language", "ja", "--base-url", "http://h"])
    assert r.exit_code == 0 and "?lang=ja" in r.output.splitlines()[0], r.output
    assert "?lang=" not in CliRunner().invoke(app, ["link", "interview-abc123", "--base-url", "http://h"]).output
    bad = CliRunner().invoke(app, ["link", "interview-abc123", "--language", "Japanese please"])
    assert bad.exit_code == 2 and "not a language code" in bad.output and "Traceback" not in bad.output
