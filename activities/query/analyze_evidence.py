"""Analyzer (seed §11.5): findings with evidence, patterns, classified gaps, and the verdict LAST.
Entries are read from the artifact store (the workflow only holds their refs)."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.llm import offline
from activities.query.common import content_words, dump, render_entries
from activities.query.storage import load_entries
from models.common import AgentResult
from models.query.agents import AnalyzeInput, AnalyzerOutput, Finding
from models.query.parts import Gap, GapType, Verdict

ANALYZER = AgentSpec("analyze_evidence", "query/analyze_evidence.md", AnalyzerOutput, tier="high", role="auditor",
                     policy="agent",
                     description="Query pipeline Analyzer: findings, patterns, gaps, sufficiency verdict last")


@ANALYZER.activity
async def analyze_evidence(inp: AnalyzeInput) -> AgentResult[AnalyzerOutput]:
    entries = load_entries(inp.entries_refs, inp.entry_ids) if not inp.chunk_analyses else []
    ctx = inp.domain_context
    return await ANALYZER.run(
        {"expertise": ctx.expertise or "(none)", "query": inp.query, "query_type": inp.query_type.value,
         "prior_findings": dump(inp.prior_findings) if inp.prior_findings else "",
         "chunk": inp.chunk or "", "chunk_analyses": [a.model_dump_json(exclude_none=True) for a in inp.chunk_analyses],
         "entry_count": len(entries), "entries": render_entries(entries),
         "user_responses": dump(inp.user_responses), "global_context": inp.global_context or "(none)",
         "retrieval_history": dump(inp.retrieval_history), "loaded": ", ".join(ctx.domains_loaded),
         "available_domains": ", ".join(d.name for d in ctx.available_domains) or "(none)"},
        offline_context={"query": inp.query, "user_responses": inp.user_responses,
                         "chunk_analyses": [a.model_dump(mode="json") for a in inp.chunk_analyses],
                         "entries": [{"id": e.id, "date": e.date.isoformat(), "text": e.raw_content[:200]}
                                     for e in entries]},
    )


@ANALYZER.offline
def _offline_analyzer(req: offline.OfflineRequest) -> AnalyzerOutput:
    """Keyless default: entries mentioning the query's words become findings citing their ids."""
    query = str(req.context.get("query", ""))
    if req.context.get("chunk_analyses"):  # reduce: combine the chunks' findings and gaps
        parts = [AnalyzerOutput.model_validate(a) for a in req.context["chunk_analyses"]]
        found = [f for p in parts for f in p.findings]
        return AnalyzerOutput(query_intent=query, findings=found[-8:],
                              patterns_identified=[x for p in parts for x in p.patterns_identified],
                              gaps_identified=[] if found else [g for p in parts for g in p.gaps_identified][:3],
                              verdict=Verdict.SUFFICIENT if found else Verdict.INSUFFICIENT,
                              verdict_reasoning=f"combined {len(parts)} chunk analyses")
    entries = req.context.get("entries", [])
    words = content_words(query)
    # Only entries that mention the question's words: an unrelated question finds nothing, and says so.
    relevant = [e for e in entries if any(w in e["text"].lower() for w in words)]
    findings = [Finding(claim=f"{e['date']}: {e['text'][:120]}", evidence=[e["id"]], confidence="medium")
                for e in relevant[-5:]]
    for q, a in (req.context.get("user_responses") or {}).items():
        findings.append(Finding(claim=f"You said: {a}", evidence=[f"your answer to '{q}'"], confidence="high"))
    if findings:
        return AnalyzerOutput(query_intent=query, findings=findings, patterns_identified=[], gaps_identified=[],
                              verdict=Verdict.SUFFICIENT,
                              verdict_reasoning=f"{len(relevant)} relevant entries found")
    return AnalyzerOutput(
        query_intent=query, findings=[], patterns_identified=[],
        gaps_identified=[Gap(description=f"no entries about {', '.join(words[:3]) or 'this'} in the notes",
                             gap_type=GapType.TOPICAL, severity="critical", searched=True)],
        verdict=Verdict.INSUFFICIENT, verdict_reasoning="no entries in scope")

