"""The storage activities (policy kind "storage") that expose the notes to workflows. The notes themselves:
`notes_repository.StorageRepository` (layout, errors, atomic writes), `notes_markdown` (the day files' format),
`notes_catalog` (the domain catalog). Their names are re-exported here for the callers that import them from here."""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.artifacts import store as artifact_store
from activities.query.import_identity import finish_import, save_by_content
from activities.query.notes_catalog import domain_dirs, load_catalog
from activities.query.notes_markdown import UNTIMED
from activities.query.notes_repository import (
    STORAGE_ERROR,
    STORAGE_UNAVAILABLE,
    InvalidRequest,
    StorageError,
    StorageRepository,
    _os_error,
)
from activities.query.paths import import_dir, import_file, notes_dir
from models.query.parts import DomainCatalog, Entry
from models.query.workflow import (
    ApplyContextInput,
    ApplyContextResult,
    FinishImportInput,
    FinishImportResult,
    ImportedNote,
    ListImportInput,
    LoadDomainsInput,
    NeedsParsingInput,
    NeedsParsingResult,
    NotesLocation,
    RecentEntriesInput,
    StoreBatchInput,
    StoreBatchResult,
    StoreEntryInput,
    StoreEntryResult,
    StoreReparsedInput,
    StoreReparsedResult,
)
from rules.query.imports import IMPORT_SUFFIXES

__all__ = ["STORAGE_ACTIVITIES", "STORAGE_ERROR", "STORAGE_UNAVAILABLE", "UNTIMED", "InvalidRequest", "StorageError",
           "StorageRepository", "domain_dirs", "import_file", "import_root", "load_catalog", "load_entries",
           "notes_dir", "notes_repo"]


def _application_error(exc: Exception) -> ApplicationError:
    if isinstance(exc, StorageError):
        if exc.retryable:  # its own type: the retry policies list StorageError as final (rules/retry_classes.py)
            return ApplicationError(str(exc), type=STORAGE_UNAVAILABLE)
        return ApplicationError(str(exc), type=STORAGE_ERROR, non_retryable=True)
    return ApplicationError(str(exc), type="ValidationError", non_retryable=True)


def notes_repo(explicit: str | None) -> StorageRepository:
    """The store of a request's notes folder (activities/query/paths.py), or a non-retryable ValidationError."""
    try:
        return StorageRepository(notes_dir(explicit))
    except InvalidRequest as exc:
        raise _application_error(exc) from None


def import_root(directory: str) -> Path:
    """An import's folder inside the import roots (activities/query/paths.py), or a non-retryable ValidationError."""
    try:
        return import_dir(directory)
    except InvalidRequest as exc:
        raise _application_error(exc) from None


async def _in_thread(fn: Any, *args: Any) -> Any:
    try:
        return await asyncio.to_thread(fn, *args)
    except (StorageError, InvalidRequest) as exc:
        raise _application_error(exc) from None


@activity.defn(name="notes_load_domains")
async def notes_load_domains(inp: LoadDomainsInput) -> DomainCatalog:
    """The app's domain modules from YAML: domains/base.yaml + apps/<app_id>/app.yaml (base + domains)."""
    return await _in_thread(load_catalog, inp.app_id)


@activity.defn(name="notes_read_global_context")
async def notes_read_global_context(inp: NotesLocation) -> str:
    repo = notes_repo(inp.notes_dir)
    return await _in_thread(repo.get_global_context)


@activity.defn(name="notes_apply_context_updates")
async def notes_apply_context_updates(inp: ApplyContextInput) -> ApplyContextResult:
    repo = notes_repo(inp.notes_dir)
    return await _in_thread(repo.apply_context_updates, inp)


@activity.defn(name="notes_recent_entries")
async def notes_recent_entries(inp: RecentEntriesInput) -> list[Entry]:
    """The last `days` days of entries (newest last), for the Parser's correction mode."""
    repo = notes_repo(inp.notes_dir)
    entries = await _in_thread(repo.get_entries_by_date_range, inp.until - timedelta(days=inp.days), inp.until)
    return entries[-inp.limit:]


@activity.defn(name="notes_store_entry")
async def notes_store_entry(inp: StoreEntryInput) -> StoreEntryResult:
    """Save a LOG (raw text exactly as the user wrote it + the checked parsed data) or a CORRECTION."""
    repo = notes_repo(inp.notes_dir)
    parsed = inp.parsed or inp.correction
    day = inp.timestamp.date()
    entry = Entry(id="", date=day, timestamp=inp.timestamp, raw_content=inp.raw_input,
                  domain_data=(inp.parsed.domain_data if inp.parsed else None),
                  tags=[*(parsed.tags if parsed else []), *inp.tags],
                  uncertain_fields=(parsed.uncertain_fields if parsed else []),
                  extraction_notes=(inp.parsed.extraction_notes if inp.parsed else []), source_key=inp.source_key)
    return await _in_thread(repo.save_entry, entry, inp.correction)


@activity.defn(name="notes_needs_parsing")
async def notes_needs_parsing(inp: NeedsParsingInput) -> NeedsParsingResult:
    """The notes kept unparsed after a Router failure that the next run should parse (see needs_parsing)."""
    repo = notes_repo(inp.notes_dir)
    entries, total = await _in_thread(repo.needs_parsing, inp.limit, inp.exclude_source_key)
    return NeedsParsingResult(entries=entries, total=total)


@activity.defn(name="notes_store_reparsed")
async def notes_store_reparsed(inp: StoreReparsedInput) -> StoreReparsedResult:
    """Flagged notes parsed later: updated in place (flag removed, history kept), or kept flagged with the reason."""
    repo = notes_repo(inp.notes_dir)
    return await _in_thread(repo.save_reparsed, inp.notes, inp.at)


@activity.defn(name="notes_list_import_files")
async def notes_list_import_files(inp: ListImportInput) -> list[str]:
    """The note files under a directory (recursively, .md/.txt/.markdown/.org), sorted, relative to it."""
    if not inp.directory.strip():
        raise _application_error(InvalidRequest("no import directory given (an empty path is not one)"))
    root = import_root(inp.directory)

    def inside(path: Path, real_root: Path) -> bool:
        """A symlink is followed only when its target stays inside the chosen folder."""
        return path.resolve().is_relative_to(real_root)

    def scan() -> list[str]:
        if not root.is_dir():
            raise InvalidRequest(f"import directory {root} does not exist or is not a directory")
        try:
            real_root = root.resolve()
            return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                          if p.is_file() and p.suffix.lower() in IMPORT_SUFFIXES and not p.name.startswith(".")
                          and inside(p, real_root))
        except OSError as exc:
            raise _os_error("list", root, exc) from exc

    return await _in_thread(scan)


@activity.defn(name="notes_store_batch")
async def notes_store_batch(inp: StoreBatchInput) -> StoreBatchResult:
    """Import: store parsed notes (idempotent per file, so a retried batch never duplicates entries)."""
    repo = notes_repo(inp.notes_dir)

    def entry_of(note: ImportedNote) -> Entry:
        key = (note.key if note.key else f"{note.file}\n{note.raw}" if note.source_hash is None
               else f"{note.file}#{note.part}:{note.source_hash}")
        return Entry(id="", date=note.timestamp.date(), timestamp=note.timestamp, raw_content=note.raw,
                     domain_data=note.parsed.domain_data, tags=note.parsed.tags,
                     uncertain_fields=note.parsed.uncertain_fields, extraction_notes=note.parsed.extraction_notes,
                     source_key="import:" + hashlib.sha1(key.encode()).hexdigest()[:16], timed=note.timed)

    def save_all() -> StoreBatchResult:
        out = StoreBatchResult()
        if not inp.hashes:  # an import started before edit-aware import: one entry per note, as then
            for note in inp.notes:
                out.stored.append(repo.save_entry(entry_of(note)).entry_id)
            return out
        at = datetime.now(UTC)
        root = import_root(inp.directory) if inp.directory else Path(".").resolve()
        if inp.import_id is not None and all(n.key for n in inp.notes):  # content identity (import_identity.py)
            files = {file: [(n.key or "", None if n.known else entry_of(n))
                            for n in sorted((n for n in inp.notes if n.file == file), key=lambda n: n.part)]
                     for file in inp.hashes}
            return save_by_content(repo, str(root), inp.import_id, files, inp.hashes, at)
        for file, digest in inp.hashes.items():
            mine = sorted((n for n in inp.notes if n.file == file), key=lambda n: n.part)
            outcome = repo.save_import(str(root / file), digest, [entry_of(n) for n in mine], at)
            getattr(out, outcome).append(file)
            if outcome != "unchanged":
                out.stored.extend(f"{file}#{n.part}" for n in mine)
        return out

    return await _in_thread(save_all)


@activity.defn(name="notes_finish_import")
async def notes_finish_import(inp: FinishImportInput) -> FinishImportResult:
    """The end of an import: the journal's entries it never met (their source vanished) — reported, and with
    --prune marked removed, history kept (import_identity.py)."""
    repo = notes_repo(inp.notes_dir)
    root = str(import_root(inp.directory))
    return await _in_thread(finish_import, repo, root, inp.import_id, inp.prune, datetime.now(UTC))


def load_entries(refs: list[Any], only: list[str] | None = None) -> list[Entry]:
    """For agent activities: the entries retrievals stored in the artifact store (deduplicated across refs),
    optionally only the given ids (a chunk)."""
    out: dict[str, Entry] = {}
    wanted = set(only) if only is not None else None
    for ref in refs:
        for item in json.loads(artifact_store().get(ref)):
            e = Entry.model_validate(item)
            if wanted is None or e.id in wanted:
                out.setdefault(e.id, e)
    return sorted(out.values(), key=lambda e: (e.date, e.timestamp, e.id))


STORAGE_ACTIVITIES = [notes_load_domains, notes_read_global_context, notes_apply_context_updates,
                      notes_recent_entries, notes_store_entry, notes_needs_parsing, notes_store_reparsed]
