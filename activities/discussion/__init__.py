"""discussion pipeline activities."""

from typing import Any

LLM_ACTIVITIES: list[Any] = []
ACTIVITIES: list[Any] = []
