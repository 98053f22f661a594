"""ReparseNotesWorkflow: `colloquy notes reparse` — notes a Router failure kept as written (tagged
needs-parsing) are parsed and updated in place; QueryWorkflow and ImportNotesWorkflow parse a few of them on the side
(`reparse_on_the_side`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.query.parse_log import parse_log
    from activities.query.storage import (
        notes_load_domains,
        notes_needs_parsing,
        notes_store_reparsed,
    )
    from core import search_attributes as sa
    from models.common import AgentResult, LLMUsage
    from models.query.agents import ParseInput, ParserOutput
    from models.query.parts import DomainCatalog, Entry
    from models.query.workflow import (
        REPARSE_PER_RUN,
        REPARSE_WORKFLOW_TYPE,
        LoadDomainsInput,
        NeedsParsingInput,
        NeedsParsingResult,
        ReparsedNote,
        ReparseRequest,
        ReparseResult,
        StoreReparsedInput,
        StoreReparsedResult,
    )
    from models.status import COMPLETED, FAILED, PHASE_DONE, RUNNING
    from rules.errors import error_message
    from rules.query.domains import combine_domains, domain_schemas
    from rules.query.summaries import reparse_summary
    from workflows.calls import call_activity, call_agent
    from workflows.inputs import start_input
from workflows.query.base import PIPELINE, refuse_paths_outside_roots

REPARSE_CONCURRENCY = 4  # Parser calls at once when flagged notes are parsed later


async def reparse_flagged(catalog: DomainCatalog, notes_dir: str | None, limit: int,
                          exclude_source_key: str | None = None,
                          on_usage: Callable[[LLMUsage], None] | None = None) -> ReparseResult:
    """Notes kept as written after a Router failure (tagged needs-parsing) are parsed later: up to `limit` of
    them (fewest failed attempts, then oldest first) with every domain of the app, as an import parses; each
    entry is updated in place (flag removed, raw text and earlier data kept in its history). A Parser failure
    leaves the note flagged and is reported with its reason; it never fails the caller. Storage errors raise."""
    found: NeedsParsingResult = await call_activity(
        notes_needs_parsing, NeedsParsingInput(notes_dir=notes_dir, limit=limit,
                                               exclude_source_key=exclude_source_key),
        summary=f"notes kept unparsed (needs-parsing), up to {limit}", result_type=NeedsParsingResult)
    result = ReparseResult(waiting=max(0, found.total - len(found.entries)))
    if not found.entries:
        return result
    ctx = combine_domains(catalog, [d.name for d in catalog.domains])
    schemas = domain_schemas(catalog, ctx.domains_loaded)

    async def parse(entry: Entry) -> ReparsedNote:
        try:
            out: AgentResult[ParserOutput] = await call_agent(
                parse_log, ParseInput(raw_input=entry.raw_content, timestamp=entry.timestamp, domain_schemas=schemas,
                                      vocabulary=ctx.vocabulary),
                summary=f"Parser: note {entry.id}, kept unparsed earlier", result_type=AgentResult[ParserOutput])
        except ActivityError as err:
            return ReparsedNote(entry_id=entry.id, error=error_message(err))
        result.usage.add(out.usage)
        if on_usage is not None:
            on_usage(out.usage)
        return ReparsedNote(entry_id=entry.id, parsed=out.output)

    for i in range(0, len(found.entries), REPARSE_CONCURRENCY):
        notes = list(await asyncio.gather(*(parse(e) for e in found.entries[i:i + REPARSE_CONCURRENCY])))
        stored: StoreReparsedResult = await call_activity(
            notes_store_reparsed, StoreReparsedInput(notes_dir=notes_dir, notes=notes, at=workflow.now()),
            summary=f"store {sum(1 for n in notes if n.parsed)} note(s) parsed later", result_type=StoreReparsedResult)
        result.parsed += stored.parsed
        result.failed.update({n.entry_id: n.error or "the Parser failed" for n in notes
                              if n.entry_id in stored.still_flagged})
    return result


async def reparse_on_the_side(catalog: DomainCatalog, notes_dir: str | None, exclude_source_key: str | None = None,
                              on_usage: Callable[[LLMUsage], None] | None = None) -> ReparseResult:
    """The bounded pass an `ask`/log or an import makes: a few flagged notes; nothing it meets fails the run."""
    try:
        result = await reparse_flagged(catalog, notes_dir, REPARSE_PER_RUN, exclude_source_key, on_usage)
    except ActivityError as err:
        return ReparseResult(warnings=[f"notes kept unparsed earlier were not checked: {error_message(err)}"])
    if result.failed:
        result.warnings.append("notes kept unparsed earlier (needs-parsing): "
                               + reparse_summary(result, REPARSE_PER_RUN))
    return result


@workflow.defn(name=REPARSE_WORKFLOW_TYPE)
class ReparseNotesWorkflow:
    """`colloquy notes reparse`: parse the notes a Router failure kept as written (tagged needs-parsing), up to
    `limit` (fewest failures, then oldest first), each updated in place; "N parsed, M still unparsed (reason)"."""

    @workflow.run
    async def run(self, raw: Any = None) -> ReparseResult:
        req = start_input(ReparseRequest, raw, pipeline=PIPELINE, workflow_type=REPARSE_WORKFLOW_TYPE)
        refuse_paths_outside_roots({"notes_dir": req.notes_dir})
        sa.upsert(pipeline=PIPELINE, phase="reparse", status=RUNNING)
        workflow.set_current_details("parsing notes kept unparsed (needs-parsing)")
        try:
            catalog: DomainCatalog = await call_activity(notes_load_domains, LoadDomainsInput(app_id=req.app_id),
                                                         summary=f"load domains of app {req.app_id}")
            result = await reparse_flagged(catalog, req.notes_dir, req.limit)
        except (ActivityError, ApplicationError) as err:
            sa.upsert(phase=PHASE_DONE, status=FAILED)
            workflow.set_current_details(f"failed: {error_message(err)}")
            raise
        sa.upsert(phase=PHASE_DONE, status=COMPLETED)
        workflow.set_current_details(reparse_summary(result))
        return result
