"""Analysis (000): the full (merged) transcript, notes, plan → claims, themes, tensions, exact quotes, title.
Quotes that are not a run of the interviewee's exact words (rules/grounding.py `verbatim_span`) are dropped here,
so the Writer only sees real ones; `quotes_dropped` says how many. Claims and tensions go through the essay's
sentence check (rules/interview/essay_checks.py `reject`: residue, debris, third person, names never said, too few
of the interviewee's words); `claims_dropped` counts those dropped."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once
from activities.interview.common import entries_context, language_label, load_transcript, transcript_text
from activities.llm import offline
from models.common import AgentResult
from models.interview.activities import AnalysisInput
from models.interview.analysis import AnalysisSummary, QuoteItem
from rules.grounding import verbatim_span
from rules.interview.entries import dedupe_quotes, sentences
from rules.interview.essay_checks import Speaker, reject
from rules.interview.notes import summary_text

ANALYSIS = AgentSpec("interview_analysis", "interview/analysis.md", AnalysisSummary, tier="high",
                     policy="agent",
                     description="Interview: extracts essay-ready claims, themes, tensions, quotes and a title")


@ANALYSIS.activity
@completed_once
async def interview_analysis(inp: AnalysisInput) -> AgentResult[AnalysisSummary]:
    entries = load_transcript(inp.transcript)
    result = await ANALYSIS.run(
        {"topic": inp.plan.topic, "research_goal": inp.plan.research_goal, "angle": inp.plan.angle,
         "notes_text": summary_text(inp.notes), "transcript": transcript_text(entries),
         "language": language_label(inp.plan.language)},
        offline_context={"window": entries_context(entries), "topic": inp.plan.topic,
                         "titles": inp.notes.possible_titles})
    out = result.output
    said = [e.text for e in entries if e.speaker == "interviewee"]      # the interviewee's own words only
    kept = [q for q in out.quotes if verbatim_span(q.text, said)]
    texts = dedupe_quotes([q.text for q in kept])
    out.quotes_dropped = len(out.quotes) - len(kept)
    out.quotes = [q for q in kept if q.text in texts]
    who = Speaker.of(said)
    claims = [c for c in out.main_claims if reject(c, who) is None]
    tensions = [t for t in out.tensions if reject(t, who) is None]
    out.claims_dropped = len(out.main_claims) - len(claims) + len(out.tensions) - len(tensions)
    out.main_claims, out.tensions = claims, tensions
    out.research_goal = out.research_goal or inp.plan.research_goal
    return result


@ANALYSIS.offline
def _offline_analysis(req: offline.OfflineRequest):
    said = [s for e in req.context.get("window", []) if e["speaker"] == "interviewee" for s in sentences(e["text"])]
    if not said:
        return AnalysisSummary(suggested_title=req.context.get("topic", ""))
    by_len = sorted(said, key=len, reverse=True)
    return AnalysisSummary(
        main_claims=by_len[:3], themes=[" ".join(s.split()[:5]) for s in by_len[:2]],
        tensions=[s for s in said if " but " in s.lower()][:2],
        quotes=[QuoteItem(text=s) for s in by_len[:4]],
        suggested_title=req.context.get("topic", "").strip())

