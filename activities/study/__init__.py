"""Study pipeline activities: the analysis agents (LLM queue) and the look-ups/reduce/publish (workflow queue)."""

from typing import Any

from activities.agents.base import agent_activities
from activities.study.digest import study_digest
from activities.study.erasure import study_erase_participant, study_purge_runs
from activities.study.storage import study_lookup_interviews, study_publish, study_reduce
from activities.study.synthesis import study_synthesis
from activities.study.theme_merge import study_theme_merge
from activities.study.translate import study_translate_plan

LLM_ACTIVITIES: list[Any] = agent_activities(__name__)
ACTIVITIES: list[Any] = [study_lookup_interviews, study_reduce, study_publish, study_erase_participant,
                         study_purge_runs]

# the activity functions are exported for the workflows; importing them declares the agents
__all__ = ["ACTIVITIES", "LLM_ACTIVITIES", "study_digest", "study_erase_participant",
           "study_lookup_interviews", "study_purge_runs", "study_publish",
           "study_reduce", "study_synthesis", "study_theme_merge", "study_translate_plan"]
