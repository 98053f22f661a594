"""Digest (the map step of the analysis): one participant's transcript → themes with a stance and verbatim quotes
(a translation beside them when the participant spoke another language), topics outside the plan, and the
per-question coverage (asked / answered / depth, computed by rules/study/analysis.py, not by the model). It reads
the transcript as the participant corrected it on the read-back page (rules/study/corrections.py): a corrected
answer's words are the correction's, and a quote from one is marked `corrected`.

Every quote is checked verbatim against the participant's own answers (rules/grounding.py): a quote that is not
their exact words is moved to `flagged_quotes` with the reason, never kept as a quote. Saved as the artifact
`<study id>--<participant>/study-digest.json` (the participant's interview scope: a withdrawal erases it with the
rest; earlier studies kept `<study id>/digest-<participant>.json`); the workflow keeps the ref and the theme labels.
"""

from __future__ import annotations

import re
from collections import Counter

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once, store
from activities.interview.common import load_transcript
from activities.llm import offline
from models.common import AgentResult
from models.study.activities import DigestDraft, DigestInput, DigestQuote, DigestSummary, InterviewDigest
from models.study.workflow import FindingQuote
from rules.grounding import check_quote
from rules.interview.entries import format_transcript, sentences
from rules.study.analysis import answered_questions, answers_of, question_coverage
from rules.study.corrections import corrected_entries

DIGEST = AgentSpec("study_digest", "study/digest.md", DigestDraft, tier="medium", policy="agent",
                   description="Study: one interview's structured digest (themes, stances, verbatim quotes)")
OFFLINE_NOTE = "not translated: offline test double"
DIGEST_NAME = "study-digest.json"


@DIGEST.activity
@completed_once
async def study_digest(inp: DigestInput) -> AgentResult[DigestSummary]:
    entries, corrected = corrected_entries(load_transcript(inp.transcript), inp.corrections)
    answers = answers_of(entries)
    questions = "\n".join(f"- {q.id}: {q.text}" for sec in inp.source_plan.sections for q in sec.questions)
    titles = {sec.id: sec.title for sec in inp.source_plan.sections}
    section_of = {q.id: titles.get(sec.id, sec.title) for sec in inp.plan.sections for q in sec.questions}
    _, answered = answered_questions(inp.plan, entries)
    result = await DIGEST.run(
        {"topic": inp.source_plan.topic, "research_goal": inp.source_plan.research_goal, "questions": questions,
         "participant_id": inp.participant_id, "language": inp.language, "analysis_language": inp.analysis_language,
         "transcript": format_transcript(entries) or "(nothing said)"},
        offline_context={"entries": [{"speaker": e.speaker, "text": e.text, "entry_id": e.entry_id,
                                      "theme": section_of.get(answered.get(e.entry_id, ""),
                                                              titles.get(e.section_id or "", "general"))}
                                     for e in entries],
                         "questions": questions})
    draft, usage = result.output, result.usage
    other_language = inp.language != inp.analysis_language
    note = (OFFLINE_NOTE if usage.offline else f"machine translation ({usage.model})") if other_language else ""
    texts = [e.text for e in answers]
    flagged: list[FindingQuote] = []
    for theme in draft.themes:
        kept: list[DigestQuote] = []
        for q in theme.quotes:
            check = check_quote(q.text, texts)
            if check.verified and check.source is not None:
                q.text, q.entry_id = check.quote, answers[check.source].entry_id
                q.corrected = q.entry_id in corrected
                if not other_language or usage.offline:
                    q.translation = None          # the double does not translate; same language needs none
                kept.append(q)
            else:
                flagged.append(FindingQuote(participant_id=inp.participant_id, text=check.quote, language=inp.language,
                                            interview_id=inp.interview_id, transcript=inp.transcript,
                                            check=check.status, flag=check.flag))
        theme.quotes = kept
    digest = InterviewDigest(participant_id=inp.participant_id, interview_id=inp.interview_id, language=inp.language,
                             answers=len(answers), themes=draft.themes, not_in_plan=draft.not_in_plan,
                             coverage=question_coverage(inp.plan, entries), translation_note=note,
                             flagged_quotes=flagged)
    # in the participant's own scope (sealed under their data key when encryption is on): erased with them
    ref = store().put(inp.interview_id, DIGEST_NAME, digest.model_dump_json(indent=1), "application/json")
    return AgentResult[DigestSummary](output=DigestSummary(
        participant_id=inp.participant_id, digest=ref, themes=[t.title for t in digest.themes],
        coverage=digest.coverage), usage=usage)


_LEAD = re.compile(r"^On [^:]{1,80}:\s*")
_WORD = re.compile(r"[^\W\d_]{7,}", re.UNICODE)


@DIGEST.offline
def _offline_digest(req: offline.OfflineRequest) -> dict | None:
    """The double's digest (demo and tests only): one theme per plan section whose questions the participant
    answered, titled with the section's title; the stance is the answer's first sentence (persona lines repeat
    across personas, so positions can be counted); the quote is the answer's longest sentence, verbatim. Topics
    outside the plan: the participant's most frequent long word that no question used. Nothing is translated."""
    if "entries" not in req.context:
        return None
    by_theme: dict[str, list[dict]] = {}
    for e in req.context["entries"]:
        if e["speaker"] == "interviewee":
            by_theme.setdefault(e.get("theme") or "general", []).append(e)
    themes = []
    for title, said in by_theme.items():
        first = said[0]["text"]
        parts = [s for e in said for s in sentences(e["text"])]
        stance = _LEAD.sub("", (sentences(first) or [first])[0]).strip()
        quote = max(parts, key=len) if parts else first
        themes.append({"title": title, "summary": "",
                       "stance": " ".join(stance.split()[:14]), "quotes": [{"text": quote}]})
    asked = str(req.context.get("questions", "")) + " ".join(
        e["text"] for e in req.context["entries"] if e["speaker"] == "interviewer")
    plan_words = set(w.lower() for w in _WORD.findall(asked))
    words = Counter(w.lower() for e in req.context["entries"] if e["speaker"] == "interviewee"
                    for w in _WORD.findall(e["text"]) if w.lower() not in plan_words)
    missed = [w for w, n in words.most_common(1) if n >= 2]
    return {"themes": themes, "not_in_plan": missed}
