"""The one status vocabulary of every pipeline: ColloquyStatus / ColloquyPhase search attributes, queries, CLI.

README's "Statuses" table lists the same rows (tests/unit/platform/test_statuses.py keeps them equal). A
pipeline's own phases (interview sections, writing states, query steps) are its ColloquyPhase while it runs; every
run ends with ColloquyPhase="done" and one of the final statuses below.
"""

from __future__ import annotations

RUNNING = "running"
WAITING_USER = "waiting_user"
PAUSED = "paused"
FINALIZING = "finalizing"
COMPLETED = "completed"
PARTIAL = "partial"
HALTED = "halted"
FAILED = "failed"
CANCELLED = "cancelled"

PHASE_DONE = "done"

# status -> (what it means, the pipelines that use it)
STATUSES: dict[str, tuple[str, str]] = {
    RUNNING: ("working (planning, calling agents, storing)", "all"),
    WAITING_USER: ("waiting for a person: a clarifying answer or an approval", "query, writing"),
    PAUSED: ("paused by a session control; the clock keeps running", "interview"),
    FINALIZING: ("the session ended; writing up the transcript, analysis and essay", "interview"),
    COMPLETED: ("finished normally", "all"),
    PARTIAL: ("finished with a degraded result that says what is missing (a failed step, a fallback answer, "
              "some models failing their check, a post below the score floor)", "query, rehearsal, model_check, writing, study"),
    HALTED: ("ended early by a rule (an error state, a safety limit, an end control or a failed agent) and "
             "returned what it had", "interview, writing"),
    FAILED: ("the run failed: invalid input, or a step that cannot degrade failed (the Temporal status is "
             "Failed)", "all"),
    CANCELLED: ("cancelled by a person", "discussion, writing"),
}
FINAL = frozenset({COMPLETED, PARTIAL, HALTED, FAILED, CANCELLED})

# the interview engine's own session statuses (seed 003: session_state.status) -> the shared vocabulary
INTERVIEW_STATUS = {"NOT_STARTED": RUNNING, "PLANNING": RUNNING, "IN_PROGRESS": RUNNING, "PAUSED": PAUSED,
                    "FINALIZING": FINALIZING, "COMPLETED": COMPLETED, "TERMINATED": HALTED}


def interview_status(session_status: str) -> str:
    """ColloquyStatus for an interview session status (IN_PROGRESS → running, TERMINATED → halted)."""
    return INTERVIEW_STATUS.get(session_status.upper(), session_status.lower())
