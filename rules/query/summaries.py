"""Texts the workflow shows users and agents: what was stored, what was read, workflow ids."""

from __future__ import annotations

from typing import Any

from models.query.agents import ParserOutput
from models.query.parts import RetrievalAttempt
from models.query.workflow import OFFLINE_ANSWER_LABEL, ReparseResult, StoreEntryResult


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


def describe_search(tool: str, params: dict[str, Any]) -> str:
    """A search in plain words (warnings, summaries): "the words bench, heavy between 2026-01-02 and 2026-01-16"."""
    when = ""
    if params.get("start") and params.get("end"):
        when = (f" on {params['start']}" if params["start"] == params["end"]
                else f" between {params['start']} and {params['end']}")
    if tool == "keyword":
        words = ", ".join(str(k) for k in params.get("keywords", [])) or "(no words)"
        joined = "all of the words" if params.get("match_all") else "the words"
        return f"{joined} {words}{when}"
    if tool == "topic":
        return f"the topic {params.get('topic') or '(none)'}{when}"
    if tool == "pattern":
        return f"files matching {params.get('pattern') or '(none)'}"
    return f"entries{when}" if when else "entries (no dates given)"


def unique(items: list[str]) -> list[str]:
    """In order, without repeats (an evidence list names each entry once)."""
    return list(dict.fromkeys(i for i in items if i))


def label_offline(response: str, offline: bool) -> str:
    """Every answer the offline test double produced says so (README, docs/query.md)."""
    if not offline or response.startswith(OFFLINE_ANSWER_LABEL):
        return response
    return f"{OFFLINE_ANSWER_LABEL} {response}"


def scope_note(read: int, in_scope: int) -> str:
    return (f"only {read} of the {in_scope} entries in scope were read (the max-entries limit); ask again with "
            f"--max-entries {in_scope} to read them all")


def reparse_summary(result: ReparseResult, per_run: int | None = None) -> str:
    """"N parsed, M still unparsed (reason)" for notes kept as written after a Router failure (needs-parsing)."""
    text = f"{len(result.parsed)} parsed, {result.unparsed} still unparsed"
    reasons = []
    if result.failed:
        errors = list(dict.fromkeys(result.failed.values()))
        reasons.append(f"{len(result.failed)}: the Parser failed — {errors[0]}"
                       + (f" (and {len(errors) - 1} other reason(s))" if len(errors) > 1 else ""))
    if result.waiting:
        limit = f"at most {per_run} per run" if per_run else "over this run's limit"
        reasons.append(f"{result.waiting}: not tried yet, {limit} — `colloquy notes reparse` parses more")
    return text + (f" ({'; '.join(reasons)})" if reasons else "")
