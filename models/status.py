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


# One pure mapping per pipeline: its own status words -> the shared vocabulary. The workflows compute the
# ColloquyStatus search attribute with these and their query views and results carry the same value (`run_status`),
# so a search, a query and the CLI can never disagree.
def interview_status(session_status: str, *, failed: bool = False) -> str:
    """ColloquyStatus for an interview session status (IN_PROGRESS → running, TERMINATED → halted); `failed`: the
    run was refused (invalid input) before a session existed."""
    if failed:
        return FAILED
    return INTERVIEW_STATUS.get(session_status.upper(), session_status.lower())


# the writing run's own statuses (RunStatus; the history DB stores these) -> the shared vocabulary
WRITING_STATUS = {"running": RUNNING, "waiting_approval": WAITING_USER, "complete": COMPLETED,
                  "complete_below_floor": PARTIAL, "halted": HALTED, "failed": FAILED, "cancelled": CANCELLED,
                  "forced": HALTED}  # forced: the orchestrator forced an end no human approved (nothing published)


def writing_status(run_status: str) -> str:
    """ColloquyStatus for a writing run status (complete → completed, waiting_approval → waiting_user, a post below
    the score floor → partial)."""
    return WRITING_STATUS.get(run_status, run_status)


def query_status(state: str, *, waiting_user: bool = False, partial: bool = False, failed: bool = False) -> str:
    """ColloquyStatus of a query run in `state` (its upper-case state name): failed, waiting_user (a clarifying
    question is pending), partial/completed once COMPLETE, else running."""
    if failed:
        return FAILED
    if state.upper() == "COMPLETE":
        return PARTIAL if partial else COMPLETED
    return WAITING_USER if waiting_user else RUNNING



def model_check_status(failed_rows: int) -> str:
    """ColloquyStatus of a finished model check: partial when some models failed their check."""
    return PARTIAL if failed_rows else COMPLETED
