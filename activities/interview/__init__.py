"""Interview pipeline activities: one module per agent (LLM queue) plus storage/export (workflow queue)."""

from typing import Any

from activities.agents.base import agent_activities
from activities.interview.analysis import interview_analysis
from activities.interview.assistant import interview_assistant
from activities.interview.follow_up import interview_follow_up
from activities.interview.note_taker import interview_note_taker
from activities.interview.orchestrator import interview_orchestrator
from activities.interview.planner import interview_planner
from activities.interview.researcher import interview_researcher
from activities.interview.section_summary import interview_section_summary
from activities.interview.storage import (
    interview_archive_lines,
    interview_export_bundles,
    interview_load_session,
    interview_save_transcript,
)
from activities.interview.writer import interview_writer

LLM_ACTIVITIES: list[Any] = agent_activities(__name__)
ACTIVITIES: list[Any] = [interview_archive_lines, interview_save_transcript, interview_load_session,
                         interview_export_bundles]

# the activity functions are exported for the workflows; importing them declares the agents
__all__ = ["ACTIVITIES", "LLM_ACTIVITIES", "interview_analysis", "interview_archive_lines",
           "interview_assistant", "interview_export_bundles", "interview_follow_up", "interview_load_session",
           "interview_note_taker", "interview_orchestrator", "interview_planner", "interview_researcher",
           "interview_save_transcript", "interview_section_summary", "interview_writer"]
