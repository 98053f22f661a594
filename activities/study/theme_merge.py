"""Theme-merge (the reduce step of the analysis): a batch of digest theme labels onto one growing catalogue.
The workflow calls it once per `theme_batch` digests, so the analysis grows linearly with participants."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.llm import offline
from models.common import AgentResult
from models.study.activities import ThemeMergeInput, ThemeMergeOutput

THEME_MERGE = AgentSpec("study_theme_merge", "study/theme_merge.md", ThemeMergeOutput, tier="medium",
                        policy="agent", description="Study: maps digest theme labels onto one theme catalogue")


@THEME_MERGE.activity
async def study_theme_merge(inp: ThemeMergeInput) -> AgentResult[ThemeMergeOutput]:
    result = await THEME_MERGE.run(
        {"research_goal": inp.research_goal, "catalogue": "\n".join(f"- {t}" for t in inp.catalogue) or "(empty)",
         "titles": "\n".join(f"- {t}" for t in inp.titles)},
        offline_context={"titles": inp.titles})
    # every label of the batch gets a target (a label the model left out maps to itself)
    mapping = {t: (result.output.mapping.get(t) or t).strip() or t for t in inp.titles}
    result.output.mapping = mapping
    return result


@THEME_MERGE.offline
def _offline_merge(req: offline.OfflineRequest) -> dict | None:
    """The double merges nothing: each label maps to itself (only identical labels count together)."""
    if "titles" not in req.context:
        return None
    return {"mapping": {t: t for t in req.context["titles"]}}
