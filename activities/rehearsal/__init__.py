"""rehearsal activities: the simulated-interviewee agent (answers generated from a persona)."""

from typing import Any

from activities.rehearsal.interviewee import rehearsal_interviewee

LLM_ACTIVITIES: list[Any] = [rehearsal_interviewee]
ACTIVITIES: list[Any] = []
