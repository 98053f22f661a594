"""Researcher (000): the last 20 entries → definitions, counterpoints, metrics (skeptical fact-checking).
Topic freshness (300 s) is the workflow's: it passes recent topics and drops repeats."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.interview.common import entries_context, transcript_text
from activities.llm import offline
from models.common import AgentResult
from models.interview.activities import ResearcherInput
from models.interview.notes import ResearchItem, ResearchOutput

RESEARCHER = AgentSpec("interview_researcher", "interview/researcher.md", ResearchOutput, tier="low",
                       policy="live_agent",
                       description="Interview: fact-checks claims and finds context and counterpoints")


@RESEARCHER.activity
async def interview_researcher(inp: ResearcherInput) -> AgentResult[ResearchOutput]:
    return await RESEARCHER.run(
        {"topic": inp.topic, "existing_topics": inp.existing_topics, "recent_topics": inp.recent_topics,
         "window_size": len(inp.window), "transcript": transcript_text(inp.window)},
        offline_context={"window": entries_context(inp.window), "topic": inp.topic,
                         "existing": inp.existing_topics})


@RESEARCHER.offline
def _offline_research(req: offline.OfflineRequest):
    """One item about the longest capitalised term the interviewee used (demo only; labelled offline)."""
    import re

    said = " ".join(e["text"] for e in req.context.get("window", []) if e["speaker"] == "interviewee")
    # capitalised terms that do not start a sentence: names, products, places
    terms = [t for t in re.findall(r"(?<=[a-z0-9,;:] )[A-Z][a-zA-Z]{2,}(?:\s[A-Z][a-zA-Z]{2,})?\b", said)
             if t.lower() not in {x.lower() for x in req.context.get("existing", [])}]
    if not terms:
        return ResearchOutput()
    term = max(terms, key=len)
    return ResearchOutput(topics_considered=[term], items=[ResearchItem(
        topic=term, kind="context", priority=2,
        summary=f"The interviewee brought up {term}; no external source was consulted (offline test double).",
        how_to_use_in_question=f"Ask what {term} looked like in practice.")])

