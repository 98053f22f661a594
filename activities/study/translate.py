"""Translator: the study's plan in a participant's language (ids unchanged). The offline test double does not
translate: its plan keeps the original words and every question says so in a label the participant sees."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.llm import offline
from models.common import AgentResult
from models.interview.plan import PlanSnapshot
from models.study.activities import TranslatedPlan, TranslatePlanInput

TRANSLATE = AgentSpec("study_translate", "study/translate.md", PlanSnapshot, tier="medium", policy="agent",
                      description="Study: translates the interview plan into a participant's language")


def offline_label(language: str) -> str:
    return f"[{language} — not translated: offline test double]"


def _same_ids(a: PlanSnapshot, b: PlanSnapshot) -> bool:
    ids = [(s.id, [q.id for q in s.questions]) for s in a.sections]
    return ids == [(s.id, [q.id for q in s.questions]) for s in b.sections]


@TRANSLATE.activity
async def study_translate_plan(inp: TranslatePlanInput) -> AgentResult[TranslatedPlan]:
    result = await TRANSLATE.run({"language": inp.language, "source_language": inp.source_language,
                                  "plan_json": inp.plan.model_dump_json(indent=1)},
                                 offline_context={"plan": inp.plan.model_dump(mode="json")})
    plan, usage = result.output, result.usage
    if usage.offline or not _same_ids(plan, inp.plan):
        # the double only echoes (or a model broke the ids): the original plan, labelled as not translated
        note = ("not translated: offline test double" if usage.offline
                else "not translated: the translation changed the plan's questions")
        label = offline_label(inp.language) if usage.offline else f"[{inp.language} — not translated]"
        plan = inp.plan.model_copy(deep=True)
        for sec in plan.sections:
            for q in sec.questions:
                q.text = f"{label} {q.text}"
            if sec.primary_prompt:
                sec.primary_prompt = f"{label} {sec.primary_prompt}"
        return AgentResult[TranslatedPlan](output=TranslatedPlan(plan=plan, translated=False, note=note), usage=usage)
    plan = plan.model_copy(update={"language": inp.language})   # the closing question follows (rules/interview/closing.py)
    return AgentResult[TranslatedPlan](output=TranslatedPlan(plan=plan, translated=True,
                                                             note=f"machine translation ({usage.model})"),
                                       usage=usage)


@TRANSLATE.offline
def _offline_translate(req: offline.OfflineRequest) -> dict | None:
    return req.context.get("plan")       # an echo: study_translate_plan labels it as not translated
