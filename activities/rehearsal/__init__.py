"""rehearsal activities (simulated interviewee agent)."""

from typing import Any

LLM_ACTIVITIES: list[Any] = []
ACTIVITIES: list[Any] = []
