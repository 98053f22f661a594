"""Imported entries identified by their content (date + normalised text), not by the path they came from.

The import manifest (`imports.json` under the notes root) keeps, besides the per-file `sources` of earlier
imports, `entries`: {entry key: {"id", "source" (full path), "root" (the import folder), "import" (the import
that last saw it), "at", "removed"?}}, `lineage`: {folder: [the folders whose entries an import of it met]} (a
journal copied or moved elsewhere is the same journal) and `imports`: {import id: {"root", "started"}}. So:
- an entry whose date and text are already stored is *unchanged* — from a copied folder, a renamed file or a fresh
  export alike — and nothing is written for it but its new whereabouts in the manifest (no history record);
- an entry of a file imported before from the same path, whose text changed, replaces that file's entry of the same
  day in place (earlier text kept in the record's history);
- anything else is *new*;
- at the end, entries of the journal that no file has any more are *vanished*: reported, and with `--prune` marked
  removed (kept on disk with their history, no longer read).
"""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models.query.parts import Entry
from models.query.workflow import MAX_VANISHED_LISTED, FinishImportResult, StoreBatchResult
from rules.query.imports import entry_key

if TYPE_CHECKING:
    from activities.query.storage import StorageRepository


def _entries_index(repo: StorageRepository, manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """manifest["entries"], built once from an older manifest's per-file `sources` (their stored text)."""
    index = manifest.get("entries")
    if isinstance(index, dict):
        return index
    index = {}
    for source, rec in (manifest.get("sources") or {}).items():
        for entry_id in rec.get("entries", []) if isinstance(rec, dict) else []:
            e = _stored(repo, entry_id)
            if e is not None:
                index[entry_key(e.date, e.raw_content)] = {"id": e.id, "source": source, "root": None,
                                                           "import": None, "at": rec.get("imported_at")}
    manifest["entries"] = index
    return index


def _stored(repo: StorageRepository, entry_id: str) -> Entry | None:
    try:
        day = date.fromisoformat(entry_id.split("#", 1)[0])
    except ValueError:
        return None
    return next((e for e in repo._read_day(day, repo.raw_path(day)) if e.id == entry_id), None)


def stored_keys(repo: StorageRepository, days: set[date]) -> dict[str, str]:
    """{entry key: entry id} of the live entries stored on these days (any entry: imported or typed)."""
    out: dict[str, str] = {}
    for day in sorted(days):
        for e in repo._read_day(day, repo.raw_path(day)):
            out.setdefault(entry_key(e.date, e.raw_content), e.id)
    return out


def save_by_content(repo: StorageRepository, root: str, import_id: str, files: dict[str, list[tuple[str, Entry | None]]],
                    digests: dict[str, str], at: datetime) -> StoreBatchResult:
    """Store one batch of an import by content identity (see the module docstring). `files`: file (relative to
    `root`) → its entries in order as (key, Entry, or None for an entry the parser skipped as already stored)."""
    out = StoreBatchResult()
    with repo._locked():
        manifest = repo.read_manifest()
        index = _entries_index(repo, manifest)
        imports = manifest.setdefault("imports", {})
        imports.setdefault(import_id, {"root": root, "started": at.isoformat()})
        lineage: list[str] = manifest.setdefault("lineage", {}).setdefault(root, [])
        days = {date.fromisoformat(k.split(":", 1)[0]) for parts in files.values() for k, _ in parts}
        live = stored_keys(repo, days)
        for file, parts in files.items():
            source = str(Path(root) / file)
            fresh: list[tuple[int, str, Entry]] = []
            for n, (key, entry) in enumerate(parts):
                rec = index.get(key)
                entry_id = live.get(key)
                if entry_id is not None:
                    if rec is not None and rec.get("root") not in (None, root) and rec["root"] not in lineage:
                        lineage.append(rec["root"])  # the journal was copied or moved here from there
                    index[key] = {**(rec or {}), "id": entry_id, "source": source, "root": root,
                                  "import": import_id, "at": at.isoformat(), "removed": None}
                    out.unchanged.append(f"{file}#{n}")
                elif entry is None:
                    out.failed.append(f"{file}: entry {n + 1} changed while it was imported — import again")
                else:
                    fresh.append((n, key, entry))
            # Entries of this same file seen before but not in it now: an edit replaces them day by day.
            stale: dict[date, list[str]] = {}
            for key, rec in index.items():
                if rec.get("source") == source and rec.get("import") != import_id and not rec.get("removed"):
                    stale.setdefault(date.fromisoformat(key.split(":", 1)[0]), []).append(key)
            for n, key, entry in fresh:
                old = stale.get(entry.date)
                if old:
                    old_key = old.pop(0)
                    entry_id = repo._replace_unlocked(index.pop(old_key)["id"], entry, at, digests.get(file, ""))
                    out.updated.append(f"{file}#{n}")
                else:
                    entry_id = repo._save_new_unlocked(entry).entry_id
                    out.new.append(f"{file}#{n}")
                out.stored.append(f"{file}#{n}")
                live[key] = entry_id
                index[key] = {"id": entry_id, "source": source, "root": root, "import": import_id,
                              "at": at.isoformat(), "removed": None}
            manifest.setdefault("sources", {})[source] = {"hash": digests.get(file), "imported_at": at.isoformat(),
                                                          "entries": [index[k]["id"] for k, _ in parts if k in index]}
        repo._atomic_write(repo.manifest_file, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return out


def finish_import(repo: StorageRepository, root: str, import_id: str, prune: bool, at: datetime) -> FinishImportResult:
    """The journal's entries this import never met (its folder's, and those of the folders it was copied or moved
    from): reported; with `prune`, marked removed (kept on disk with their history, no longer read)."""
    out = FinishImportResult()
    with repo._locked():
        manifest = repo.read_manifest()
        index = _entries_index(repo, manifest)
        lineage = manifest.get("lineage") or {}
        roots, todo = {root}, [root]
        while todo:  # the folders this journal was copied or moved from, and theirs
            for prior in lineage.get(todo.pop(), []):
                if prior not in roots:
                    roots.add(prior)
                    todo.append(prior)

        def in_journal(rec: dict[str, Any]) -> bool:
            if rec.get("root") is not None:
                return rec["root"] in roots
            return any(str(rec.get("source", "")).startswith(r.rstrip("/") + "/") for r in roots)

        gone = sorted((rec["id"], key) for key, rec in index.items()
                      if in_journal(rec) and rec.get("import") != import_id and not rec.get("removed"))
        out.vanished_total = len(gone)
        for entry_id, key in gone:
            rec = index[key]
            if len(out.vanished) < MAX_VANISHED_LISTED:
                out.vanished.append(f"{entry_id} ({Path(str(rec.get('source', '?'))).name})")
            if prune:
                repo._mark_removed_unlocked(entry_id, at, str(rec.get("source", "")))
                rec["removed"] = at.isoformat()
                out.pruned += 1
        if import_id in (manifest.get("imports") or {}):
            manifest["imports"][import_id]["finished"] = at.isoformat()
        imports = manifest.get("imports") or {}
        for old in sorted(imports, key=lambda k: imports[k].get("started", ""))[:-50]:
            imports.pop(old, None)  # bounded: the last 50 imports are enough to report what vanished
        repo._atomic_write(repo.manifest_file, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return out
