"""rehearsal activities: the simulated-interviewee agent (answers generated from a persona)."""

from typing import Any

from activities.agents.base import agent_activities
from activities.rehearsal import interviewee  # noqa: F401  (the agent module declares its agent)

LLM_ACTIVITIES: list[Any] = agent_activities(__name__)
ACTIVITIES: list[Any] = []
