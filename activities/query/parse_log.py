"""Parser (seed §11.9): raw log → structured data per domain schema; correction mode finds the target entry
and extracts the delta. The model's answer is checked before anything is stored: fields outside the schema or
of the wrong type are removed and flagged, values the input does not state are dropped (never invent data),
and raw_content is always the user's exact text."""

from __future__ import annotations

import asyncio
import re
import threading
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.agents.base import AgentSpec
from activities.llm import offline
from activities.llm.schema import inline_refs, json_schema_of
from activities.query.common import dump, render_entries
from models.common import AgentResult
from models.query.agents import ParseInput, ParserOutput
from models.query.parts import LogField
from models.query.workflow import ImportBatchInput, ImportBatchResult, ImportedNote, ListImportInput
from rules.query.imports import (
    JournalHints,
    clean_text,
    content_hash,
    entry_key,
    journal_hints,
    split_dated,
    undated_message,
    undated_part,
)
from rules.query.parsing import check_schema, drop_invented, log_json_schema

PARSER = AgentSpec("parse_log", "query/parse_log.md", ParserOutput, tier="medium", role="writer",
                   policy="agent",
                   description="Query pipeline Parser: structured extraction per domain schema, corrections")
IMPORT_CONCURRENCY = 8
MAX_IMPORT_FILE_BYTES = 200_000
MAX_WARNINGS_PER_FILE = 20  # the rest are counted (a yearly file may date 50 weekends from context)


def _schema_text(schemas: dict[str, dict[str, LogField]]) -> str:
    def fields(spec: dict[str, LogField], indent: str) -> list[str]:
        out = []
        for name, f in spec.items():
            out.append(f"{indent}- {name} ({f.type}): {f.description}")
            if f.items:
                out += fields(f.items, indent + "  ")
        return out

    return "\n".join(f"{domain}:\n" + "\n".join(fields(spec, "  ")) for domain, spec in schemas.items()) or "(none)"


def checked(out: ParserOutput, inp: ParseInput) -> ParserOutput:
    """Apply the guards to the model's answer (pure checks from rules/query/parsing.py)."""
    notes = list(out.extraction_notes)
    uncertain = list(out.uncertain_fields)
    data, problems = check_schema(out.domain_data, inp.domain_schemas)
    data, invented = drop_invented(data, inp.raw_input, inp.vocabulary)
    notes += [f"removed {p}" for p in problems]
    notes += [f"dropped {p}: not stated in the input" for p in invented]
    uncertain += [p.split(":")[0] for p in problems if p.split(":")[0] not in uncertain]
    delta = out.correction_delta
    if inp.correction_mode and delta:
        target = next((e for e in inp.recent_entries if e.id == out.target_entry_id), None)
        basis = inp.raw_input + "\n" + (target.raw_content if target else "")
        delta, problems2 = check_schema(delta, inp.domain_schemas)
        delta, invented2 = drop_invented(delta, basis, inp.vocabulary)
        notes += [f"correction: removed {p}" for p in problems2]
        notes += [f"correction: dropped {p}: not stated" for p in invented2]
    return out.model_copy(update={
        "domain_data": data if not inp.correction_mode else {}, "raw_content": inp.raw_input,
        "extraction_notes": notes, "uncertain_fields": uncertain, "correction_delta": delta,
        "is_correction": inp.correction_mode, "date": inp.timestamp.date(), "timestamp": inp.timestamp,
        "target_entry_id": out.target_entry_id if inp.correction_mode else None,
    })


#: ParserOutput fields the activity sets itself (from the input), and those only a correction fills.
_SET_BY_ACTIVITY = ("date", "timestamp", "raw_content")
_CORRECTION_ONLY = ("is_correction", "target_entry_id", "correction_delta")


def parser_schema(inp: ParseInput) -> dict[str, Any]:
    """ParserOutput's schema for this call: `domain_data` (and a correction's delta) shaped by the loaded domain
    schemas, without the fields the activity overwrites and, outside correction mode, the correction fields.

    Sent as the grammar where the server takes a schema: with free-form objects a small model wrote a
    correction delta for a plain note, nested invented keys until max_tokens and never closed the object."""
    schema = inline_refs(json_schema_of(ParserOutput))
    props = dict(schema["properties"])
    data = log_json_schema(inp.domain_schemas)
    props["domain_data"] = data
    drop = _SET_BY_ACTIVITY + (() if inp.correction_mode else _CORRECTION_ONLY)
    if inp.correction_mode:
        props["correction_delta"] = {"anyOf": [data, {"type": "null"}]}
    schema["properties"] = {k: v for k, v in props.items() if k not in drop}
    schema["required"] = ["domain_data"]
    schema["additionalProperties"] = False
    return schema


async def _parse(inp: ParseInput) -> AgentResult[ParserOutput]:
    result = await PARSER.run(
        {"vocabulary": dump(inp.vocabulary), "schemas": _schema_text(inp.domain_schemas),
         "correction_mode": inp.correction_mode, "correction_target": inp.correction_target or "(none)",
         "raw_input": inp.raw_input, "timestamp": inp.timestamp.isoformat(),
         "global_context": inp.global_context or "(none)", "recent_entries": render_entries(inp.recent_entries)},
        offline_context={"text": inp.raw_input, "timestamp": inp.timestamp.isoformat(),
                         "domains": list(inp.domain_schemas), "vocabulary": inp.vocabulary,
                         "correction_mode": inp.correction_mode,
                         "recent": [{"id": e.id, "text": e.raw_content, "data": e.domain_data or {}}
                                    for e in inp.recent_entries]},
        schema=parser_schema(inp),
    )
    return AgentResult[ParserOutput](output=checked(result.output, inp), usage=result.usage)


@PARSER.activity
async def parse_log(inp: ParseInput) -> AgentResult[ParserOutput]:
    return await _parse(inp)


def _read_note(path: Path) -> tuple[str | None, str]:
    """(text, '') or (None, why it cannot be imported)."""
    try:
        if path.stat().st_size > MAX_IMPORT_FILE_BYTES:
            return None, f"larger than {MAX_IMPORT_FILE_BYTES} bytes; split it"
        return path.read_bytes().decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except OSError as exc:
        return None, f"cannot read ({exc.strerror or exc})"


_HINTS: dict[tuple[object, ...], JournalHints] = {}
_HINTS_LOCK = threading.Lock()


async def journal_context(directory: str, year: int | None, languages: list[str] | None = None) -> JournalHints:
    """What the whole journal settles (numeric date order, its years): every file of the import, listed as the
    import lists them, read as it reads them. Each batch works it out again, so a batch never depends on another."""
    from activities.query.storage import import_root, notes_list_import_files

    root = import_root(directory)
    files = await notes_list_import_files(ListImportInput(directory=directory))

    def hints() -> JournalHints:
        stamp = []
        for rel in files:
            try:
                st = (root / rel).stat()
                stamp.append((rel, st.st_size, st.st_mtime_ns))
            except OSError:
                stamp.append((rel, -1, 0))
        key = (directory, year, tuple(languages or ()), tuple(stamp))
        with _HINTS_LOCK:
            if key in _HINTS:  # every batch of one import asks: the journal is read once per worker, not per batch
                return _HINTS[key]
        texts = {rel: text for rel in files if (text := _read_note(root / rel)[0]) is not None}
        found = journal_hints(texts, year, frozenset(languages or ()))
        with _HINTS_LOCK:
            while len(_HINTS) >= 4:
                _HINTS.pop(next(iter(_HINTS)))
            _HINTS[key] = found
        return found

    return await asyncio.to_thread(hints)


@PARSER.activity(name="parse_log_batch", policy="long_agent")
async def parse_log_batch(inp: ImportBatchInput) -> ImportBatchResult:
    """Import: split each file into dated entries (rules/query/imports.py, with the whole journal's hints) and
    parse them, several at a time. An entry already stored (same date, same normalised text — from any folder or
    file name) is passed on as known and costs no LLM call."""
    from activities.query.import_identity import stored_keys
    from activities.query.storage import InvalidRequest, import_file, import_root, notes_repo

    root = import_root(inp.directory)    # inside the import roots, or the batch fails now (activities/query/paths.py)
    sem = asyncio.Semaphore(IMPORT_CONCURRENCY)
    result = ImportBatchResult()
    repo = notes_repo(inp.notes_dir)
    hints = await journal_context(inp.directory, inp.year, list(inp.languages))
    parsed_notes: list[ImportedNote] = []

    async def one(rel: str) -> None:
        try:
            path = import_file(root, rel)
        except InvalidRequest as err:
            result.failed.append(f"{rel[:200]}: {err}")
            return
        text, why = _read_note(path)
        if text is None:
            result.failed.append(f"{rel}: {why}")
            return
        if not clean_text(text).strip():
            result.failed.append(f"{rel}: empty")
            return
        digest = content_hash(text.encode("utf-8"))
        split = split_dated(text, rel, hints)
        if split.errors:
            result.failed.append(f"{rel}: " + "; ".join(split.errors[:3]) + " — fix the date and import again")
            return
        parts = split.parts
        if split.undated:
            day = None if inp.undated == "skip" else (inp.today or datetime.now(UTC).date()) \
                if inp.undated == "today" else datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).date()
            result.warnings.append(undated_message(rel, inp.undated, day, len(split.flags)))
        said = split.warnings  # an undated file's too: why each heading that looks like a date gave none
        result.warnings.extend(f"{rel}: {w}" for w in said[:MAX_WARNINGS_PER_FILE])
        if len(said) > MAX_WARNINGS_PER_FILE:
            result.warnings.append(f"{rel}: … and {len(said) - MAX_WARNINGS_PER_FILE} more notes on its dates "
                                   "(`colloquy notes import --dry-run` lists them all)")
        if split.undated:
            if day is None:
                result.skipped.append(rel)
                return
            parts = [undated_part(text, day, inp.undated)]
        if not parts:
            result.failed.append(f"{rel}: dated, but no text to import")
            return
        known = await asyncio.to_thread(stored_keys, repo, {p.day for p in parts})
        notes: list[ImportedNote] = []
        for i, part in enumerate(parts):
            ts = datetime.combine(part.day, part.at or time(0, 0), tzinfo=UTC)
            key = entry_key(part.day, part.text)
            if key in known:
                notes.append(ImportedNote(file=rel, raw="", timestamp=ts, parsed=ParserOutput(), part=i, key=key,
                                          known=True, source_hash=digest, timed=part.at is not None))
                continue
            async with sem:
                try:
                    parsed = await _parse(ParseInput(raw_input=part.text, timestamp=ts,
                                                     domain_schemas=inp.domain_schemas, vocabulary=inp.vocabulary))
                except ApplicationError as err:
                    if err.non_retryable:
                        result.failed.append(f"{rel}: {err.message}")
                        return
                    raise
            out = parsed.output
            where = f"imported from {rel}" + (f" (line {part.line})" if len(parts) > 1 else "")
            out = out.model_copy(update={"extraction_notes": [*out.extraction_notes, where]})
            notes.append(ImportedNote(file=rel, raw=part.text, timestamp=ts, parsed=out, timed=part.at is not None,
                                      source_hash=digest, part=i, key=key))
            result.usage.append(parsed.usage)
        parsed_notes.extend(notes)  # all parts parsed: the file is stored as a whole, or not at all
        result.hashes[rel] = digest
        activity.heartbeat(rel)

    await asyncio.gather(*(one(f) for f in inp.files))
    order = {f: i for i, f in enumerate(inp.files)}
    result.notes = sorted(parsed_notes, key=lambda n: (order[n.file], n.part))
    result.hashes = {f: result.hashes[f] for f in inp.files if f in result.hashes}
    for name in ("unchanged", "skipped"):
        getattr(result, name).sort(key=order.__getitem__)
    return result


# ------------------------------------------------------------------------------------ offline default
_LIFT = re.compile(r"\b(bench|bp|squat|squated|deadlift|dl|ohp)\w*\s+(\d+(?:\.\d+)?)\s*(lbs|kg)?\s*x\s*(\d+)"
                   r"(?:\s*x\s*(\d+))?", re.I)
_RUN = re.compile(r"\b(\d+(?:\.\d+)?)\s*(?:k\b|km\b)", re.I)
_MIN = re.compile(r"\b(\d+)\s*min", re.I)
_SLEEP = re.compile(r"slept\s+(\d+(?:\.\d+)?)\s*(?:hours|hrs|h)\b", re.I)
_PROTEIN = re.compile(r"(\d+)\s*g\s+protein", re.I)


@PARSER.offline
def _offline_parser(req: offline.OfflineRequest) -> ParserOutput:
    """Keyless default: a few regexes for the example app's schemas; extracts only what is written."""
    c = req.context
    text = str(c.get("text", ""))
    vocab = {k.lower(): v for k, v in (c.get("vocabulary") or {}).items()}
    domains = set(c.get("domains", []))
    ts = datetime.fromisoformat(c["timestamp"])
    data: dict[str, Any] = {}
    if "strength" in domains:
        lifts = []
        for m in _LIFT.finditer(text):
            item: dict[str, Any] = {"name": vocab.get(m[1].lower(), m[1].lower()), "weight": float(m[2])}
            if m[3]:
                item["unit"] = m[3].lower()
            if m[5]:
                item["sets"], item["reps"] = int(m[5]), int(m[4])
            else:
                item["reps"] = int(m[4])
            lifts.append(item)
        if lifts:
            data["strength"] = {"exercises": lifts}
    if "running" in domains and (run := _RUN.search(text)) and "run" in text.lower():
        item = {"distance_km": float(run[1])}
        if mins := _MIN.search(text):
            item["duration_min"] = float(mins[1])
        data["running"] = {"runs": [item]}
    if "nutrition" in domains and (p := _PROTEIN.search(text)):
        data["nutrition"] = {"meals": [{"protein_g": float(p[1])}]}
    base = next((d for d in ("general_fitness", "general") if d in domains), None)
    if base and (s := _SLEEP.search(text)):
        data[base] = {"sleep_hours": float(s[1])} if base == "general" else {}
    data = {k: v for k, v in data.items() if v}
    out = ParserOutput(date=ts.date(), timestamp=ts, tags=sorted(data), domain_data=data, raw_content=text,
                       confidence=0.7 if data else 0.3,
                       extraction_notes=[] if data else ["offline parser: nothing it recognizes"])
    if c.get("correction_mode"):
        nums = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)]
        target = None
        for e in reversed(c.get("recent", [])):
            if len(nums) > 1 and str(int(nums[1])) in e["text"]:
                target = e
                break
        out.is_correction = True
        if target is not None and nums:
            out.target_entry_id = target["id"]
            lifts = (target["data"].get("strength") or {}).get("exercises", [])
            hit = next((x for x in lifts if len(nums) > 1 and x.get("weight") == nums[1]), None)
            if hit:
                out.correction_delta = {"strength": {"exercises": [{"name": hit["name"], "weight": nums[0]}]}}
    return out

