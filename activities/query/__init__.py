"""Query pipeline activities: nine agents (seed 001 §7.8) and the notes repository's storage activities."""

from typing import Any

from activities.agents.base import agent_activities
from activities.query import (  # noqa: F401  (each agent module declares its agent)
    analyze_evidence,
    clarify_gaps,
    evaluate_answer,
    observe_context,
    parse_log,
    plan_query,
    route_input,
    synthesize_answer,
)
from activities.query.retriever import retrieve_notes
from activities.query.storage import (
    STORAGE_ACTIVITIES,
    notes_finish_import,
    notes_list_import_files,
    notes_store_batch,
)

LLM_ACTIVITIES: list[Any] = agent_activities(__name__)
ACTIVITIES: list[Any] = [*STORAGE_ACTIVITIES, retrieve_notes, notes_list_import_files, notes_store_batch,
                         notes_finish_import]
