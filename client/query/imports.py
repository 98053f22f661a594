"""`colloquy notes import DIR`: a folder of notes into the notes store (ImportNotesWorkflow), and `--dry-run`.

The library the command and the tests use: `run_import` (start the workflow, follow its progress), `import_summary`
(the counts line), `import_preview` (--dry-run: how every file is split and dated, with no worker and nothing
written). Registered on the `colloquy notes` app by client/query/cli.py (which re-exports the library).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import date
from pathlib import Path

import typer

from client.common import console, err_console, run
from client.connection import NO_FLAGS, Connection, connects
from client.query.options import AppOpt, NotesDirOpt, QueueOpt, _report_failure
from models.query.workflow import IMPORT_WORKFLOW_TYPE, QUERY_IMPORT_PROGRESS, ImportProgress, ImportResult
from rules.text import workflow_id


async def run_import(client, directory: Path, app_id: str, notes_dir: str | None, task_queue: str,  # noqa: ANN001
                     batch_size: int = 50, on_progress: Callable[[object], None] | None = None,
                     poll_s: float = 0.25, undated: str = "skip", today: date | None = None,
                     year: int | None = None, prune: bool = False,
                     languages: list[str] | None = None):  # noqa: ANN201
    """Start ImportNotesWorkflow and report its `import_progress` until it finishes (across continue-as-new)."""
    from client.query.paths import import_dir_for_worker, notes_dir_for_worker
    from models.query.workflow import (
        ImportRequest,
    )

    where = import_dir_for_worker(directory)     # the worker's name for it (its import roots)
    wf_id = workflow_id("notes-import", directory.name or "notes", uuid.uuid4().hex[:12], 24)
    handle = await client.start_workflow(
        IMPORT_WORKFLOW_TYPE, ImportRequest.model_validate({
            "directory": where, "app_id": app_id, "notes_dir": notes_dir_for_worker(notes_dir),
            "batch_size": batch_size, "undated": undated, "today": today, "year": year, "prune": prune,
            "languages": list(languages or [])}),
        id=wf_id, task_queue=task_queue, result_type=ImportResult, static_summary=f"Import notes from {directory}")
    result_task = asyncio.ensure_future(handle.result())
    latest = client.get_workflow_handle(wf_id, result_type=ImportResult)  # follows continue-as-new: queries go to the current run
    while not result_task.done():
        try:
            progress = await latest.query(QUERY_IMPORT_PROGRESS, result_type=ImportProgress)
            if on_progress:
                on_progress(progress)
        except Exception:  # noqa: BLE001 — between runs (continue-as-new) a query can miss; the next one lands
            pass
        await asyncio.wait([result_task], timeout=poll_s)
    return wf_id, result_task.result()


def import_summary(result) -> str:  # noqa: ANN001
    """'3 new, 1 updated, 7 unchanged entries' (+ not imported / vanished counts) for an ImportResult."""
    text = f"{result.new} new, {result.updated} updated, {result.unchanged} unchanged entries"
    if result.failed:
        text += f", {len(result.failed)} file(s) not imported"
    if result.vanished_total:
        text += (f", {result.vanished_total} vanished from the journal"
                 + (f" ({result.pruned} marked removed)" if result.pruned else ""))
    return text


def note_files(directory: Path) -> list[str]:
    """The files an import reads under `directory` (as the worker lists them), relative to it: for --dry-run."""
    from rules.query.imports import IMPORT_SUFFIXES

    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*")
                  if p.is_file() and p.suffix.lower() in IMPORT_SUFFIXES and not p.name.startswith("."))


def import_preview(directory: Path, year: int | None = None, undated: str = "skip",
                   languages: list[str] | None = None) -> tuple[list[str], int]:
    """`notes import --dry-run`: (the lines to print, entries that would be imported). Splits and dates every file
    exactly as the import does (rules/query/imports.py), with no worker, no model and nothing written."""
    from rules.query.imports import clean_text, journal_hints, split_dated, undated_message

    texts: dict[str, str] = {}
    lines: list[str] = []
    for rel in note_files(directory):
        try:
            texts[rel] = (directory / rel).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            lines.append(f"not imported  {rel}: {getattr(exc, 'strerror', None) or exc}")
    hints = journal_hints(texts, year, frozenset(languages or ()))
    total = files_with = 0
    for rel, text in texts.items():
        split = split_dated(text, rel, hints)
        if split.errors:
            lines.append(f"not imported  {rel}: {'; '.join(split.errors[:3])}")
            continue
        if not clean_text(text).strip():
            lines.append(f"not imported  {rel}: empty")
            continue
        if split.undated:
            lines.append(f"undated       {undated_message(rel, undated, None, len(split.flags))}"
                         if undated == "skip" else f"undated       {rel}: no date found in its headings, front "
                         f"matter or name — dated by --undated {undated}")
            lines += [f"      note  {rel}: {w}" for w in split.warnings]
            total += undated != "skip"
            continue
        days = [p.day.isoformat() for p in split.parts]
        total += len(days)
        files_with += bool(days)
        shown = ", ".join(days[:6]) + (f", … {days[-1]}" if len(days) > 6 else "")
        lines.append(f"{len(days):>4} entr{'y  ' if len(days) == 1 else 'ies'}  {rel} ({split.source}): {shown}" if days else
                     f"   0 entries  {rel}: dated headings without text")
        lines += [f"      note  {rel}: {w}" for w in split.warnings]
    lines.append(f"dry run: {total} entries from {files_with} of {len(texts)} files would be imported; nothing "
                 "was written (the import skips entries already stored with the same date and text)")
    return lines, total



@connects
def import_cmd(folder: str = typer.Argument(..., metavar="DIRECTORY", help="Folder of notes (*.md, *.txt, *.markdown, *.org), "
                                                 "searched recursively, inside one of the worker's import roots "
                                                 "(COLLOQUY_IMPORT_ROOTS; default .data/imports). Each file is split into dated entries: by "
                                                 "the dates of its headings or date lines (day counters, weekdays, "
                                                 "newest-first and org-mode journals too; English, French, German, "
                                                 "Spanish, Portuguese, Italian and Dutch month and weekday names; "
                                                 "jrnl's stamped entries and Day One's text export), else its front "
                                                 "matter date, else the date in its path (2023-01-15.md, "
                                                 "2020/08/29.txt)."),
               app_id: str = AppOpt, notes_dir: str | None = NotesDirOpt, task_queue: str = QueueOpt,
               batch_size: int = typer.Option(50, help="Files per Parser batch."),
               undated: str = typer.Option("skip", "--undated", help="A file with no date in its headings, front "
                                           "matter or name: skip (warned), today, or mtime (modification time)."),
               year: int | None = typer.Option(None, "--year", min=1900, max=2100, help="The year of dates written "
                                               "without one (otherwise: the folder, file name, front matter or the "
                                               "journal's dated headings say it; never today's year)."),
               language: list[str] = typer.Option([], "--language", help="A language the journal is written in "
                                                  "(en, fr, de, es, pt, it, nl; repeatable): its weekday "
                                                  "abbreviations (`Mi.`) and its month abbreviations in dates "
                                                  "without a year (`3 févr.`) are read too. Full names, and month "
                                                  "abbreviations beside a year, are read in every language; a "
                                                  "journal's own languages are found from its headings."),
               prune: bool = typer.Option(False, "--prune", help="Mark entries whose source vanished from the "
                                          "journal as removed (their history is kept); without it they are only "
                                          "reported."),
               dry_run: bool = typer.Option(False, "--dry-run", help="Print what would be imported (dates, counts, "
                                            "warnings) without a worker and without writing anything."), conn: Connection = NO_FLAGS) -> None:
    """Batch import with a progress bar (ImportNotesWorkflow: durable, resumable, continue-as-new).

    Entries are identified by their date and text: a copy, a moved folder, a renamed file or a fresh export adds nothing.
    Every date-like heading that was not used, and every file with no date, is reported with its line.
    Exit code 1 when the folder gave no entry to import."""
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if not folder.strip():   # Path("") is the working directory: never import that by accident
        err_console.print("[red]error:[/red] give the folder to import (an empty path is not one)")
        raise typer.Exit(2)
    directory = Path(folder).expanduser()
    if not directory.is_dir():
        err_console.print(f"[red]error:[/red] {directory} is not a directory")
        raise typer.Exit(2)
    if not dry_run:   # the worker reads only its import roots: say so now, before anything starts
        from client.errors import CliError
        from client.query.paths import import_dir_for_worker

        try:
            import_dir_for_worker(directory)
        except CliError as err:
            err_console.print(f"[red]error:[/red] {escape(err.message)}")
            raise typer.Exit(2) from None
    if undated not in ("skip", "today", "mtime"):
        err_console.print(f"[red]error:[/red] --undated must be skip, today or mtime (not {undated!r})")
        raise typer.Exit(2)
    from rules.query.imports import LANGUAGES

    languages = [lang.strip().lower() for lang in language]
    if unknown := [lang for lang in languages if lang not in LANGUAGES]:
        err_console.print(f"[red]error:[/red] --language must be one of {', '.join(LANGUAGES)} (not "
                          f"{', '.join(unknown)})")
        raise typer.Exit(2)
    if dry_run:
        lines, total = import_preview(directory, year, undated, languages)
        for line in lines:
            console.print(escape(line), highlight=False)
        raise typer.Exit(0 if total else 1)

    async def _run() -> object | None:
        client = await conn.connect()
        with Progress(TextColumn("importing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TextColumn("{task.fields[current]}"), console=console) as bar:
            task = bar.add_task("import", total=None, current="")

            def show(p) -> None:  # noqa: ANN001
                bar.update(task, total=p.total or None, completed=p.done, current=p.current)

            try:
                from client.worker_check import require_worker

                await require_worker(client, task_queue)
                wf_id, result = await run_import(client, directory, app_id, notes_dir, task_queue, batch_size, show,
                                                 undated=undated, today=date.today(), year=year, prune=prune,
                                                 languages=languages)
            except Exception as exc:  # noqa: BLE001
                _report_failure(exc)
                return None
            bar.update(task, total=result.total, completed=result.total)
        console.print(f"{import_summary(result)} from {result.total} files (workflow {wf_id}).")
        if result.reparsed and result.reparsed.parsed:
            console.print(f"[dim]also parsed notes kept unparsed earlier: {', '.join(result.reparsed.parsed)}[/dim]")
        for f in result.failed[:20]:
            console.print(f"[yellow]not imported[/yellow] {escape(f)}")
        for w in result.warnings[:50]:
            console.print(f"[dim yellow]note: {escape(w)}[/dim yellow]")
        if len(result.warnings) > 50:
            console.print(f"[dim yellow]note: … and {len(result.warnings) - 50} more notes (see --dry-run)"
                          "[/dim yellow]")
        if result.vanished_total:
            what = "marked removed" if result.pruned else "still stored; --prune marks them removed"
            console.print(f"[yellow]{result.vanished_total} entries vanished from the journal[/yellow] ({what}): "
                          + escape(", ".join(result.vanished[:10]))
                          + (" …" if result.vanished_total > 10 else ""))
        return result

    result = run(_run())
    if result is not None and not (result.new + result.updated + result.unchanged):  # type: ignore[attr-defined]
        err_console.print("[red]nothing was imported:[/red] no dated entry in any file (see the notes above; "
                          "--dry-run shows how each file is read)")
        raise typer.Exit(1)
