"""Team-discussion activities (seed 002): one module per role agent, plus transcript and report renderers."""

from typing import Any

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

LLM_ACTIVITIES: list[Any] = [discussion_kickoff, discussion_research, discussion_ideate, discussion_critique,
                             discussion_implement, discussion_synthesize, discussion_score, discussion_select]
ACTIVITIES: list[Any] = [discussion_transcript, discussion_report]
