"""StudyWorkflow's plan per language: the plan as written, or translated once per language (cached; a failed
translation shows the plan as it is, with a note). Its own class so that workflows/study/workflow.py reads like the
seed's diagram; StudyWorkflow inherits it."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.study import study_translate_plan
    from models.common import AgentResult
    from models.interview.plan import PlanSnapshot
    from models.study import patches as study_patches
    from models.study.activities import TranslatePlanInput
    from rules.errors import error_message
    from workflows.calls import call_agent

if TYPE_CHECKING:
    from models.study.workflow import StudyInput, StudyState


class PlanLanguages:
    inp: StudyInput
    st: StudyState
    translating: dict[str, asyncio.Task[None]]

    def _used(self, result: AgentResult[Any]) -> None:
        raise NotImplementedError

    async def _plan_in(self, language: str) -> PlanSnapshot:
        st = self.st
        assert st.plan is not None
        english = language == self.inp.default_language and self._english_plan_for(language)
        if language == self.inp.default_language and not english:
            return st.plan
        if language not in st.translations:
            if language not in self.translating:
                self.translating[language] = asyncio.create_task(self._translate(language, "en" if english else None))
            await self.translating[language]
        return st.translations[language]

    def _english_plan_for(self, language: str) -> bool:
        """The Planner's plan says it is English (no language: the offline double wrote it, or the Planner failed and
        the plan came from the topic) while `language`, the study's default, is not: its participants get it
        translated like any other's. A plan the researcher gave or edited is theirs: shown as it is."""
        st = self.st
        assert st.plan is not None
        written = self.inp.plan is None and st.plan_edits == 0
        english = (st.plan.language or "en").split("-")[0].lower() == "en"
        return written and english and language.split("-")[0].lower() != "en" and \
            workflow.patched(study_patches.PLAN_LANGUAGE)

    async def _translate(self, language: str, source: str | None = None) -> None:
        st = self.st
        assert st.plan is not None
        try:
            result = await call_agent(study_translate_plan, TranslatePlanInput(
                plan=st.plan, language=language, source_language=source or self.inp.default_language),
                summary=f"Translator: the plan into {language}")
            self._used(result)
            st.translations[language], st.translation_notes[language] = result.output.plan, result.output.note
        except ActivityError as err:
            workflow.logger.warning("translation into %s failed: %s", language, error_message(err))
            st.translations[language] = st.plan
            st.translation_notes[language] = f"not translated: the translator failed ({error_message(err)[:120]})"

