"""ImportNotesWorkflow: `colloquy notes import DIR` — every file a LOG, parsed and stored in batches, progress
as a query, continue-as-new every few batches."""

from __future__ import annotations

from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.query.parse_log import parse_log_batch
    from activities.query.storage import (
        notes_finish_import,
        notes_list_import_files,
        notes_load_domains,
        notes_store_batch,
    )
    from core import search_attributes as sa
    from models.query import patches as query_patches
    from models.query.parts import DomainCatalog
    from models.query.workflow import (
        IMPORT_WORKFLOW_TYPE,
        QUERY_IMPORT_PROGRESS,
        FinishImportInput,
        FinishImportResult,
        ImportBatchInput,
        ImportBatchResult,
        ImportProgress,
        ImportRequest,
        ImportResult,
        ListImportInput,
        LoadDomainsInput,
        StoreBatchInput,
        StoreBatchResult,
    )
    from models.status import COMPLETED, FAILED, PHASE_DONE, RUNNING
    from rules.errors import error_message
    from rules.query.domains import combine_domains, domain_schemas
    from workflows.calls import call_activity, call_agent
    from workflows.inputs import start_input
from workflows.query.base import PIPELINE, refuse_paths_outside_roots
from workflows.query.reparse import reparse_on_the_side


@workflow.defn(name=IMPORT_WORKFLOW_TYPE)
class ImportNotesWorkflow:
    """Every file a LOG: parsed (Parser agent, several at a time) and stored in batches; `progress` query;
    continue-as-new every BATCHES_PER_RUN batches so 1,000s of notes never bloat one history."""

    BATCHES_PER_RUN = 10

    def __init__(self) -> None:
        self.progress = ImportProgress(total=0, done=0)

    @workflow.run
    async def run(self, raw: Any = None) -> ImportResult:
        req = start_input(ImportRequest, raw, pipeline=PIPELINE, workflow_type=IMPORT_WORKFLOW_TYPE)
        refuse_paths_outside_roots({"directory": req.directory, "notes_dir": req.notes_dir}, req.files)
        sa.upsert(pipeline=PIPELINE, phase="import", status=RUNNING)
        workflow.set_current_details(f"importing notes from {req.directory}")
        try:
            return await self._import(req)
        except (ActivityError, ApplicationError) as err:
            sa.upsert(phase=PHASE_DONE, status=FAILED)
            workflow.set_current_details(f"failed: {error_message(err)}")
            raise

    async def _import(self, req: ImportRequest) -> ImportResult:
        files = req.files
        if files is None:
            files = await call_activity(notes_list_import_files, ListImportInput(directory=req.directory),
                                        summary=f"list notes in {req.directory}", result_type=list[str])
            req = req.model_copy(update={"total": len(files)})
        self.progress = ImportProgress(total=req.total, done=req.done, failed=list(req.failed))
        catalog: DomainCatalog = await call_activity(notes_load_domains, LoadDomainsInput(app_id=req.app_id),
                                                     summary=f"load domains of app {req.app_id}")
        every = [d.name for d in catalog.domains]
        ctx = combine_domains(catalog, every)
        schemas = domain_schemas(catalog, ctx.domains_loaded)
        usage = req.usage
        counts = {"new": req.new, "updated": req.updated, "unchanged": req.unchanged}
        warnings = list(req.warnings)
        size = max(1, min(req.batch_size, 200))
        for n in range(self.BATCHES_PER_RUN):
            batch = files[n * size:(n + 1) * size]
            if not batch:
                break
            self.progress.current = batch[0]
            workflow.set_current_details(f"imported {self.progress.done}/{self.progress.total}")
            parsed: ImportBatchResult = await call_agent(
                parse_log_batch, ImportBatchInput(directory=req.directory, files=batch, domain_schemas=schemas,
                                                  vocabulary=ctx.vocabulary, notes_dir=req.notes_dir,
                                                  undated=req.undated, today=req.today, year=req.year,
                                                  languages=req.languages),
                summary=f"Parser: {len(batch)} notes from {batch[0]}",
                result_type=ImportBatchResult)
            usage.add_all(parsed.usage)
            stored: StoreBatchResult = await call_activity(
                notes_store_batch, StoreBatchInput(notes_dir=req.notes_dir, notes=parsed.notes,
                                                   directory=req.directory, hashes=parsed.hashes,
                                                   import_id=workflow.info().workflow_id),
                summary=f"store {len(parsed.notes)} notes", result_type=StoreBatchResult)
            self.progress.done += len(batch)
            self.progress.failed += parsed.failed + stored.failed
            counts["new"] += len(stored.new)
            counts["updated"] += len(stored.updated)
            counts["unchanged"] += len(parsed.unchanged) + len(stored.unchanged)
            warnings += parsed.warnings
        remaining = files[self.BATCHES_PER_RUN * size:]
        if remaining:
            workflow.continue_as_new(req.model_copy(update={
                "files": remaining, "done": self.progress.done, "failed": self.progress.failed, "usage": usage,
                "warnings": warnings, **counts}))
        finished = FinishImportResult()
        if workflow.patched(query_patches.IMPORT_IDENTITY):  # the journal's entries no file has any more: reported
            workflow.set_current_details("checking for entries whose source vanished")
            finished = await call_activity(
                notes_finish_import, FinishImportInput(notes_dir=req.notes_dir, directory=req.directory,
                                                       import_id=workflow.info().workflow_id, prune=req.prune),
                summary="entries whose source vanished" + (" (pruned)" if req.prune else ""),
                result_type=FinishImportResult)
        reparsed = None
        if workflow.patched(query_patches.IMPORT_REPARSES):  # notes a Router failure kept unparsed: a few now
            workflow.set_current_details("parsing notes kept unparsed earlier (needs-parsing)")
            reparsed = await reparse_on_the_side(catalog, req.notes_dir, on_usage=usage.add)
            warnings += reparsed.warnings
        self.progress.finished = True
        sa.upsert(phase=PHASE_DONE, status=COMPLETED)
        workflow.set_current_details(f"imported {self.progress.done}/{self.progress.total}")
        return ImportResult(total=self.progress.total, imported=counts["new"] + counts["updated"],
                            failed=self.progress.failed, usage=usage, warnings=warnings, reparsed=reparsed,
                            vanished=finished.vanished, vanished_total=finished.vanished_total,
                            pruned=finished.pruned, **counts)

    @workflow.query(name=QUERY_IMPORT_PROGRESS)
    def import_progress(self) -> ImportProgress:
        return self.progress
