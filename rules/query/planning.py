"""Planner helpers: vocabulary expansion, dependency-aware execution groups, gap tracking, merging analyses."""

from __future__ import annotations

import re

from models.query.agents import AnalyzerOutput, Finding, PlannerOutput, RetrievalInstruction, SubQuery
from models.query.parts import DependencyType, Gap, Verdict


def expand_keywords(keywords: list[str], vocabulary: dict[str, str]) -> list[str]:
    """Seed §11.4 term normalization, both ways: 'pr' also searches 'personal record' and vice versa."""
    out: list[str] = []

    def add(term: str) -> None:
        t = term.strip().lower()
        if t and t not in out:
            out.append(t)

    vocab = {k.lower(): v.lower() for k, v in vocabulary.items()}
    for kw in keywords:
        add(kw)
        k = kw.strip().lower()
        if k in vocab:
            add(vocab[k])
        for short, full in vocab.items():
            if full == k:
                add(short)
    return out


def execution_groups(plan: PlannerOutput) -> list[list[SubQuery]]:
    """How sub-queries run (§7.4): INDEPENDENT → one group run in parallel; DEPENDENT → one sub-query per
    group in execution_order (each sees the findings of the ones before); COUPLED → a single pass over all.
    Returned as a list of *stages*; the sub-queries within a stage run concurrently."""
    subs = plan.sub_queries or [SubQuery(id=1, question=plan.original_query)]
    if len(subs) == 1 or plan.execution_strategy == DependencyType.COUPLED:
        return [[SubQuery(id=0, question=plan.original_query)]]
    if plan.execution_strategy == DependencyType.INDEPENDENT:
        return [subs]
    by_id = {s.id: s for s in subs}
    order = [i for i in plan.execution_order if i in by_id]
    order += [s.id for s in subs if s.id not in order]
    return [[by_id[i]] for i in order]


def instructions_for(plan: PlannerOutput, sub_query_id: int) -> list[RetrievalInstruction]:
    """Sub-query 0 means 'the whole query' (COUPLED / single pass): every instruction."""
    if sub_query_id == 0:
        return list(plan.retrieval_instructions)
    mine = [i for i in plan.retrieval_instructions if i.sub_query_id == sub_query_id]
    return mine or [i for i in plan.retrieval_instructions if i.sub_query_id not in
                    {s.id for s in plan.sub_queries}]


def merge_analyses(query: str, parts: list[AnalyzerOutput]) -> AnalyzerOutput:
    """Combine per-sub-query analyses: findings, patterns and gaps concatenated; SUFFICIENT only if all are."""
    if len(parts) == 1:
        return parts[0]
    findings: list[Finding] = []
    patterns: list[str] = []
    gaps: list[Gap] = []
    for p in parts:
        findings.extend(p.findings)
        patterns.extend(x for x in p.patterns_identified if x not in patterns)
        gaps.extend(g for g in p.gaps_identified if g.description not in {x.description for x in gaps})
    sufficient = all(p.verdict == Verdict.SUFFICIENT for p in parts)
    return AnalyzerOutput(
        query_intent=query, findings=findings, patterns_identified=patterns, gaps_identified=gaps,
        verdict=Verdict.SUFFICIENT if sufficient else Verdict.INSUFFICIENT,
        verdict_reasoning=" | ".join(p.verdict_reasoning for p in parts if p.verdict_reasoning),
    )


def gap_key(gap: Gap) -> str:
    return re.sub(r"[^a-z0-9]+", "_", gap.description.lower()).strip("_")[:60] or "gap"


def mark_searched(gaps: list[Gap], status: dict[str, dict[str, bool]]) -> list[Gap]:
    """After a retrieval aimed at these gaps: searched=True; found stays as the planner's tracking says."""
    return [g.model_copy(update={"searched": True,
                                 "found": g.found or bool(status.get(gap_key(g), {}).get("found", False))})
            for g in gaps]


def merge_gaps_status(old: dict[str, dict[str, bool]], new: dict[str, dict[str, bool]]) -> dict[str, dict[str, bool]]:
    merged = {k: dict(v) for k, v in old.items()}
    for k, v in new.items():
        row = merged.setdefault(k, {"searched": False, "found": False})
        row["searched"] = bool(row.get("searched")) or bool(v.get("searched"))
        row["found"] = bool(row.get("found")) or bool(v.get("found"))
    return merged


def ensure_instructions(plan: PlannerOutput, today, days: int = 30) -> PlannerOutput:  # noqa: ANN001
    """A retrieval with no instructions reads the last `days` days: "always search" even on a thin plan."""
    if plan.retrieval_instructions:
        return plan
    from datetime import timedelta

    default = RetrievalInstruction(tool="date_range", start=today - timedelta(days=days), end=today,
                                   purpose="recent entries (the plan named no retrieval)")
    return plan.model_copy(update={"retrieval_instructions": [default]})


def entry_sort_key(entry_id: str) -> tuple[str, int]:
    day, _, n = entry_id.partition("#")
    return day, int(n) if n.isdigit() else 0


def chunk_ids(ids: list[str], size: int) -> list[list[str]]:
    """Divide and conquer (§7.1): entries in date order, split into chunks of at most `size`."""
    ordered = sorted(set(ids), key=entry_sort_key)
    return [ordered[i:i + size] for i in range(0, len(ordered), size)] or [[]]
