"""The study's exports (pure: findings + the export ledger + transcripts in, files' contents out):

- tables: themes, quotes (participant, language, translation, verified flag, `corrected`:
  taken from an answer the participant corrected), coverage, participants (consent,
  member checking) — as CSV texts or one XLSX workbook (openpyxl);
- one readable transcript per participant (with their consent record and their corrections beside the answers);
- the REFI-QDA project (rules/study/qdpx.py) uses the same transcript texts, so quote positions agree.

A withdrawn participant is in no export but the participants table (status withdrawn, no data).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from datetime import UTC, datetime

from models.interview.entries import TranscriptEntry
from models.study.workflow import DEPTHS, Findings, ParticipantRecord, StudyExport
from rules.study.words import continued

__all__ = ["continued", "tables", "to_csv", "to_xlsx", "transcript_text", "transcripts", "xlsx_text"]

Table = tuple[list[str], list[list[object]]]


def themes_table(f: Findings) -> Table:
    head = ["theme", "description", "participants", "share_of_completed", "participant_ids", "positions"]
    rows: list[list[object]] = [[t.title, t.description, t.count, round(t.count / f.completed, 3) if f.completed
                                 else 0.0, " ".join(t.participants),
                                 "; ".join(f"{p.position} ({p.count})" for p in t.positions)] for t in f.themes]
    return head, rows


def quotes_table(f: Findings) -> Table:
    head = ["theme", "participant", "language", "quote", "translation", "translation_note", "verified", "check",
            "flag", "interview_id", "entry_id", "corrected"]
    rows: list[list[object]] = []
    for t in f.themes:
        for q in t.quotes:
            rows.append([t.title, q.participant_id, q.language or "", q.text, q.translation or "",
                         q.translation_note, q.verified, q.check, q.flag, q.interview_id or "", q.entry_id or "",
                         q.corrected])
    for q in f.flagged_quotes:
        rows.append(["(flagged)", q.participant_id, q.language or "", q.text, q.translation or "",
                     q.translation_note, False, q.check, q.flag, q.interview_id or "", q.entry_id or "", False])
    return head, rows


def coverage_table(f: Findings) -> Table:
    head = ["question_id", "section_id", "question", "interviews", "asked", "answered", *DEPTHS]
    rows: list[list[object]] = [[c.question_id, c.section_id, c.text, c.interviews, c.asked, c.answered,
                                 *(c.depth.get(d, 0) for d in DEPTHS)] for c in f.coverage]
    return head, rows


def participants_table(ledger: StudyExport) -> Table:
    head = ["participant", "status", "language", "started_at", "ended_at", "length_seconds", "consent_at",
            "consent_language", "consent_sha256", "checked_at", "corrections"]
    rows: list[list[object]] = []
    for p in ledger.participants:
        c = p.consent
        rows.append([p.participant_id, p.status, p.language or "", p.started_at or "", p.ended_at or "",
                     round(p.length_seconds, 1) if p.length_seconds is not None else "", c.at if c else "",
                     c.language if c else "", c.sha256 if c else "", p.checked_at or "", len(p.corrections)])
    return head, rows


def tables(f: Findings, ledger: StudyExport) -> dict[str, Table]:
    return {"themes": themes_table(f), "quotes": quotes_table(f), "coverage": coverage_table(f),
            "participants": participants_table(ledger)}


# A cell starting with one of these is a formula to a spreadsheet (OWASP, CSV injection): the CSV prefixes `'`
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"     # Excel reads a CSV without it in the locale's code page (ja / ar / es garbled)


def to_csv(table: Table) -> str:
    """The table as CSV text (RFC 4180: CRLF rows, so a field holding a CR or LF is quoted), starting with the
    UTF-8 BOM; dates in ISO 8601 with their offset."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(table[0])
    w.writerows([[_csv_cell(v) for v in row] for row in table[1]])
    return BOM + out.getvalue()


def _csv_cell(v: object) -> object:
    if isinstance(v, datetime):
        return v.isoformat()
    if isinstance(v, str) and v.startswith(FORMULA_LEADS):
        return "'" + v
    return v


def xlsx_text(text: str) -> str:
    """A text as a worksheet can hold it: the control characters it refuses become U+FFFD (one for one)."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    return str(ILLEGAL_CHARACTERS_RE.sub("\ufffd", text))


def to_xlsx(f: Findings, ledger: StudyExport) -> bytes:
    """One sheet per table. Text is stored verbatim as a string cell (never a formula, no `'` added); dates are
    real dates (in UTC: Excel has no time zones)."""
    from openpyxl import Workbook
    from openpyxl.cell.cell import Cell
    from openpyxl.styles import Font

    wb = Workbook()
    first = True
    for name, (head, rows) in tables(f, ledger).items():
        ws = wb.active if first else wb.create_sheet()
        first = False
        assert ws is not None
        ws.title = name
        ws.append(head)
        for cell in ws[1]:
            cell.font = Font(bold=True)
        for r, row in enumerate(rows, start=2):
            for col, v in enumerate(row, start=1):
                cell = ws.cell(row=r, column=col)
                assert isinstance(cell, Cell)
                if isinstance(v, datetime):
                    cell.value = v.astimezone(UTC).replace(tzinfo=None)
                    cell.number_format = "yyyy-mm-dd hh:mm:ss"
                elif isinstance(v, str):
                    cell.value = xlsx_text(v)
                    cell.data_type = "s"          # text as given, even "=..." (openpyxl would make it a formula)
                else:
                    cell.value = v
        ws.freeze_panes = "A2"
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


# ------------------------------------------------------------------------------------------ transcripts
def transcript_text(topic: str, p: ParticipantRecord, entries: list[TranscriptEntry],
                    consent_texts: Mapping[str, str] | None = None) -> str:
    """One participant's interview as plain text: a header (language, consent, dates), then each turn (`Speaker:`
    at the start of its first line, its further lines indented: see `continued`); the participant's corrections
    follow the answer they correct (the answer itself unchanged)."""
    head = [f"Participant {p.participant_id}", f"Study: {continued(topic)}", f"Language: {p.language or '-'}"]
    if p.consent is not None:
        head.append(f"Consent: given {p.consent.at.isoformat()} to the {p.consent.language} text, version "
                    f"sha256:{p.consent.sha256}")
    if p.started_at is not None:
        length = f", {p.length_seconds:.0f} s" if p.length_seconds is not None else ""
        head.append(f"Interview: {p.started_at.isoformat()}{length}")
    if p.checked_at is not None:
        head.append(f"Read back by the participant: {p.checked_at.isoformat()}")
    lines = [*head, ""]
    corrections: dict[str, list[str]] = {}
    for c in p.corrections:
        when = f" {c.at.isoformat()}" if c.at else ""
        corrections.setdefault(c.entry_id, []).append(f"[corrected by the participant{when}: {continued(c.text)}]")
    for e in entries:
        who = "Interviewer" if e.speaker == "interviewer" else p.participant_id
        lines.append(f"{who}: {continued(e.text)}")       # an answer's own lines indented: no forged speaker line
        lines += [f"    {c}" for c in corrections.get(e.entry_id, [])]
    return "\n".join(lines) + "\n"


def transcripts(ledger: StudyExport, entries: Mapping[str, list[TranscriptEntry]]) -> dict[str, str]:
    """participant id -> their readable transcript (participants with a transcript: not withdrawn)."""
    return {p.participant_id: transcript_text(ledger.topic, p, entries[p.participant_id], ledger.consent)
            for p in ledger.participants if p.participant_id in entries and p.status == "completed"}
