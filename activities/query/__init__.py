"""Query pipeline activities: nine agents (seed 001 §7.8) and the notes repository's storage activities."""

from typing import Any

from activities.query.analyze_evidence import analyze_evidence
from activities.query.clarify_gaps import clarify_gaps
from activities.query.evaluate_answer import evaluate_answer
from activities.query.observe_context import observe_context
from activities.query.parse_log import parse_log, parse_log_batch
from activities.query.plan_query import plan_query
from activities.query.retriever import retrieve_notes
from activities.query.route_input import route_input
from activities.query.storage import (
    STORAGE_ACTIVITIES,
    notes_finish_import,
    notes_list_import_files,
    notes_store_batch,
)
from activities.query.synthesize_answer import synthesize_answer

LLM_ACTIVITIES: list[Any] = [route_input, plan_query, analyze_evidence, synthesize_answer, evaluate_answer,
                             clarify_gaps, parse_log, parse_log_batch, observe_context]
ACTIVITIES: list[Any] = [*STORAGE_ACTIVITIES, retrieve_notes, notes_list_import_files, notes_store_batch,
                         notes_finish_import]
