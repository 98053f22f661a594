"""StorageRepository (seed 001 §16.1–16.2): the only way the query pipeline touches the notes (the storage
activities in activities/query/storage.py expose it to workflows).

Layout under the notes root (COLLOQUY_NOTES_DIR, default .data/notes):
    logs/raw/YYYY/MM/YYYY-MM-DD.md       one `## HH:MM` section per entry, `## HH:MM [correction] → id` appended
    logs/parsed/YYYY/MM/YYYY-MM-DD.json  {"date", "entries": [{id, timestamp, domain_data, tags, ...}]}
    global-context.md                    the Observer's markdown (§7.7); pruned lines go to global-context-archive.md

Errors (§16.4 D): missing data → empty results; permission denied / disk full / other OS errors → StorageError
at once (non-retryable for permission and disk-full: retrying cannot help). Writes are atomic (temp file +
rename) and serialized per notes root (thread lock + fcntl lock file), so concurrent workflows never lose a
write. Files with names that are not real dates are skipped and reported in `warnings`.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import Any

from activities.query.context import apply_updates
from activities.query.notes_markdown import (
    _DAY_FILE,
    UNTIMED,
    _day_of,
    _escape,
    _heading_time,
    _months,
    _replace_section,
    _split_sections,
    _term,
    _timestamp,
)
from models.query.agents import ParserOutput
from models.query.parts import DateRange, Entry
from models.query.workflow import (
    NEEDS_PARSING,
    ApplyContextInput,
    ApplyContextResult,
    ReparsedNote,
    StoreEntryResult,
    StoreReparsedResult,
)
from rules.query.imports import clean_text
from rules.query.parsing import deep_merge
from rules.query.planning import expand_keywords
from rules.retry_classes import TRANSIENT, errno_class

STORAGE_ERROR = "StorageError"            # final (rules/retry_classes.py)
STORAGE_UNAVAILABLE = "StorageUnavailable"  # transient: retried under the activity's policy
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


class StorageError(Exception):
    """A storage failure the user must see (permission, disk full, corrupt layout)."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class InvalidRequest(ValueError):
    """A bad argument (reversed date range, unsafe glob): the caller's mistake, never retried."""


def _os_error(action: str, path: Path, exc: OSError) -> StorageError:
    if isinstance(exc, PermissionError) or exc.errno in (errno.EACCES, errno.EPERM):
        return StorageError(f"cannot {action} {path}: permission denied — fix the permissions of the notes "
                            f"directory (COLLOQUY_NOTES_DIR)")
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return StorageError(f"cannot {action} {path}: disk full — free space on the notes volume")
    if exc.errno == errno.EROFS:
        return StorageError(f"cannot {action} {path}: read-only file system")
    if exc.errno == errno.ENOTDIR:
        return StorageError(f"cannot {action} {path}: a part of the path is a file, not a directory — check "
                            f"COLLOQUY_NOTES_DIR")
    if isinstance(exc, IsADirectoryError):
        return StorageError(f"cannot {action} {path}: it is a directory, not a notes file")
    # anything else passes or not by its errno (rules/retry_classes.py): EIO, a timeout, a stale network mount pass
    return StorageError(f"cannot {action} {path}: {exc.strerror or exc}", retryable=errno_class(exc.errno) == TRANSIENT)


class StorageRepository:
    """Seed §16.2: get_entries_by_date_range, get_entries_by_pattern, search_entries, save_entry,
    get_global_context, update_global_context. Plain synchronous Python; activities run it in a thread."""

    def __init__(self, base_path: Path | str) -> None:
        self.base_path = Path(base_path)
        self.raw_root = self.base_path / "logs" / "raw"
        self.parsed_root = self.base_path / "logs" / "parsed"
        self.context_file = self.base_path / "global-context.md"
        self.archive_file = self.base_path / "global-context-archive.md"
        self.warnings: list[str] = []

    # ------------------------------------------------------------------------------------------ paths
    def raw_path(self, day: date) -> Path:
        return self.raw_root / f"{day:%Y}" / f"{day:%m}" / f"{day.isoformat()}.md"

    def parsed_path(self, day: date) -> Path:
        return self.parsed_root / f"{day:%Y}" / f"{day:%m}" / f"{day.isoformat()}.json"

    # ------------------------------------------------------------------------------------------- reads
    def get_entries_by_date_range(self, start: date, end: date) -> list[Entry]:
        """All entries with start <= date <= end, oldest first. Missing days are simply absent."""
        if start > end:
            raise InvalidRequest(f"date range starts after it ends: {start} > {end}")
        entries: list[Entry] = []
        for year, month in _months(start, end):
            folder = self.raw_root / f"{year:04d}" / f"{month:02d}"
            for day, path in self._day_files(folder.glob("*.md")):
                if start <= day <= end:
                    entries.extend(self._read_day(day, path))
        return entries

    def get_entries_by_pattern(self, pattern: str) -> list[Entry]:
        """Entries of the raw day files matching a glob relative to logs/raw, e.g. '2026/01/**/*.md'."""
        if pattern.startswith("/") or ".." in Path(pattern).parts:
            raise InvalidRequest(f"pattern must stay inside the notes directory: {pattern!r}")
        if not self.raw_root.exists():
            return []
        entries: list[Entry] = []
        for day, path in self._day_files(self.raw_root.glob(pattern)):
            entries.extend(self._read_day(day, path))
        return entries

    def search_entries(self, keywords: list[str], date_range: DateRange | None = None,
                       match_all: bool = False) -> list[Entry]:
        """Entries whose text (raw, corrections, parsed data) contains the keywords (any, or all)."""
        terms = [k.strip().lower() for k in keywords if k.strip()]
        if not terms:
            return []
        pool = (self.get_entries_by_date_range(date_range.start, date_range.end) if date_range
                else self.get_entries_by_pattern("**/*.md"))
        found = []
        matchers = [_term(t) for t in terms]
        for e in pool:
            hay = " ".join([e.raw_content, *e.corrections, " ".join(e.tags),
                            json.dumps(e.domain_data or {}, default=str)]).lower()
            hits = [bool(m.search(hay)) for m in matchers]
            if (all(hits) if match_all else any(hits)):
                found.append(e)
        return found

    def get_entries_by_topic(self, topic: str, vocabulary: dict[str, str],
                             date_range: DateRange | None = None) -> list[Entry]:
        """A topic is a domain name (entries parsed by that domain) or a subject (tags + keyword search)."""
        t = topic.strip().lower()
        pool = (self.get_entries_by_date_range(date_range.start, date_range.end) if date_range
                else self.get_entries_by_pattern("**/*.md"))
        words = [_term(w) for w in expand_keywords([t], vocabulary)]
        out = []
        for e in pool:
            domains = {k.lower() for k in (e.domain_data or {})}
            tags = {x.lower() for x in e.tags}
            text = e.raw_content.lower()
            if t in domains or t in tags or any(w.search(text) for w in words):
                out.append(e)
        return out

    def _day_files(self, paths: Iterator[Path]) -> list[tuple[date, Path]]:
        out = []
        for path in sorted(paths):
            if not path.is_file() and not path.is_dir():
                continue
            m = _DAY_FILE.match(path.name)
            if not m:
                self._warn(f"skipped {path.name}: not a YYYY-MM-DD.md day file")
                continue
            try:
                day = date(int(m[1]), int(m[2]), int(m[3]))
            except ValueError:
                self._warn(f"skipped {path.name}: {m[0][:-3]} is not a real date")
                continue
            out.append((day, path))
        return out

    def _warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)

    def _read_text(self, path: Path) -> str | None:
        try:
            data = _read_bytes(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _os_error("read", path, exc) from exc
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            self._warn(f"{path.name}: not valid UTF-8; undecodable bytes shown as \ufffd")
            return data.decode("utf-8", errors="replace")

    def _read_day(self, day: date, raw_path: Path) -> list[Entry]:
        text = self._read_text(raw_path)
        if text is None:
            return []
        sections = _split_sections(text)
        parsed = self._read_parsed(day)
        by_id = {p.get("id"): p for p in parsed.get("entries", [])}
        entries: list[Entry] = []
        corrections: dict[str, list[str]] = {}
        n = 0
        removed: set[str] = set()
        for hhmm, target, body in sections:
            if target is not None or hhmm.endswith("!"):
                key = target or (entries[-1].id if entries else "")
                corrections.setdefault(key, []).append(body)
                continue
            n += 1
            entry_id = f"{day.isoformat()}#{n}"
            p = by_id.get(entry_id, {})
            if p.get("removed"):  # its source file was re-imported without it: kept on disk, not read
                removed.add(entry_id)
                continue
            ts = _timestamp(day, hhmm)
            entries.append(Entry(id=entry_id, date=day, timestamp=ts, raw_content=body,
                                 domain_data=p.get("domain_data"), tags=p.get("tags", []),
                                 uncertain_fields=p.get("uncertain_fields", []),
                                 extraction_notes=p.get("extraction_notes", []),
                                 source_file=str(raw_path.relative_to(self.base_path)),
                                 source_key=p.get("source_key"), timed=not hhmm.startswith(UNTIMED)))
        for e in entries:
            e.corrections = corrections.get(e.id, [])
        return entries

    def _read_parsed(self, day: date) -> dict[str, Any]:
        path = self.parsed_path(day)
        text = self._read_text(path)
        if text is None:
            return {}
        try:
            data = json.loads(text)
        except ValueError:
            self._warn(f"{path.name}: parsed data is not valid JSON; raw notes are used without it")
            return {}
        return data if isinstance(data, dict) else {}

    # ------------------------------------------------------------------------------------------ writes
    def save_entry(self, entry: Entry, correction: ParserOutput | None = None) -> StoreEntryResult:
        """Upsert (§16.2). New entry: a raw `## HH:MM` section + its parsed record. Correction: a
        `## HH:MM [correction] → <target id>` section appended to the target's raw day file (the original text
        stays), and the target's parsed data updated with the delta (the previous values kept in history)."""
        with self._locked():
            if correction is not None:
                return self._save_correction(entry, correction)
            return self._save_new_unlocked(entry)

    def _save_correction(self, entry: Entry, correction: ParserOutput) -> StoreEntryResult:
        target_id = correction.target_entry_id or ""
        target_day = _day_of(target_id)
        target = None
        if target_day is not None:
            target = next((e for e in self.get_entries_by_date_range(target_day, target_day) if e.id == target_id),
                          None)
        if target is None:
            # Unknown target: keep the correction text as a note of its own day, flagged — never lose it.
            kept = entry.model_copy(update={"uncertain_fields": ["correction_target"],
                                            "tags": [*entry.tags, "unresolved-correction"]})
            result = self._save_new_unlocked(kept)
            result.note = (f"correction target {target_id or '(none)'} not found; the correction was saved as "
                           f"entry {result.entry_id} and flagged unresolved-correction")
            return result
        day = target.date
        raw_path = self.raw_path(day)
        existing = self._read_text(raw_path) or f"# {day.isoformat()}\n"
        section = (f"\n## {entry.timestamp:%H:%M} [correction] → {target_id}\n"
                   f"{_escape(clean_text(entry.raw_content).strip())}\n")
        parsed = self._read_parsed(day) or {"date": day.isoformat(), "entries": []}
        record = next((p for p in parsed.setdefault("entries", []) if p.get("id") == target_id), None)
        if record is None:
            record = {"id": target_id, "timestamp": target.timestamp.isoformat(), "tags": [], "domain_data": {},
                      "uncertain_fields": [], "corrections": []}
            parsed["entries"].append(record)
        if entry.source_key and any(c.get("source_key") == entry.source_key for c in record.get("corrections", [])):
            return StoreEntryResult(entry_id=target_id, raw_file=str(raw_path.relative_to(self.base_path)),
                                    parsed_file=str(self.parsed_path(day).relative_to(self.base_path)),
                                    corrected=True, note="already stored")
        previous = record.get("domain_data") or {}
        delta = correction.correction_delta or {}
        record["domain_data"] = deep_merge(previous, delta) if delta else previous
        record.setdefault("corrections", []).append({
            "at": entry.timestamp.isoformat(), "text": clean_text(entry.raw_content).strip(), "delta": delta,
            "previous": previous, "source_key": entry.source_key,
        })
        self._atomic_write(raw_path, existing.rstrip("\n") + "\n" + section)
        self._atomic_write(self.parsed_path(day), json.dumps(parsed, indent=2, default=str) + "\n")
        return StoreEntryResult(entry_id=target_id, raw_file=str(raw_path.relative_to(self.base_path)),
                                parsed_file=str(self.parsed_path(day).relative_to(self.base_path)),
                                corrected=True)

    def _save_new_unlocked(self, entry: Entry) -> StoreEntryResult:
        # Called with the lock held (save_entry / _save_correction).
        day = entry.date
        raw_path = self.raw_path(day)
        parsed = self._read_parsed(day) or {"date": day.isoformat(), "entries": []}
        if entry.source_key:
            same = next((p for p in parsed.get("entries", []) if p.get("source_key") == entry.source_key), None)
            if same is not None:  # a retried activity: already written
                return StoreEntryResult(entry_id=same["id"], raw_file=str(raw_path.relative_to(self.base_path)),
                                        parsed_file=str(self.parsed_path(day).relative_to(self.base_path)),
                                        note="already stored")
        existing = self._read_text(raw_path) or f"# {day.isoformat()}\n"
        n = sum(1 for s in _split_sections(existing) if s[1] is None and not s[0].endswith("!")) + 1
        entry_id = f"{day.isoformat()}#{n}"
        section = f"\n## {_heading_time(entry)}\n{_escape(clean_text(entry.raw_content).strip())}\n"
        parsed.setdefault("entries", []).append({
            "id": entry_id, "timestamp": entry.timestamp.isoformat(), "tags": entry.tags,
            "domain_data": entry.domain_data or {}, "uncertain_fields": entry.uncertain_fields,
            "extraction_notes": entry.extraction_notes, "corrections": [], "source_key": entry.source_key,
        })
        self._atomic_write(raw_path, existing.rstrip("\n") + "\n" + section)
        self._atomic_write(self.parsed_path(day), json.dumps(parsed, indent=2, default=str) + "\n")
        return StoreEntryResult(entry_id=entry_id, raw_file=str(raw_path.relative_to(self.base_path)),
                                parsed_file=str(self.parsed_path(day).relative_to(self.base_path)))

    # ------------------------------------------------------------------------------ edit-aware import
    @property
    def manifest_file(self) -> Path:
        return self.base_path / "imports.json"

    def read_manifest(self) -> dict[str, Any]:
        """{"sources": {full source path: {"hash", "entries": [ids], "imported_at", "history": [...]}}}."""
        text = self._read_text(self.manifest_file)
        try:
            data = json.loads(text) if text else {}
        except ValueError:
            self._warn("imports.json is not valid JSON; every file is treated as new")
            data = {}
        return data if isinstance(data, dict) and isinstance(data.get("sources"), dict) else {"sources": {}}

    def save_import(self, source: str, content_hash: str, entries: list[Entry], at: datetime) -> str:
        """Store one source file's entries: "new" (first import), "unchanged" (same content hash: nothing
        written) or "updated" (edited: its earlier entries are replaced in place — same ids where the day
        still has an entry, the earlier text and data kept in the parsed record's `history` — and entries the
        file no longer has are marked removed, never duplicated)."""
        with self._locked():
            manifest = self.read_manifest()
            old = manifest["sources"].get(source)
            if old and old.get("hash") == content_hash:
                return "unchanged"
            old_ids: list[str] = list((old or {}).get("entries", []))
            by_day: dict[date, list[str]] = {}
            for i in old_ids:
                d = _day_of(i)
                if d is not None:
                    by_day.setdefault(d, []).append(i)
            ids: list[str] = []
            for e in entries:
                reuse = by_day.get(e.date)
                if reuse:
                    ids.append(self._replace_unlocked(reuse.pop(0), e, at, content_hash))
                else:
                    ids.append(self._save_new_unlocked(e).entry_id)
            for leftover in (i for rest in by_day.values() for i in rest):
                self._mark_removed_unlocked(leftover, at, source)
            history = list((old or {}).get("history", []))
            if old:
                history.append({"hash": old.get("hash"), "entries": old_ids, "imported_at": old.get("imported_at")})
            manifest["sources"][source] = {"hash": content_hash, "entries": ids, "imported_at": at.isoformat(),
                                           "history": history[-20:]}
            self._atomic_write(self.manifest_file, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
            return "updated" if old else "new"

    def _replace_unlocked(self, entry_id: str, entry: Entry, at: datetime, content_hash: str) -> str:
        day = entry.date
        raw_path = self.raw_path(day)
        text = self._read_text(raw_path) or ""
        n = int(entry_id.split("#")[1])
        replaced = _replace_section(text, n, _heading_time(entry), _escape(clean_text(entry.raw_content).strip()))
        if replaced is None:  # the day file changed under us: add it as a new entry instead
            return self._save_new_unlocked(entry).entry_id
        new_text, previous_raw = replaced
        parsed = self._read_parsed(day) or {"date": day.isoformat(), "entries": []}
        record = next((p for p in parsed.setdefault("entries", []) if p.get("id") == entry_id), None)
        if record is None:
            record = {"id": entry_id}
            parsed["entries"].append(record)
        history = list(record.get("history", []))
        history.append({"replaced_at": at.isoformat(), "raw": previous_raw,
                        "domain_data": record.get("domain_data") or {}, "source_key": record.get("source_key")})
        record.update({"timestamp": entry.timestamp.isoformat(), "tags": entry.tags,
                       "domain_data": entry.domain_data or {}, "uncertain_fields": entry.uncertain_fields,
                       "extraction_notes": entry.extraction_notes, "source_key": entry.source_key,
                       "history": history, "removed": False})
        self._atomic_write(raw_path, new_text)
        self._atomic_write(self.parsed_path(day), json.dumps(parsed, indent=2, default=str) + "\n")
        return entry_id

    def _mark_removed_unlocked(self, entry_id: str, at: datetime, source: str) -> None:
        day = _day_of(entry_id)
        if day is None:
            return
        parsed = self._read_parsed(day) or {"date": day.isoformat(), "entries": []}
        record = next((p for p in parsed.setdefault("entries", []) if p.get("id") == entry_id), None)
        if record is None:
            record = {"id": entry_id}
            parsed["entries"].append(record)
        record.update({"removed": True, "removed_at": at.isoformat(),
                       "removed_reason": f"no longer in {Path(source).name} when it was re-imported"})
        self._atomic_write(self.parsed_path(day), json.dumps(parsed, indent=2, default=str) + "\n")

    # ------------------------------------------------------------------- notes parsed later (needs-parsing)
    def needs_parsing(self, limit: int, exclude_source_key: str | None = None) -> tuple[list[Entry], int]:
        """Notes kept as written after a Router failure (tagged needs-parsing): (up to `limit` of them — fewest
        failed Parser attempts first, then oldest — as stored, every flagged note's count). A note the Parser
        keeps failing on therefore never blocks the ones behind it."""
        if not self.parsed_root.exists():
            return [], 0
        flagged: list[tuple[int, date, int, str]] = []
        for path in sorted(self.parsed_root.rglob("*.json")):
            text = self._read_text(path)
            if not text or NEEDS_PARSING not in text:  # the common case: no JSON decoding at all
                continue
            try:
                data = json.loads(text)
            except ValueError:
                self._warn(f"{path.name}: parsed data is not valid JSON; its notes are not re-parsed")
                continue
            for rec in data.get("entries", []) if isinstance(data, dict) else []:
                entry_id = str(rec.get("id") or "")
                day = _day_of(entry_id)
                if (day is None or NEEDS_PARSING not in (rec.get("tags") or []) or rec.get("removed")
                        or (exclude_source_key and rec.get("source_key") == exclude_source_key)):
                    continue
                n = entry_id.split("#", 1)[1] if "#" in entry_id else "0"
                flagged.append((int(rec.get("parse_failures") or 0), day, int(n) if n.isdigit() else 0, entry_id))
        flagged.sort()
        chosen = flagged[:max(0, limit)]
        entries: list[Entry] = []
        days: dict[date, dict[str, Entry]] = {}
        for _, day, _, entry_id in chosen:
            if day not in days:
                days[day] = {e.id: e for e in self._read_day(day, self.raw_path(day))}
            if entry_id in days[day]:
                entries.append(days[day][entry_id])
        return entries, len(flagged)

    def save_reparsed(self, notes: list[ReparsedNote], at: datetime) -> StoreReparsedResult:
        """Store the Parser's answers for flagged notes, in place (as the edit-aware import replaces entries):
        the flag removed, the data set, the raw text and the earlier (empty) data kept in the record's `history`.
        A failed parse keeps the flag and records the reason and the count of failed attempts. Idempotent per
        `at` (a retried activity writes once and reports the same)."""
        out = StoreReparsedResult()
        stamp = at.isoformat()
        by_day: dict[date, list[ReparsedNote]] = {}
        for note in notes:
            day = _day_of(note.entry_id)
            if day is None:
                out.gone.append(note.entry_id)
            else:
                by_day.setdefault(day, []).append(note)
        with self._locked():
            for day, group in sorted(by_day.items()):
                parsed = self._read_parsed(day)
                records = {p.get("id"): p for p in parsed.get("entries", [])}
                raw = {e.id: e.raw_content for e in self._read_day(day, self.raw_path(day))}
                changed = False
                for note in group:
                    rec = records.get(note.entry_id)
                    flagged = rec is not None and NEEDS_PARSING in (rec.get("tags") or [])
                    if rec is None or note.entry_id not in raw:
                        out.gone.append(note.entry_id)
                    elif note.parsed is None:
                        if flagged and rec.get("last_parse_attempt") != stamp:
                            rec["parse_failures"] = int(rec.get("parse_failures") or 0) + 1
                            rec["last_parse_error"] = note.error or "the Parser failed"
                            rec["last_parse_attempt"] = stamp
                            changed = True
                        (out.still_flagged if flagged else out.gone).append(note.entry_id)
                    elif flagged:
                        p = note.parsed
                        history = list(rec.get("history", []))
                        history.append({"replaced_at": stamp, "raw": raw[note.entry_id],
                                        "domain_data": rec.get("domain_data") or {}, "tags": rec.get("tags") or [],
                                        "source_key": rec.get("source_key"),
                                        "reason": "parsed later: the Router had failed when it was written"})
                        tags = [t for t in rec.get("tags") or [] if t != NEEDS_PARSING]
                        rec.update({"tags": list(dict.fromkeys([*tags, *p.tags])), "domain_data": p.domain_data,
                                    "uncertain_fields": p.uncertain_fields,
                                    "extraction_notes": [*p.extraction_notes, f"parsed later, at {stamp}"],
                                    "history": history, "parsed_at": stamp})
                        rec.pop("last_parse_error", None)
                        changed = True
                        out.parsed.append(note.entry_id)
                    elif rec.get("parsed_at") == stamp:  # this very store, retried
                        out.parsed.append(note.entry_id)
                    else:
                        out.gone.append(note.entry_id)
                if changed:
                    self._atomic_write(self.parsed_path(day), json.dumps(parsed, indent=2, default=str) + "\n")
        return out

    # ---------------------------------------------------------------------------------- global context
    def get_global_context(self) -> str:
        return self._read_text(self.context_file) or ""

    def update_global_context(self, content: str) -> None:
        with self._locked():
            self._atomic_write(self.context_file, content)

    def apply_context_updates(self, inp: ApplyContextInput) -> ApplyContextResult:
        """Read-modify-write of the global context under the lock (concurrent Observers never lose updates)."""
        with self._locked():
            outcome = apply_updates(self.get_global_context(), inp.updates, inp.today, inp.max_tokens)
            if outcome.applied:
                self._atomic_write(self.context_file, outcome.text)
            if outcome.archived:
                old = self._read_text(self.archive_file) or "# Global Context Archive\n"
                block = f"\n## archived {inp.today.isoformat()} (version {outcome.version})\n" + "\n".join(
                    outcome.archived) + "\n"
                self._atomic_write(self.archive_file, old.rstrip("\n") + "\n" + block)
        return ApplyContextResult(applied=outcome.applied, skipped=outcome.skipped, archived=outcome.archived,
                                  tokens=outcome.tokens, version=outcome.version)

    # --------------------------------------------------------------------------------------- plumbing
    def _thread_lock(self) -> threading.Lock:
        key = str(self.base_path.resolve())
        with _LOCKS_GUARD:
            return _LOCKS.setdefault(key, threading.Lock())

    @contextmanager
    def _locked(self) -> Iterator[None]:
        lock = self._thread_lock()
        with lock:
            try:
                self.base_path.mkdir(parents=True, exist_ok=True)
                fh = open(self.base_path / ".notes.lock", "a")  # noqa: SIM115
            except OSError as exc:
                raise _os_error("lock", self.base_path, exc) from exc
            try:
                fcntl.flock(fh, fcntl.LOCK_EX)
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)
                fh.close()

    def _atomic_write(self, path: Path, text: str) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                _write_fd(fd, text)
                os.replace(tmp, path)
            except BaseException:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise
        except OSError as exc:
            raise _os_error("write", path, exc) from exc


def _read_bytes(path: Path) -> bytes:
    """The one place notes are read from disk (tests make it fail the way a real disk does)."""
    return path.read_bytes()


def _write_fd(fd: int, text: str) -> None:
    """The one place notes reach the disk: write, flush, fsync (a temp file, renamed afterwards)."""
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
