"""Writing pipeline activities (seed 004). Agents run on `<queue>-llm`; storage/history on `<queue>`."""

from typing import Any

from activities.agents.base import agent_activities
from activities.writing import (  # noqa: F401  (each agent module declares its agent)
    audit,
    draft,
    final_analysis,
    final_audit,
    orchestrator,
    quality_gate,
    synthesize,
)
from activities.writing.history import writing_record_history
from activities.writing.storage import writing_dump_context, writing_prepare_run, writing_write_run_logs

LLM_ACTIVITIES: list[Any] = agent_activities(__name__)
ACTIVITIES: list[Any] = [writing_prepare_run, writing_write_run_logs, writing_record_history, writing_dump_context]
