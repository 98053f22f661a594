"""Section summaries (003 §7): a bounded context summary per section that introduces no fact absent from the
transcript — quotes must be exact, and key points whose words are mostly not in the transcript are dropped."""

from __future__ import annotations

import asyncio

from activities.agents.base import AgentSpec
from activities.interview.common import entries_context, read_entries, transcript_text
from activities.llm import offline
from models.common import AgentResult
from models.interview.activities import SectionSummaryInput
from models.interview.analysis import SectionSummary
from models.interview.entries import TranscriptEntry
from rules.grounding import is_verbatim
from rules.interview.entries import sentences
from rules.interview.similarity import words

SECTION_SUMMARY = AgentSpec("interview_section_summary", "interview/section_summary.md", SectionSummary, tier="low",
                            policy="agent",
                            description="Interview: bounded context summary of one section (003 §7)")
STOPWORDS = {"the", "a", "an", "and", "or", "of", "to", "in", "on", "for", "with", "is", "was", "it", "that",
             "this", "they", "their", "about", "how", "what", "why", "be", "are", "were", "as", "at", "by"}


def grounded(point: str, entries: list[TranscriptEntry], min_share: float = 0.6) -> bool:
    """Most of a point's content words must appear in the transcript."""
    content = words(point) - STOPWORDS
    if not content:
        return False
    said = set().union(*(words(e.text) for e in entries)) if entries else set()
    return len(content & said) / len(content) >= min_share


def section_entries(inp: SectionSummaryInput) -> list[TranscriptEntry]:
    """The section's entries: those archived by earlier runs (continue-as-new) first, then the ones sent."""
    sent = {e.entry_id for e in inp.entries}
    older = [e for ref in inp.archived for e in read_entries(ref) if e.section_id == inp.section_id
             and e.entry_id not in sent]
    return older + list(inp.entries)


@SECTION_SUMMARY.activity
async def interview_section_summary(inp: SectionSummaryInput) -> AgentResult[SectionSummary]:
    if inp.archived:
        inp = inp.model_copy(update={"entries": await asyncio.to_thread(section_entries, inp), "archived": []})
    result = await SECTION_SUMMARY.run(
        {"section_id": inp.section_id, "title": inp.title, "goal": inp.goal,
         "transcript": transcript_text(inp.entries)},
        offline_context={"window": entries_context(inp.entries), "section_id": inp.section_id})
    out = result.output
    said = [e.text for e in inp.entries if e.speaker == "interviewee"]
    out.section_id = inp.section_id
    out.key_points = [p for p in out.key_points if grounded(p, inp.entries)]
    out.quotes = [q for q in out.quotes if is_verbatim(q, said)]
    out.open_threads = [t for t in out.open_threads if grounded(t, inp.entries)]
    return result


@SECTION_SUMMARY.offline
def _offline_summary(req: offline.OfflineRequest):
    said = [s for e in req.context.get("window", []) if e["speaker"] == "interviewee" for s in sentences(e["text"])]
    return SectionSummary(section_id=req.context.get("section_id", ""), key_points=said[:3], quotes=said[:1])

