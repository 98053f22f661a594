"""`colloquy study export STUDY_ID --format csv|xlsx|qdpx|transcripts [--out PATH]`: the analysed study in the
formats researchers' tools import (rules/study/exports.py, rules/study/qdpx.py). Findings and transcripts are
read from the artifact store through Temporal, like `study report`.

    csv          a folder: themes.csv, quotes.csv, coverage.csv, participants.csv   (default <study id>-csv/)
                 UTF-8 with a BOM (Excel), cells starting = + - @ TAB CR prefixed with ' (CSV injection)
    xlsx         one workbook, a sheet each                                          (default <study id>.xlsx)
    qdpx         the REFI-QDA project (NVivo, ATLAS.ti, MAXQDA)                      (default <study id>.qdpx)
    transcripts  a folder: one readable transcript per participant, P001.txt ...    (default <study id>-transcripts/)
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import typer

from client.common import console, run
from client.connection import NO_FLAGS, Connection, connects
from client.errors import CliError, ExitCode
from client.study.connect import study_handle as _handle
from models.common import ArtifactRef
from models.interview.entries import TranscriptEntry
from models.study.workflow import (
    QUERY_EXPORT,
    QUERY_PROGRESS,
    TASK_QUEUE,
    Findings,
    StudyExport,
    StudyProgress,
)
from rules.study import exports, qdpx

FORMATS = ("csv", "xlsx", "qdpx", "transcripts")
READ_CONCURRENCY = 8          # transcripts read at once (each a short artifact-read workflow)


def write_export(fmt: str, out: Path, findings: Findings, ledger: StudyExport,
                 entries: dict[str, list[TranscriptEntry]], now: datetime | None = None) -> list[Path]:
    """Write one format; returns the files written."""
    texts = exports.transcripts(ledger, entries)
    if fmt == "xlsx":
        out.write_bytes(exports.to_xlsx(findings, ledger))
        return [out]
    if fmt == "qdpx":
        out.write_bytes(qdpx.to_qdpx(findings, ledger, texts, now or datetime.now(UTC)))
        return [out]
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if fmt == "csv":
        for name, table in exports.tables(findings, ledger).items():
            (out / f"{name}.csv").write_text(exports.to_csv(table), encoding="utf-8", newline="")
            written.append(out / f"{name}.csv")
    else:
        for pid, text in sorted(texts.items()):
            (out / f"{pid}.txt").write_text(text, encoding="utf-8")
            written.append(out / f"{pid}.txt")
    return written


@connects
def export_cmd(
    study_id: str = typer.Argument(..., help="The study's workflow id."),
    fmt: str = typer.Option(..., "--format", help="csv | xlsx | qdpx | transcripts."),
    out: Path | None = typer.Option(None, "--out", help="Where to write (a folder for csv and transcripts)."),
    task_queue: str = typer.Option(TASK_QUEUE, envvar="COLLOQUY_TASK_QUEUE", help="Task queue of the workers "
                                   "(the artifacts are read through them)."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Export the analysed study: CSV or XLSX tables (themes, quotes, coverage, participants with consent), one
    transcript per participant, or a REFI-QDA project (.qdpx). Before the analysis: exit code 4."""
    from client.artifacts import read_artifact

    if fmt not in FORMATS:
        raise typer.BadParameter(f"--format must be one of {', '.join(FORMATS)}")
    target = out or Path(f"{study_id}.{fmt}" if fmt in ("xlsx", "qdpx") else f"{study_id}-{fmt}")

    async def _run() -> None:
        client = await conn.connect()
        h = _handle(client, study_id)
        progress = await h.query(QUERY_PROGRESS, result_type=StudyProgress)
        if progress.outputs is None:
            raise CliError(f"study {study_id} has no findings to export yet ({progress.phase}, {progress.completed}"
                           f" completed): close it and wait for the analysis", ExitCode.REFUSED)
        findings = Findings.model_validate_json(await read_artifact(client, progress.outputs.findings_json,
                                                                    task_queue))
        ledger = await h.query(QUERY_EXPORT, result_type=StudyExport)
        entries: dict[str, list[TranscriptEntry]] = {}
        if fmt in ("qdpx", "transcripts"):
            gate = asyncio.Semaphore(READ_CONCURRENCY)

            async def read(pid: str, ref: ArtifactRef) -> None:
                async with gate:
                    raw = json.loads(await read_artifact(client, ref, task_queue))
                entries[pid] = [TranscriptEntry.model_validate(e) for e in raw]

            await asyncio.gather(*(read(p.participant_id, p.transcript) for p in ledger.participants
                                   if p.transcript is not None and p.status == "completed"))
        written = write_export(fmt, target, findings, ledger, entries)
        console.print(f"wrote {target} ({len(written)} file(s))", soft_wrap=True, highlight=False)

    run(_run())
