"""Synthesizer (seed §11.6): the user-facing answer, citing evidence; the partial shape after the limit.

Quotes in the answer go through the shared grounding check (rules/grounding.py) against the retrieved entries and
the user's own clarifying answers: a quoted span that is not their exact words loses its quote marks and is flagged
("[unverified quote — ...]"), so it is never printed as a quote. Cited entry ids are checked the same way: an id
that was not among the entries read for this answer is dropped and the answer says so (rules/query/evidence.py)."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.llm import offline
from activities.query.common import dump
from activities.query.storage import load_entries
from models.common import AgentResult
from models.query.agents import SynthesizeInput, SynthesizerOutput
from rules.grounding import flag_unverified
from rules.query.evidence import checked_answer

SYNTHESIZER = AgentSpec("synthesize_answer", "query/synthesize_answer.md", SynthesizerOutput, tier="medium",
                        role="writer", policy="long_agent",
                        description="Query pipeline Synthesizer: user-facing answer with evidence")


@SYNTHESIZER.activity
async def synthesize_answer(inp: SynthesizeInput) -> AgentResult[SynthesizerOutput]:
    result = await SYNTHESIZER.run(
        {"vocabulary": dump(inp.vocabulary), "response_style": inp.response_style, "is_partial": inp.is_partial,
         "query": inp.query, "findings": dump(inp.analysis.findings),
         "patterns": dump(inp.analysis.patterns_identified), "user_responses": dump(inp.user_responses),
         "gaps": dump(inp.unanswered_gaps), "feedback": dump(inp.evaluation_feedback)},
        offline_context={"query": inp.query, "is_partial": inp.is_partial, "gaps": inp.unanswered_gaps,
                         "findings": [f.model_dump() for f in inp.analysis.findings]},
    )
    read = load_entries(inp.entries_refs, None) if inp.entries_refs else []
    out = result.output
    if read:
        sources = [e.raw_content for e in read] + list(inp.user_responses.values())
        out.response, _ = flag_unverified(out.response, sources)
    # Like a quote, a cited entry must be one that was read for this answer: otherwise dropped, and said so.
    out.response, out.evidence_cited, confidence = checked_answer(out.response, out.evidence_cited,
                                                                  [e.id for e in read], out.confidence)
    out.confidence = confidence  # type: ignore[assignment]
    return result


@SYNTHESIZER.offline
def _offline_synthesizer(req: offline.OfflineRequest) -> SynthesizerOutput:
    findings = req.context.get("findings", [])
    gaps = list(req.context.get("gaps", []))
    evidence = [ev for f in findings for ev in f["evidence"]]
    if findings:
        body = "From your notes: " + " ".join(f"{f['claim'].rstrip('.')}." for f in findings)
    else:
        body = "I found nothing in your notes about this."
    if req.context.get("is_partial"):
        body = "Here's what I can tell you: " + body
        if gaps:
            body += "\n\nTo provide a more complete answer, I would need: " + "; ".join(gaps)
    return SynthesizerOutput(response=body, key_points=[f["claim"] for f in findings[:3]], evidence_cited=evidence,
                             gaps_disclosed=gaps, confidence="medium" if findings else "low")

