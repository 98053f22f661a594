"""Team-discussion activities (seed 002): one module per role agent, plus transcript and report renderers."""

from typing import Any

from activities.agents.base import agent_activities
from activities.discussion.critique import discussion_critique
from activities.discussion.ideate import discussion_ideate
from activities.discussion.implement import discussion_implement
from activities.discussion.kickoff import discussion_kickoff
from activities.discussion.report import discussion_report
from activities.discussion.research import discussion_research
from activities.discussion.score import discussion_score
from activities.discussion.select import discussion_select
from activities.discussion.synthesize import discussion_synthesize
from activities.discussion.transcript import discussion_transcript

LLM_ACTIVITIES: list[Any] = agent_activities(__name__)
ACTIVITIES: list[Any] = [discussion_transcript, discussion_report]

# the activity functions are exported for the workflows; importing them declares the agents
__all__ = ["ACTIVITIES", "LLM_ACTIVITIES", "discussion_critique", "discussion_ideate", "discussion_implement",
           "discussion_kickoff", "discussion_report", "discussion_research", "discussion_score",
           "discussion_select", "discussion_synthesize", "discussion_transcript"]
