"""The interview session as a pure state machine (000's diagram, 003's engine contract) — no Temporal, no I/O.

    create → plan_or_request → set_plan → start
        ├─ entries:   check_entry, accept_entry; attribute_late (which section a late answer belongs to, 003 §5.2)
        ├─ controls:  check_control, control (pause/disconnect, resume/reconnect, candidate_done, end)
        ├─ presence:  heartbeat (first one turns it on; after a disconnect pause: reconnect), presence_deadline
        │             (no interviewee heartbeat for presence_timeout_seconds while IN_PROGRESS → PAUSED)
        ├─ clock:     next_due, on_clock (phases at 15 %/85 %, T-2:00/T-0:30 warnings, section deadlines, the end,
        │             the late grace)
        ├─ sections:  _start_section, _end_section (the next one starts at the deadline itself)
        └─ live step: cycle_begins, merge_notes, add_research, needs_decision → present_decision (adaptive),
                      assess_coverage → follow-up or end of section (structured)
    exits: _end_interview, _complete, terminate (exit reasons: time_expired, coverage_satisfied, candidate_done,
           followup_budget_exhausted, followups_exhausted, ended_by_client, interviewer_closing, system_error)
    views: view (SessionState), waiting_for, allowed_actions; agent inputs: *_input
    continue-as-new: archive_transcript, carry (the whole state as one `InterviewState`)

Every method that changes the session takes `now` (workflow time) and returns an `Outcome`: the events it
appended to the 003 log, the activity-log lines it said, and the effects the workflow must carry out, in order
(search-attribute upserts, section summaries to start, wake the live loop, re-plan the clock). The workflow
(`workflows/interview/workflow.py`) applies them; it issues every Temporal command, this class issues none.

`Session` is a façade: each concern lives in its own module, each part building on the one before it —
`session_base` (state, outcomes, the log, the section and question in force) → `session_schedule` (presence,
pause/resume, clock, sections, exits) → `session_intake` (planning, start, entries) → `session_controls`
(controls, assistant, continue-as-new) → `session_live` (the live step) → `session_views` (views, agent inputs).
"""

from __future__ import annotations

from .session_base import LIVE_STATUSES, MAX_ASSISTANT_QUERY_CHARS, Outcome
from .session_views import SessionViews

__all__ = [
    "LIVE_STATUSES",
    "MAX_ASSISTANT_QUERY_CHARS",
    "Outcome",
    "Session",
]


class Session(SessionViews):
    """One interview's state (`self.state`, an `InterviewState`) and every decision about it."""
