"""Query pipeline payloads (seed 001 §11): durable contracts — add optional fields with defaults, never rename.

LLM output models keep the seed's field order; verdict-like fields come LAST (the model writes them after its
reasoning). Enum fields accept any letter case ("SUFFICIENT" and "sufficient" both parse).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import ClassVar, Literal

from pydantic import BaseModel, Field, computed_field

from models.common import (
    MAX_ITEMS,
    IdStr,
    LineStr,
    LLMUsage,
    TextStr,
    UsageTotals,
)
from models.query.agents import (
    ContextUpdate,
    ParserOutput,
)
from models.query.parts import (
    Entry,
    InputType,
    LogField,
)
from models.status import query_status

_Date = date  # for fields named `date` (the name would shadow the type in their own annotation)

# ------------------------------------------------------------------------------------------- public names
# The workflows' contract: clients start them and talk to them by these names. Never change a value (running
# workflows and recorded histories depend on them).
WORKFLOW_TYPE = "QueryWorkflow"                            # QueryRequest -> QueryResult
UPDATE_CLARIFY = "clarify"                                 # ClarifyAnswer -> ClarifyAck (validated)
QUERY_PENDING_CLARIFICATION = "pending_clarification"      # -> PendingClarification | None
QUERY_SESSION_STATE = "session_state"                      # -> SessionStateView
IMPORT_WORKFLOW_TYPE = "ImportNotesWorkflow"               # ImportRequest -> ImportResult (continue-as-new)
QUERY_IMPORT_PROGRESS = "import_progress"                  # -> ImportProgress
CONTEXT_WORKFLOW_TYPE = "NotesContextWorkflow"             # ContextRequest -> the worker's global context
REPARSE_WORKFLOW_TYPE = "ReparseNotesWorkflow"             # ReparseRequest -> ReparseResult (`notes reparse`)

NEEDS_PARSING = "needs-parsing"  # the tag of a note kept as written after a Router failure, parsed later
REPARSE_PER_RUN = 3              # flagged notes an `ask`/log or an import parses on the side (fewest failures, oldest first)
REPARSE_DEFAULT_LIMIT = 50       # `colloquy notes reparse` (--limit)

MAX_INPUT_CHARS = 20_000
MAX_ANSWER_CHARS = 4_000
OFFLINE_ANSWER_LABEL = "[offline test double]"  # = activities.llm.offline.OFFLINE_LABEL (a test checks)


# ------------------------------------------------------------------------------------ storage activities
class NotesLocation(BaseModel):
    """Where the notes live: a folder inside the worker's notes root (rules/paths.py); None = the root itself
    (COLLOQUY_NOTES_DIR, default .data/notes)."""

    notes_dir: str | None = None


class LoadDomainsInput(BaseModel):
    app_id: str = "general"


class StoreEntryInput(BaseModel):
    notes_dir: str | None = None
    raw_input: str
    timestamp: datetime
    parsed: ParserOutput | None = None
    correction: ParserOutput | None = None
    source_key: str | None = Field(default=None, description="A retried store with the same key writes once")
    tags: list[str] = Field(default_factory=list, description="Extra tags, e.g. needs-parsing (Router failed)")


class StoreEntryResult(BaseModel):
    entry_id: str
    raw_file: str
    parsed_file: str
    corrected: bool = False
    note: str = ""


class RecentEntriesInput(BaseModel):
    notes_dir: str | None = None
    until: date
    days: int = 14
    limit: int = 30


class ApplyContextInput(BaseModel):
    notes_dir: str | None = None
    updates: list[ContextUpdate]
    today: date
    max_tokens: int = 2000


class ApplyContextResult(BaseModel):
    applied: list[str] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)
    archived: list[str] = Field(default_factory=list)
    tokens: int = 0
    version: int = 0


# ------------------------------------------------------------------------------------- workflow contract
class QueryRequest(BaseModel):
    """QueryWorkflow input: one user input (log, question, both, or correction)."""

    text: TextStr
    session_context: TextStr | None = Field(default=None, description="Recent conversation (REPL)")
    user_id: IdStr = "default"
    app_id: IdStr = "general"
    notes_dir: LineStr | None = Field(default=None, description="A folder inside the worker's notes root "
                                      "(COLLOQUY_NOTES_DIR), e.g. 'alice'; None: the root. Never an absolute path "
                                      "or '..' (docs/operations.md)")
    today: date | None = Field(default=None, description="None: the workflow's current date")
    utc_offset_minutes: int = Field(default=0, ge=-14 * 60, le=14 * 60,
                                    description="The user's clock: notes are dated and timed in local time")
    clarification_timeout_s: float = Field(default=24 * 3600, gt=0, le=30 * 24 * 3600)
    max_entries: int = Field(default=2000, ge=1, le=1_000_000, description="Most entries one retrieval reads; a scope over it is "
                             "answered partially and says how much was read")
    analysis_chunk_size: int = Field(default=120, ge=1, le=100_000, description="Above this many entries, analyzers read "
                                     "chunks in parallel and one more call combines them (seed §7.1)")
    max_global_context_tokens: int = Field(default=2000, ge=0, le=1_000_000)
    response_style: Literal["concise", "detailed"] = "concise"


class ClarifyAnswer(BaseModel):
    """The `clarify` update: answers by question id, or decline=True."""

    request_id: IdStr | None = Field(default=None, description="Optional: must match the pending request")
    answers: dict[IdStr, TextStr] = Field(default_factory=dict, max_length=MAX_ITEMS)
    decline: bool = False


class ClarifyAck(BaseModel):
    request_id: str
    accepted: list[str]
    declined: bool = False


class PendingQuestion(BaseModel):
    id: str
    question: str
    options: list[str] | None = None
    gap_addressed: str = ""


class PendingClarification(BaseModel):
    request_id: str
    questions: list[PendingQuestion]
    context_explanation: str = ""
    fallback_action: str = ""
    deadline: datetime | None = None


class SessionStateView(BaseModel):
    """The `session_state` query."""

    state: str
    colloquy_status: str = Field(default="running", description="The run's status in the shared vocabulary "
                                 "(models/status.py: running, waiting_user, completed, partial, failed): its "
                                 "ColloquyStatus search attribute")
    path: list[str]
    input_type: str | None = None
    attempts: dict[str, int]
    limits: dict[str, int]
    gaps: list[str]
    domains_loaded: list[str]
    domain_expansion_history: list[str] = Field(default_factory=list)
    waiting_for_user: bool = False
    entries_read: int = 0
    usage: UsageTotals = Field(default_factory=UsageTotals)


class QueryResult(BaseModel):
    input_type: InputType
    response: str
    key_points: list[str] = Field(default_factory=list)
    evidence_cited: list[str] = Field(default_factory=list)
    gaps_disclosed: list[str] = Field(default_factory=list)
    confidence: Literal["high", "medium", "low"] = "medium"
    partial: bool = False
    stored_entries: list[StoreEntryResult] = Field(default_factory=list)
    uncertain_fields: list[str] = Field(default_factory=list)
    domains_loaded: list[str] = Field(default_factory=list)
    path: list[str] = Field(default_factory=list)
    attempts: dict[str, int] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    entries_read: int = 0
    usage: UsageTotals = Field(default_factory=UsageTotals)
    offline: bool = Field(default=False, description="An agent answer came from the offline test double")
    entries_in_scope: int = Field(default=0, description="Entries the searches found (read: entries_read)")
    reparsed: ReparseResult | None = Field(default=None, description="Notes kept unparsed earlier (needs-parsing) "
                                           "that this run parsed, or tried to")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def colloquy_status(self) -> str:
        """The answer's final ColloquyStatus (shared vocabulary): partial or completed."""
        return query_status("COMPLETE", partial=self.partial)


# ------------------------------------------------------------------------------------------------ import
MAX_IMPORT_FILES = 100_000  # files, warnings and failures an import carries (bounded by MAX_BYTES too)
MAX_VANISHED_LISTED = 50
#: `--language`: the languages (besides English) whose abbreviated month and weekday names an import reads too
#: (rules/query/date_names.py; every language's full names are always read).
JournalLanguage = Literal["en", "fr", "de", "es", "pt", "it", "nl"]


class ImportRequest(BaseModel):
    MAX_BYTES: ClassVar[int] = 1_536 * 1024   # the files still to import ride in the input on continue-as-new

    directory: LineStr = Field(min_length=1, description="The folder (or file) to import: a root of the worker's "
                               "import roots and a path inside it ('journal/2024'); never empty, absolute or '..'")
    app_id: IdStr = "general"
    notes_dir: LineStr | None = None
    batch_size: int = Field(default=50, ge=1, le=1000, description="Files per activity")
    undated: Literal["skip", "today", "mtime"] = Field(
        default="skip", description="A file with no date in its headings, front matter or name: skip it "
        "(with a warning), or date it today / by its modification time")
    today: date | None = Field(default=None, description="--undated today: the user's date (None: UTC today)")
    year: int | None = Field(default=None, ge=1900, le=2100, description="--year: the year of dates written "
                             "without one (else the folder, file, front matter or dated headings say it)")
    prune: bool = Field(default=False, description="--prune: entries whose source vanished from the journal are "
                        "marked removed (history kept); without it they are only reported")
    languages: list[JournalLanguage] = Field(default_factory=list, max_length=7, description="--language: the "
                                             "journal's languages (else found from its headings' month names)")
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    warnings: list[LineStr] = Field(default_factory=list, max_length=MAX_IMPORT_FILES)
    files: list[LineStr] | None = Field(default=None, max_length=MAX_IMPORT_FILES,
                                        description="Set on continue-as-new: files still to import")
    done: int = 0
    total: int = 0
    failed: list[LineStr] = Field(default_factory=list, max_length=MAX_IMPORT_FILES)
    usage: UsageTotals = Field(default_factory=UsageTotals)


class ImportProgress(BaseModel):
    total: int
    done: int
    failed: list[str] = Field(default_factory=list)
    current: str = ""
    finished: bool = False


class ImportBatchInput(BaseModel):
    directory: str
    files: list[str]
    domain_schemas: dict[str, dict[str, LogField]]
    vocabulary: dict[str, str] = Field(default_factory=dict)
    notes_dir: str | None = None
    undated: Literal["skip", "today", "mtime"] = "skip"
    today: date | None = None
    year: int | None = Field(default=None, ge=1900, le=2100)
    languages: list[JournalLanguage] = Field(default_factory=list, max_length=7)


class ImportedNote(BaseModel):
    file: str
    raw: str
    timestamp: datetime
    parsed: ParserOutput
    timed: bool = Field(default=True, description="False: the file states no time for this entry")
    source_hash: str | None = Field(default=None, description="sha256 of the source file's bytes")
    part: int = Field(default=0, description="Which dated part of the file (0-based)")
    key: str | None = Field(default=None, max_length=64, description="Content identity: date + normalised text "
                            "hash (rules/query/imports.py entry_key); None: an import from before it")
    known: bool = Field(default=False, description="Already stored (same date and text): not parsed again; `raw` "
                        "is left empty")


class ImportBatchResult(BaseModel):
    notes: list[ImportedNote] = Field(default_factory=list)
    failed: list[str] = Field(default_factory=list, description="'file: reason'")
    usage: list[LLMUsage] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list, description="Files imported before with this content")
    skipped: list[str] = Field(default_factory=list, description="Undated files skipped (--undated skip)")
    warnings: list[str] = Field(default_factory=list)
    hashes: dict[str, str] = Field(default_factory=dict, description="file → content hash, parsed files")


class ListImportInput(BaseModel):
    directory: str


class StoreBatchInput(BaseModel):
    notes_dir: str | None = None
    notes: list[ImportedNote]
    directory: str | None = Field(default=None, description="Import folder: sources are keyed by full path")
    hashes: dict[str, str] = Field(default_factory=dict, description="file → content hash (edit-aware import)")
    import_id: str | None = Field(default=None, max_length=256, description="The import (its workflow id): entries "
                                  "it meets are marked seen by it, so the ones it never met can be reported")


class StoreBatchResult(BaseModel):
    stored: list[str] = Field(default_factory=list)
    failed: list[str] = Field(default_factory=list)
    new: list[str] = Field(default_factory=list, description="Entries stored for the first time ('file#part'; "
                           "files, for an import from before content identity)")
    updated: list[str] = Field(default_factory=list, description="Edited entries: their earlier text replaced")
    unchanged: list[str] = Field(default_factory=list, description="Entries already stored with this date and text")


class FinishImportInput(BaseModel):
    notes_dir: str | None = None
    directory: str
    import_id: str = Field(max_length=256)
    prune: bool = False


class FinishImportResult(BaseModel):
    vanished: list[str] = Field(default_factory=list, max_length=MAX_VANISHED_LISTED,
                                description="'entry id (its source file)' of entries no file of the journal has "
                                "any more (the first ones)")
    vanished_total: int = 0
    pruned: int = Field(default=0, description="Of those, marked removed now (--prune)")


class ImportResult(BaseModel):
    total: int
    imported: int
    failed: list[str] = Field(default_factory=list)
    usage: UsageTotals = Field(default_factory=UsageTotals)
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    warnings: list[str] = Field(default_factory=list)
    reparsed: ReparseResult | None = Field(default=None, description="Notes kept unparsed earlier (needs-parsing) "
                                           "that the import's last run parsed, or tried to")
    vanished: list[str] = Field(default_factory=list, description="Entries whose source vanished from the journal")
    vanished_total: int = 0
    pruned: int = 0


class ContextRequest(BaseModel):
    """NotesContextWorkflow input: read the global context where the worker keeps the notes."""

    notes_dir: LineStr | None = None


# ---------------------------------------------------------------------------- notes parsed later (reparse)
class NeedsParsingInput(BaseModel):
    notes_dir: str | None = None
    limit: int = Field(default=REPARSE_PER_RUN, description="At most this many notes, fewest failures then oldest "
                       "first")
    exclude_source_key: str | None = Field(default=None, description="Not this note (the run's own, just kept)")


class NeedsParsingResult(BaseModel):
    entries: list[Entry] = Field(default_factory=list, description="The notes to parse now (raw text as stored)")
    total: int = Field(default=0, description="Every note tagged needs-parsing in the store, these included")


class ReparsedNote(BaseModel):
    entry_id: str
    parsed: ParserOutput | None = Field(default=None, description="The Parser's checked answer; None: it failed")
    error: str | None = Field(default=None, description="Why the Parser failed (one line)")


class StoreReparsedInput(BaseModel):
    notes_dir: str | None = None
    notes: list[ReparsedNote]
    at: datetime = Field(description="When (workflow time): the history line and the idempotency mark")


class StoreReparsedResult(BaseModel):
    parsed: list[str] = Field(default_factory=list, description="Updated in place: flag removed, history kept")
    still_flagged: list[str] = Field(default_factory=list, description="The Parser failed: flag kept, reason noted")
    gone: list[str] = Field(default_factory=list, description="Not flagged any more (another run parsed it) or "
                            "not found")


class ReparseRequest(BaseModel):
    """ReparseNotesWorkflow input (`colloquy notes reparse`)."""

    app_id: IdStr = "general"
    notes_dir: LineStr | None = None
    limit: int = Field(default=REPARSE_DEFAULT_LIMIT, ge=1, le=1000)


class ReparseResult(BaseModel):
    parsed: list[str] = Field(default_factory=list, description="Entry ids now parsed (flag removed)")
    failed: dict[str, str] = Field(default_factory=dict, description="Entry id -> why the Parser failed (still "
                                   "flagged)")
    waiting: int = Field(default=0, description="Flagged notes not tried in this run (over its limit)")
    warnings: list[str] = Field(default_factory=list)
    usage: UsageTotals = Field(default_factory=UsageTotals)

    @property
    def unparsed(self) -> int:
        return len(self.failed) + self.waiting


LogField.model_rebuild()
QueryResult.model_rebuild()
