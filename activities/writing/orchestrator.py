"""Orchestrator consult (§13): informed of a circuit break with full context, it decides force_complete /
retry_different / halt / dump_context. The workflow then applies the decision (hard limits still win)."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.artifacts import store
from activities.llm import offline
from activities.writing.common import persona_text
from models.writing.workflow import CircuitBreakerDecision, ConsultInput, ConsultResult

ORCHESTRATOR = AgentSpec("writing_orchestrator", "writing/orchestrator.md", CircuitBreakerDecision, tier="high",
                         role="auditor", policy="agent",
                         description="Decides what to do when a circuit breaker rule fires")


@ORCHESTRATOR.activity
async def writing_orchestrator(inp: ConsultInput) -> ConsultResult:
    persona = persona_text("orchestrator", inp.persona_file, inp.persona_text)
    ctx = inp.brk.context
    variables = {
        "persona": persona, "story": store().get(inp.story)[:4000], "rule": inp.brk.rule, "message": inp.brk.message,
        "state_visits": ctx.state_visits, "history": " → ".join(f"{a}→{b}" for a, b in ctx.transition_history),
        "transition_count": ctx.transition_count, "elapsed_s": round(ctx.elapsed_s), "cost": ctx.total_cost_usd,
        "outputs": "\n".join(f"- {o}" for o in inp.outputs) or "(none)",
        "scores": "\n".join(f"- {s}" for s in inp.quality_scores) or "(none)", "states": ", ".join(inp.states),
    }
    result = await ORCHESTRATOR.run(variables, model=inp.model,
                                    offline_context={"rule": inp.brk.rule, "outputs": len(inp.outputs)})
    return ConsultResult(decision=result.output, usage=result.usage)


@ORCHESTRATOR.offline
def _offline_orchestrator(req: offline.OfflineRequest) -> dict:
    if req.context.get("outputs"):
        return {"reasoning": f"{req.context.get('rule')} fired; outputs exist, so finish with the best one.",
                "decision": "force_complete"}
    return {"reasoning": f"{req.context.get('rule')} fired and nothing usable exists.", "decision": "halt"}

