"""NotesContextWorkflow: `colloquy notes context` / `GET /context` — the global context as the worker's store
holds it."""

from __future__ import annotations

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.query.storage import notes_read_global_context
    from core import search_attributes as sa
    from models.query import patches as query_patches
    from models.query.workflow import (
        CONTEXT_WORKFLOW_TYPE,
        ContextRequest,
        NotesLocation,
    )
    from models.status import COMPLETED, PHASE_DONE, RUNNING
    from workflows.calls import call_activity
    from workflows.inputs import start_input
from workflows.query.base import PIPELINE, refuse_paths_outside_roots


@workflow.defn(name=CONTEXT_WORKFLOW_TYPE)
class NotesContextWorkflow:
    """`colloquy notes context` / `GET /context`: the global context as the worker's store holds it (the notes
    live where the worker runs; the client may have no such folder)."""

    @workflow.run
    async def run(self, raw: Any = None) -> str:
        req = start_input(ContextRequest, raw, pipeline=PIPELINE, workflow_type=CONTEXT_WORKFLOW_TYPE)
        refuse_paths_outside_roots({"notes_dir": req.notes_dir})
        workflow.set_current_details("reading the global context")
        tagged = workflow.patched(query_patches.CONTEXT_SEARCH_ATTRIBUTES)
        if tagged:
            sa.upsert(pipeline=PIPELINE, phase="context", status=RUNNING)
        text = await call_activity(notes_read_global_context, NotesLocation(notes_dir=req.notes_dir),
                                   summary="read global context", result_type=str)
        if tagged:
            sa.upsert(phase=PHASE_DONE, status=COMPLETED)
        workflow.set_current_details(f"read {len(text):,} characters of global context")
        return text
