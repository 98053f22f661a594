"""Interview pipeline: the plan (seed 000's Planner output): questions, dimensions, sections.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from models.common import (
    MAX_ITEMS,
    IdStr,
    LineStr,
    NameStr,
    TextStr,
)


# ------------------------------------------------------------------------------------------- plan (000)
class QuestionSnapshot(BaseModel):
    id: IdStr
    text: LineStr
    role: Literal["backbone", "followup"] = "backbone"
    priority: int = Field(default=2, ge=1, le=3, description="1 = must-hit, 2 = important, 3 = nice-to-have")
    notes_for_interviewer: LineStr = ""


class DimensionSpec(BaseModel):
    """003 §6.2: a required dimension of a section (structured mode)."""

    name: NameStr
    priority: int = Field(default=1, ge=1, le=3, description="1 = highest; ties keep schema order")
    keywords: list[NameStr] = Field(default_factory=list, max_length=MAX_ITEMS,
                                    description="Words whose mention counts as covering it")


class SectionSnapshot(BaseModel):
    id: IdStr
    title: NameStr
    importance: Literal["high", "medium", "low"] = "medium"
    goal: LineStr = ""
    duration_seconds: int | None = Field(default=None, description="None: a share of the interview by importance")
    questions: list[QuestionSnapshot] = Field(default_factory=list, max_length=MAX_ITEMS)
    # structured mode (003 §6)
    primary_prompt: LineStr | None = None
    required_dimensions: list[DimensionSpec] = Field(default_factory=list, max_length=MAX_ITEMS)
    followup_pool: dict[NameStr, Annotated[list[LineStr], Field(max_length=MAX_ITEMS)]] = Field(
        default_factory=dict, max_length=MAX_ITEMS, description="dimension -> questions")
    followup_cap: int = 2
    allowed_actions: list[IdStr] = Field(default_factory=lambda: ["chat", "submit", "ask_assistant"],
                                         max_length=MAX_ITEMS)


class PlanSnapshot(BaseModel):
    topic: NameStr
    research_goal: LineStr
    angle: LineStr
    sections: list[SectionSnapshot] = Field(max_length=MAX_ITEMS)
    schema_version: IdStr = "1"
    is_follow_up: bool = False
    previous_session_id: IdStr | None = None
    follow_up_context: TextStr = ""
    language: IdStr | None = Field(default=None, description="The plan's language (BCP 47), set by the study's "
                                   "Translator; None: English. The closing question is asked in it")
