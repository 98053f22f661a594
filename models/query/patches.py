"""The query pipeline's patch ids (QueryWorkflow, ImportNotesWorkflow, NotesContextWorkflow; see
models/patches/__init__.py)."""

from __future__ import annotations

from datetime import date

from models.patches.registry import declare

_SHIPPED = date(2026, 11, 26)


def _declare(id: str, pinned_by: tuple[str, ...], what: str) -> str:
    return declare("query", id, pinned_by, _SHIPPED, what)


ROUTER_FAILURE_KEEPS_NOTE = _declare("router-failure-keeps-note", ("query_clarify", "query_insight"),
                                     "a Router failure keeps the text as a note, flagged needs-parsing")
REPARSE_FLAGGED = _declare("reparse-flagged-notes", ("query_reparse", "query_empty_period"),
                           "a query parses a few flagged notes on the side")
CONFIRM_CORRECTION = _declare("confirm-ambiguous-correction", ("query_correction_choice",),
                              "an ambiguous correction asks which entry it is for")
CLARIFY_REPLANS = _declare("clarify-answer-replans", ("query_clarify_replan", "query_clarify"),
                           "an answered clarification re-plans before analysing again")
SEARCH_BEFORE_CLARIFY = _declare("search-before-clarify", ("query_search_first", "query_clarify"),
                                 "the notes are searched before the user is asked")
EMPTY_PERIOD = _declare("empty-period-stated", ("query_empty_period",),
                        "a period with no notes is the answer, never the nearest notes outside it")
IMPORT_IDENTITY = _declare("import-content-identity", ("query_import_identity", "query_import"),
                           "an import reports (or prunes) entries whose source vanished")
IMPORT_REPARSES = _declare("import-reparses-flagged-notes", ("query_import_reparse", "query_import"),
                           "an import parses a few flagged notes at its end")
CONTEXT_SEARCH_ATTRIBUTES = _declare("context-search-attributes", ("query_context",),
                                     "`notes context` runs carry the pipeline's search attributes")
PATHS_AT_THE_DOOR = declare("query", "paths-inside-roots",
                            ("query_paths_refused", "query_clarify", "query_import", "query_context"),
                            date(2026, 11, 27), "a start whose paths are not inside the worker's roots (an absolute "
                            "path, '..') fails at once")
