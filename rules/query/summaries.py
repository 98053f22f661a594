"""Texts the workflow shows users and agents: what was stored, what was read, workflow ids."""

from __future__ import annotations

from models.query import ParserOutput, RetrievalAttempt, StoreEntryResult


def describe_store(result: StoreEntryResult, parsed: ParserOutput | None, correction: bool) -> str:
    if correction:
        if not result.corrected:
            return f"I could not find the entry to correct, so I kept your correction as a note. {result.note}"
        delta = parsed.correction_delta if parsed else None
        change = f" Updated: {delta}." if delta else " The original text is kept; the correction is appended."
        return f"Corrected entry {result.entry_id} ({result.raw_file}).{change}"
    domains = ", ".join(sorted((parsed.domain_data if parsed else {}) or {})) or "no structured data"
    text = f"Logged entry {result.entry_id} ({domains})."
    if parsed and parsed.uncertain_fields:
        text += f" Please check: {', '.join(parsed.uncertain_fields)}."
    return text


def entries_summary(history: list[RetrievalAttempt], entry_ids: list[str]) -> str:
    if not entry_ids:
        return "No entries were found in the notes for this query."
    dates = sorted({i.split("#")[0] for i in entry_ids})
    tools = "; ".join(f"{a.strategy} {a.params} → {a.entries_found}" for a in history[-6:])
    return f"{len(entry_ids)} entries read, {dates[0]} to {dates[-1]}: {', '.join(entry_ids[:40])}. Searches: {tools}"
