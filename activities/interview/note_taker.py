"""NoteTaker (000): the last 20 entries + current notes → new insights (the workflow merges them)."""

from __future__ import annotations

from typing import Literal

from activities.agents.base import AgentSpec
from activities.interview.common import entries_context, notes_text, transcript_text
from activities.llm import offline
from models.common import AgentResult
from models.interview.activities import NoteTakerInput
from models.interview.notes import KeyIdea, NotesState, QuotableLine, SectionCoverage
from rules.interview.entries import sentences

NOTE_TAKER = AgentSpec("interview_note_taker", "interview/note_taker.md", NotesState, tier="low",
                       policy="live_agent",
                       description="Interview: extracts ideas, stories, claims, gaps, contradictions, quotes live")


@NOTE_TAKER.activity
async def interview_note_taker(inp: NoteTakerInput) -> AgentResult[NotesState]:
    return await NOTE_TAKER.run(
        {"topic": inp.topic, "research_goal": inp.research_goal, "angle": inp.angle, "sections": inp.sections,
         "current_section_id": inp.current_section_id, "notes_text": notes_text(inp),
         "window_size": len(inp.window), "transcript": transcript_text(inp.window)},
        offline_context={"window": entries_context(inp.window), "section_id": inp.current_section_id})


@NOTE_TAKER.offline
def _offline_notes(req: offline.OfflineRequest):
    """Deterministic notes lifted from the interviewee's own sentences (demo only)."""
    said = [e["text"] for e in req.context.get("window", []) if e["speaker"] == "interviewee"]
    if not said:
        return NotesState()
    lines = [s for text in said for s in sentences(text)]
    longest = max(lines or said, key=len)
    ideas = [KeyIdea(title=" ".join(longest.split()[:6]), description=longest)]
    quotes = [QuotableLine(text=s, speaker="expert", topic=" ".join(s.split()[:4])) for s in lines[-2:]]
    coverage = []
    if req.context.get("section_id"):
        words = sum(len(t.split()) for t in said)
        quality: Literal["deep", "adequate", "shallow"] = \
            "deep" if words > 150 else "adequate" if words > 60 else "shallow"
        coverage = [SectionCoverage(id=req.context["section_id"], coverage_quality=quality,
                                    key_points_covered=[" ".join(longest.split()[:8])])]
    return NotesState(key_ideas=ideas, quotable_lines=quotes, section_coverage=coverage,
                      possible_titles=[" ".join(longest.split()[:7]).rstrip(".,;")])

