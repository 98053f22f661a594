"""Observer (seed §11.10): conservative global-context updates after a query, a correction or a notable log."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.llm import offline
from activities.query.common import dump
from models.common import AgentResult
from models.query.agents import ObserveInput, ObserverOutput

OBSERVER = AgentSpec("observe_context", "query/observe_context.md", ObserverOutput, tier="medium", role="writer",
                     policy="agent",
                     description="Query pipeline Observer: global context updates with categories and confidence")
MAX_TOKENS_HINT = 2000


@OBSERVER.activity
async def observe_context(inp: ObserveInput) -> AgentResult[ObserverOutput]:
    session: dict[str, object] = {}
    if inp.trigger == "post_query":
        session = {"query": inp.query, "findings": [f.claim for f in inp.analysis.findings] if inp.analysis else [],
                   "patterns": inp.analysis.patterns_identified if inp.analysis else [], "response": inp.response}
    elif inp.trigger == "user_correction":
        session = {"correction": inp.correction, "what_was_corrected": inp.what_was_corrected}
    else:
        session = {"new_entry": inp.new_entry.model_dump(mode="json") if inp.new_entry else None}
    return await OBSERVER.run(
        {"trigger": inp.trigger, "guidance": inp.context_management_guidance or "(none)",
         "max_tokens": MAX_TOKENS_HINT, "current": inp.current_global_context or "(empty)", "session": dump(session)},
        offline_context={"trigger": inp.trigger},
    )


@OBSERVER.offline
def _offline_observer(req: offline.OfflineRequest) -> ObserverOutput:
    """Keyless default: the most conservative observer — it learns nothing it was not told."""
    return ObserverOutput(should_update=False, updates=[], insights_captured=[])

