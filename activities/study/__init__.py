"""Study pipeline activities: the analysis agents (LLM queue) and the look-ups/reduce/publish (workflow queue)."""

from typing import Any

from activities.study.digest import study_digest
from activities.study.storage import study_lookup_interviews, study_publish, study_reduce
from activities.study.synthesis import study_synthesis
from activities.study.theme_merge import study_theme_merge
from activities.study.translate import study_translate_plan

LLM_ACTIVITIES: list[Any] = [study_translate_plan, study_digest, study_theme_merge, study_synthesis]
ACTIVITIES: list[Any] = [study_lookup_interviews, study_reduce, study_publish]
