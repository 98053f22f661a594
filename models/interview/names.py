"""Interview pipeline: the contract's names — workflow type, task queue, signals, updates, queries —
its limits and the literal vocabularies (modes, phases, statuses, actors, event types). Clients (CLI,
rehearsal, voice front ends, the Temporal CLI) use these names: they never change.
"""

from __future__ import annotations

from typing import Literal

# ------------------------------------------------------------------------------------------- public names
WORKFLOW_TYPE = "InterviewWorkflow"
TASK_QUEUE = "colloquy"
SIGNAL_TRANSCRIPT_ENTRY = "transcript_entry"      # high-rate stream; bad entries are logged as ENTRY_REJECTED
UPDATE_SUBMIT_ENTRY = "submit_entry"              # validated; returns SubmitEntryResult or a clear error
SIGNAL_SESSION_CONTROL = "session_control"        # pause|resume|disconnect|reconnect|candidate_done|end
UPDATE_SESSION_CONTROL = "control_session"        # same payload, validated, returns SessionState
UPDATE_ASSISTANT_QUERY = "assistant_query"        # 003 §8 assistant channel: AssistantQuery -> AssistantAnswer
UPDATE_HEARTBEAT = "heartbeat"                    # presence: Heartbeat -> SessionState (no heartbeat for N s: PAUSED)
QUERY_SESSION_STATE = "session_state"             # -> SessionState (003 §9 UI contract)
QUERY_EVENT_LOG = "event_log"                     # (after_event_id: int = 0) -> EventLogPage
QUERY_TRANSCRIPT = "transcript"                   # -> TranscriptView
QUERY_NOTES = "notes"                             # -> NotesState
QUERY_PLAN = "plan"                               # -> PlanSnapshot | None

DEFAULT_DURATION_SECONDS = 840                    # 000: a 14-minute interview
DEFAULT_FOLLOW_UP_SECONDS = 360                   # 000: a 6-minute follow-up session
DEFAULT_PRESENCE_TIMEOUT_SECONDS = 20.0           # no interviewee heartbeat this long -> PAUSED (disconnect)
DEFAULT_DECISION_DEADLINE_SECONDS = 8.0          # no decision this long after an answer: the fallback's question
DEFAULT_ANSWER_SETTLE_SECONDS = 2.0              # an answer that may go on in unnumbered parts: wait this long
DEFAULT_ANSWER_PARTS_WAIT_SECONDS = 30.0         # numbered parts: the longest wait for the rest of an answer
MAX_ENTRY_CHARS = 8000                            # longer entries are rejected (split them)
MIN_EVENTS_PER_RUN = 50                           # continue_as_new_after_events: fewer deadlocks a run
MAX_EVENTS_PER_RUN = 50_000                       # Temporal's own limit is 51,200 events
MIN_PRESENCE_TIMEOUT_SECONDS = 1.0                # presence_timeout_seconds: 0 (off) or at least this
MAX_CARRIED_BYTES = 1_536 * 1024                  # an input with carried state (under Temporal's 2 MB limit)

Mode = Literal["adaptive", "structured"]
Style = Literal["standard", "punchy", "reflective"]
Phase = Literal["opening", "deep_dive", "wrap_up"]
Status = Literal["NOT_STARTED", "PLANNING", "IN_PROGRESS", "PAUSED", "FINALIZING", "COMPLETED", "TERMINATED"]
SectionSubstate = Literal["SECTION_INTRO", "SECTION_QUESTION_ACTIVE", "SECTION_FOLLOWUP_ACTIVE", "SECTION_WRAPUP",
                          "SECTION_ENDED", "SECTION_PENDING"]
Actor = Literal["system", "interviewer_ai", "assistant_ai", "candidate", "interviewer", "client"]
ControlAction = Literal["pause", "resume", "disconnect", "reconnect", "candidate_done", "end"]
CONTROL_ACTIONS: tuple[str, ...] = ("pause", "resume", "disconnect", "reconnect", "candidate_done", "end")
SPEAKERS: tuple[str, ...] = ("interviewer", "interviewee")
# Accepted spellings of the two speakers (000 says "expert", 003 says "candidate").
SPEAKER_ALIASES: dict[str, str] = {"interviewer": "interviewer", "host": "interviewer",
                                   "interviewee": "interviewee", "expert": "interviewee",
                                   "candidate": "interviewee", "guest": "interviewee"}
ENTRY_KINDS: tuple[str, ...] = ("message", "code")

# 003 §3.2 event types (plus a few of ours, documented in docs/interview.md).
EVENT_TYPES: tuple[str, ...] = (
    "INTERVIEW_CREATED", "INTERVIEW_STARTED", "SECTION_STARTED", "PROMPT_PRESENTED", "CANDIDATE_MESSAGE",
    "FOLLOWUP_PRESENTED", "CANDIDATE_CODE_SUBMISSION", "ASSISTANT_QUERY", "ASSISTANT_RESPONSE",
    "SECTION_TIME_WARNING", "SECTION_ENDED", "INTERVIEW_COMPLETED", "INTERVIEW_TERMINATED",
    # ours
    "PLAN_READY", "INTERVIEWER_MESSAGE", "PHASE_CHANGED", "AI_REQUEST", "AI_RESPONSE", "AI_FAILED",
    "SESSION_PAUSED", "SESSION_RESUMED", "CANDIDATE_DONE_REQUESTED", "ENTRY_REJECTED", "CONTROL_REJECTED",
    "CLOSING_DETECTED", "COVERAGE_UPDATED", "CONTINUED_AS_NEW", "ARTIFACT_SAVED",
    "SCHEDULE_CHANGED", "DECISION_SLOW",
)
