"""A participant in Japanese or Arabic hears no English from the engine (issue 37, item 3), on the time-skipping
server: the plan's questions, the engine's fallback questions and closing question, its request for an outline and
the assistant's "unavailable" come in the plan's language, and the Orchestrator's prompt names it. The models'
answers are scripted (here: the Orchestrator fails every time, so every question is the engine's own)."""

from __future__ import annotations

import re

import pytest

from activities.llm.offline import Fault
from models.interview.entries import AssistantAnswer, AssistantQuery, TranscriptView
from models.interview.names import QUERY_TRANSCRIPT, UPDATE_ASSISTANT_QUERY
from models.interview.plan import PlanSnapshot, QuestionSnapshot, SectionSnapshot
from rules.interview import closing
from tests.workflows.interview.helpers import control, events, say, start

LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
PLANS = {
    "ja": ("当番の仕事", ["最初に呼び出しを受けたのはいつでしたか？", "一番大変だった夜のことを教えてください。"],
           ["去年の春、夜中に初めて呼ばれました。", "決済バッチが止まって、手順書が一つもありませんでした。"]),
    "ar": ("العمل المناوب", ["متى تلقيت أول نداء؟", "حدّثني عن أصعب ليلة مررت بها."],
           ["في الربيع الماضي، نادوني لأول مرة في منتصف الليل.", "توقفت دفعة المدفوعات ولم يكن لدينا أي دليل."]),
}


def _plan(lang: str) -> PlanSnapshot:
    topic, questions, _ = PLANS[lang]
    return PlanSnapshot(topic=topic, research_goal=topic, angle=topic, language=lang, sections=[
        SectionSnapshot(id="s1", title=topic, importance="high", questions=[
            QuestionSnapshot(id=f"q{i}", text=q, priority=1) for i, q in enumerate(questions, start=1)])])


@pytest.mark.parametrize("lang", ["ja", "ar"])
async def test_a_participant_hears_no_english_from_the_engine(lang, ts_env, worker, offline):
    offline.script("interview_orchestrator", *[Fault(kind="invalid_json")] * 40)   # the engine asks on its own
    offline.script("interview_assistant", *[Fault(kind="auth")] * 3)
    _, _, answers = PLANS[lang]
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, topic=PLANS[lang][0], plan=_plan(lang), language=lang, write_essay=False,
                        duration_seconds=600)
        await ts_env.sleep(11)
        await say(h, "interviewee", answers[0])
        await control(h, "candidate_done")                       # too early: the engine asks for an outline
        answer = await h.execute_update(UPDATE_ASSISTANT_QUERY, AssistantQuery(query_id="a1", text="؟"),
                                        result_type=AssistantAnswer)
        await say(h, "interviewee", answers[1])
        await ts_env.sleep(31)
        await say(h, "interviewee", answers[0] + answers[1])
        await ts_env.sleep(31)
        evts = await events(h)
        view = await h.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        if not any(e.type == "INTERVIEW_COMPLETED" for e in evts):     # (every question asked: it may have ended)
            await control(h, "end")
        await h.result()
    shown = [e.payload["text"] for e in evts if e.type.endswith("_PRESENTED") and e.payload.get("text")]
    shown += [e.text for e in view.entries if e.speaker == "interviewer"] + [answer.text]
    assert closing.ENGINE_TEXTS[closing.MINIMUM_CONTENT_PROMPT][lang] in shown
    assert answer.text == closing.ENGINE_TEXTS[closing.ASSISTANT_UNAVAILABLE][lang]
    assert closing.CLOSING_QUESTIONS[lang] in shown                      # every plan question asked: the closing
    assert PLANS[lang][1][0] in shown
    assert [t for t in shown if LATIN_WORD.search(t)] == []
    prompts = [c.messages[0]["content"] for c in offline.calls("interview_orchestrator")]
    assert prompts and all(f"The interview is held in {'Japanese (日本語, ja)' if lang == 'ja' else 'Arabic (العربية, ar)'}"
                           in p for p in prompts)
    assert len(offline.calls("interview_assistant")) >= 1 and "answer in that language" in \
        offline.calls("interview_assistant")[0].messages[0]["content"]
