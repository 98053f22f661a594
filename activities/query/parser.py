"""Parser (seed §11.9): raw log → structured data per domain schema; correction mode finds the target entry
and extracts the delta. The model's answer is checked before anything is stored: fields outside the schema or
of the wrong type are removed and flagged, values the input does not state are dropped (never invent data),
and raw_content is always the user's exact text."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.agents.base import AgentSpec
from activities.llm import offline
from activities.query.common import dump, render_entries
from models.common import AgentResult
from models.query import (
    ImportBatchInput,
    ImportBatchResult,
    ImportedNote,
    LogField,
    ParseInput,
    ParserOutput,
)
from rules.query.parsing import check_schema, drop_invented

PARSER = AgentSpec("parse_log", "query/parse_log.md", ParserOutput, tier="medium", role="writer",
                   policy="agent",
                   description="Query pipeline Parser: structured extraction per domain schema, corrections")
IMPORT_CONCURRENCY = 8
MAX_IMPORT_FILE_BYTES = 200_000


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
    )
    return AgentResult[ParserOutput](output=checked(result.output, inp), usage=result.usage)


@PARSER.activity
async def parse_log(inp: ParseInput) -> AgentResult[ParserOutput]:
    return await _parse(inp)


_DATE_IN_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def note_timestamp(path: Path) -> tuple[datetime, str | None]:
    """An imported note's date: from its file name (YYYY-MM-DD), else the file's modification time."""
    m = _DATE_IN_NAME.search(path.name)
    if m:
        try:
            return datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=UTC), None
        except ValueError:
            pass
    mtime = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    return (datetime.combine(mtime.date(), time(0, 0), tzinfo=UTC),
            f"no valid YYYY-MM-DD in the file name; dated by modification time {mtime.date()}")


@PARSER.activity(name="parse_log_batch", policy="long_agent")
async def parse_log_batch(inp: ImportBatchInput) -> ImportBatchResult:
    """Import: parse a batch of note files (each file one LOG), several at a time."""
    root = Path(inp.directory)
    sem = asyncio.Semaphore(IMPORT_CONCURRENCY)
    result = ImportBatchResult()

    async def one(rel: str) -> None:
        path = root / rel
        try:
            if path.stat().st_size > MAX_IMPORT_FILE_BYTES:
                result.failed.append(f"{rel}: larger than {MAX_IMPORT_FILE_BYTES} bytes; split it")
                return
            raw = path.read_text(encoding="utf-8").strip()
            ts, note = note_timestamp(path)
        except UnicodeDecodeError:
            result.failed.append(f"{rel}: not UTF-8 text")
            return
        except OSError as exc:
            result.failed.append(f"{rel}: cannot read ({exc.strerror or exc})")
            return
        if not raw:
            result.failed.append(f"{rel}: empty")
            return
        async with sem:
            try:
                parsed = await _parse(ParseInput(raw_input=raw, timestamp=ts, domain_schemas=inp.domain_schemas,
                                                 vocabulary=inp.vocabulary))
            except ApplicationError as err:
                if err.non_retryable:
                    result.failed.append(f"{rel}: {err.message}")
                    return
                raise
        out = parsed.output
        if note:
            out = out.model_copy(update={"extraction_notes": [*out.extraction_notes, note]})
        result.notes.append(ImportedNote(file=rel, raw=raw, timestamp=ts, parsed=out))
        result.usage.append(parsed.usage)
        activity.heartbeat(rel)

    await asyncio.gather(*(one(f) for f in inp.files))
    result.notes.sort(key=lambda n: inp.files.index(n.file))
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

