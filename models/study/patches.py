"""The study pipeline's patch ids (StudyWorkflow; see models/patches/__init__.py)."""

from __future__ import annotations

from datetime import date

from models.patches.registry import declare

_SHIPPED = date(2026, 11, 27)
_ERASURE_SHIPPED = date(2026, 11, 28)


def _declare(id: str, pinned_by: tuple[str, ...], what: str) -> str:
    return declare("study", id, pinned_by, _SHIPPED, what)


LOOKUP_RACE = _declare("study-lookup-race", ("study_small", "study_lookup_race"),
                       "a look-up that finds no such interview while its start is pending is 'not yet started' (a "
                       "confirmed one is abandoned only after a grace, revisably); an answer about a participant "
                       "revoked meanwhile is ignored; a failed start leaves a revoked link revoked; a link whose "
                       "study closed while its plan was translated starts no interview")

CORRECTIONS = _declare("study-corrections", ("study_corrections",),
                       "a participant's correction replaces their answer for the analysis: a digest that read fewer "
                       "corrections than were saved is redone on the corrected transcript before the theme merge, "
                       "and quotes are checked against the corrected answers (marked corrected)")

PLAN_LANGUAGE = declare("study", "study-plan-language", ("study_default_language",), _ERASURE_SHIPPED,
                        "a plan that is English (no language: the offline double's, the Planner's fallback) in a study "
                        "whose default language is not English is translated for that language's participants like "
                        "for any other (before: shown to them in English)")

ERASURE = declare("study", "study-erasure", ("study_erasure",), _ERASURE_SHIPPED,
                  "a withdrawal erases the participant's data: their interview's executions, artifacts, audio and "
                  "(payload encryption on) their data key; the ledger keeps only that they withdrew")
