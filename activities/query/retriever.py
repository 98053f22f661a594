"""The Retriever (seed §11.4) as a storage activity: it executes the Planner's typed instructions with the
repository's tools. The seed gives the Retriever no judgment ("does NOT decide strategy, judge sufficiency");
the Planner already names the tool and its parameters, so no LLM call is needed to pick them.
"""

from __future__ import annotations

import json
from typing import Any

from temporalio import activity

from activities.artifacts import store as artifact_store
from activities.query.storage import InvalidRequest, StorageRepository, _in_thread, notes_repo
from models.query.agents import RetrievalInstruction, RetrieveInput, RetrieverOutput
from models.query.parts import DateRange, Entry, RetrievalAttempt
from rules.query.planning import expand_keywords
from rules.query.summaries import describe_search


@activity.defn(name="retrieve_notes")
async def retrieve_notes(inp: RetrieveInput) -> RetrieverOutput:
    """The Retriever (seed §11.4): executes the Planner's instructions with the storage tools, reads every
    entry in scope (no relevance filtering), expands keywords with the vocabulary, honours max_entries with a
    truncation warning, and writes the entries to the artifact store (history keeps the ref)."""
    repo = notes_repo(inp.notes_dir)
    return await _in_thread(_retrieve, repo, inp)


def _retrieve(repo: StorageRepository, inp: RetrieveInput) -> RetrieverOutput:
    seen: dict[str, Entry] = {}
    attempts: list[RetrievalAttempt] = []
    warnings: list[str] = []
    for n, ins in enumerate(inp.instructions):
        found, params, note = _run_instruction(repo, ins, inp.vocabulary)
        if note:
            warnings.append(note)
        new = [e for e in found if e.id not in seen]
        for e in new:
            seen[e.id] = e
        if not found:
            warnings.append(f"no entries found for {describe_search(ins.tool, params)}")
        attempts.append(RetrievalAttempt(
            attempt_number=inp.attempt_start + n, strategy=ins.tool, params=params, entries_found=len(found),
            summary=(f"{len(found)} entries ({len(new)} new)" + (f" for {ins.purpose}" if ins.purpose else ""))))
    entries = sorted(seen.values(), key=lambda e: (e.date, e.timestamp, e.id))
    total = len(entries)
    truncated = total > inp.max_entries
    if truncated:
        warnings.append(f"{total} entries in scope, only the {inp.max_entries} most recent were read "
                        f"(max_entries); narrow the date range to read older ones")
        entries = entries[-inp.max_entries:]
    warnings.extend(repo.warnings)
    ref = None
    if entries:
        payload = json.dumps([e.model_dump(mode="json") for e in entries])
        ref = artifact_store().put(inp.scope, f"{inp.label}.json", payload, "application/json")
    covered = DateRange(start=entries[0].date, end=entries[-1].date) if entries else None
    return RetrieverOutput(entries_ref=ref, entry_ids=[e.id for e in entries], retrieval_summary=attempts,
                           total_entries_found=total, date_range_covered=covered, warnings=warnings,
                           truncated=truncated)


def _run_instruction(repo: StorageRepository, ins: RetrievalInstruction,
                     vocabulary: dict[str, str]) -> tuple[list[Entry], dict[str, Any], str | None]:
    note = None
    rng = None
    if ins.start or ins.end:
        start = ins.start or ins.end
        end = ins.end or ins.start
        assert start and end
        if start > end:
            note = f"date range {start}..{end} was reversed; searched {end}..{start}"
            start, end = end, start
        rng = DateRange(start=start, end=end)
    params: dict[str, Any] = {}
    if rng:
        params.update(start=rng.start.isoformat(), end=rng.end.isoformat())
    if ins.tool == "date_range":
        if rng is None:
            return [], params, "a date_range instruction without dates was skipped"
        return repo.get_entries_by_date_range(rng.start, rng.end), params, note
    if ins.tool == "keyword":
        terms = expand_keywords(ins.keywords, vocabulary)
        params.update(keywords=terms, match_all=ins.match_all)
        return repo.search_entries(terms, rng, ins.match_all), params, note
    if ins.tool == "topic":
        params.update(topic=ins.topic or "")
        if not ins.topic:
            return [], params, "a topic instruction without a topic was skipped"
        return repo.get_entries_by_topic(ins.topic, vocabulary, rng), params, note
    params.update(pattern=ins.pattern or "")
    if not ins.pattern:
        return [], params, "a pattern instruction without a pattern was skipped"
    try:
        return repo.get_entries_by_pattern(ins.pattern), params, note
    except InvalidRequest as exc:
        return [], params, str(exc)


