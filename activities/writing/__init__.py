"""Writing pipeline activities (seed 004). Agents run on `<queue>-llm`; storage/history on `<queue>`."""

from typing import Any

from activities.writing.audit import writing_audit
from activities.writing.draft import writing_draft
from activities.writing.final_analysis import writing_final_analysis
from activities.writing.final_audit import writing_final_audit
from activities.writing.history import writing_record_history
from activities.writing.orchestrator import writing_orchestrator
from activities.writing.quality_gate import writing_quality_gate
from activities.writing.storage import writing_dump_context, writing_prepare_run, writing_write_run_logs
from activities.writing.synthesize import writing_synthesize

LLM_ACTIVITIES: list[Any] = [writing_draft, writing_audit, writing_final_audit, writing_synthesize,
                             writing_final_analysis, writing_quality_gate, writing_orchestrator]
ACTIVITIES: list[Any] = [writing_prepare_run, writing_write_run_logs, writing_record_history, writing_dump_context]
