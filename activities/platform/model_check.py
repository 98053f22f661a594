"""`model_check`: one structured call per agent, with that agent's model AND its real output schema.

`colloquy models --check` proves a configuration: for each agent the worker sends a small representative prompt
(the agent's role, one short example case) asking for the agent's own output model (`AgentSpec.output_model`,
the same schema, structured-output mode and token budget its pipeline calls use; free-text agents are asked for
a short text). The answer must validate; an invalid one is reported with the reason (no retry: a check reports
what the model does). The agent `model_check` itself keeps its tiny echo prompt.
"""

from __future__ import annotations

import asyncio
import json

from pydantic import BaseModel, Field
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.agents.base import AGENTS, AgentSpec
from activities.llm import gateway, offline
from activities.llm.config import ConfigError, current_config, resolve_model
from models.common import LLMUsage
from models.platform.workflow import AgentModelRow, ModelTable, WorkerModelsRequest


class ModelCheckInput(BaseModel):
    word: str = "colloquy"
    agent: str | None = Field(default=None, description="Check the model (and output schema) of this agent")


class ModelCheckOutput(BaseModel):
    ok: bool
    echo: str = Field(max_length=80)
    model_note: str = Field(default="", max_length=160)


class ModelCheckResult(BaseModel):
    """AgentResult[ModelCheckOutput]'s shape (output, usage) plus what the worker checked and how."""

    output: ModelCheckOutput
    usage: LLMUsage
    profile: str = Field(default="", description="The worker's profile")
    structured_output: str = Field(default="", description="json_schema | json_object | tools | prompt | text")
    output_schema: str = Field(default="", description="The output model checked")
    error: str | None = Field(default=None, description="Why the agent's output was invalid")


MODEL_CHECK = AgentSpec("model_check", "platform/model_check.md", ModelCheckOutput, tier="low",
                        policy="fast_agent",
                        description="Connectivity check used by `colloquy models --check` and the tests")

#: The one example case every agent is asked about (small: the check is about the schema, not the content).
CHECK_CASE = ("Example case. Topic: 'What on-call taught me'. Maya, a site reliability engineer, tells how a TLS "
              "certificate expired at 2 a.m. on Black Friday, how she found it in 20 minutes, and the runbook "
              "and expiry alert she wrote afterwards. Question asked: 'What changed in how you work?'")


def check_messages(spec: AgentSpec[BaseModel]) -> list[dict[str, str]]:
    """The small representative prompt for `spec` (what `models --check` and the model-server bench send)."""
    what = ("Answer in at most three sentences of plain text." if spec.free_text else
            f"Answer with your {spec.output_model.__name__} for this case as one JSON object; keep every text "
            f"field short and every list to one or two items.")
    return [{"role": "system", "content": f"You are the agent `{spec.name}` of Colloquy, an LLM pipeline: "
                                          f"{spec.description}."},
            {"role": "user", "content": f"{CHECK_CASE}\n\n{what}"}]


@MODEL_CHECK.activity
async def model_check(inp: ModelCheckInput) -> ModelCheckResult:
    """One call with the model `inp.agent` resolves to and that agent's output schema."""
    agent = inp.agent or MODEL_CHECK.name
    spec = AGENTS.get(agent)
    profile, mode, res = "", "", None
    try:
        cfg = current_config()
        profile = cfg.profile
        res = resolve_model(agent, cfg)
        mode = gateway.structured_mode(res) if res else ""
    except ConfigError:  # surfaces from the call below, as the gateway's clear non-retryable error
        pass
    if spec is None or spec is MODEL_CHECK:
        # Labelled (and answered offline) as model_check; the model is the one `inp.agent` resolves to.
        output, usage = await MODEL_CHECK.complete({"word": inp.word}, ModelCheckOutput,
                                                   offline_context={"word": inp.word, "checked_agent": inp.agent},
                                                   model_of=agent)
        return ModelCheckResult(output=output, usage=usage, profile=profile, structured_output=mode,
                                output_schema=ModelCheckOutput.__name__)
    schema = None if spec.free_text else spec.output_model
    try:
        # Labelled and answered offline as the agent itself: the offline double fills its schema as in a run.
        answer, usage = await spec.call(check_messages(spec), schema, offline_context={"model_check": True})
    except ApplicationError as err:
        if err.type != gateway.INVALID_OUTPUT:
            raise
        usage = LLMUsage(agent=agent, model=res.model if res else "", provider=res.provider if res else "")
        return ModelCheckResult(output=ModelCheckOutput(ok=False, echo=spec.output_model.__name__),
                                usage=usage, profile=profile, structured_output=mode,
                                output_schema=spec.output_model.__name__, error=err.message)
    if spec.free_text:
        text = str(answer).strip()
        error = None if text else f"{agent}: the model returned an empty answer"
        preview = text
        mode = "text"
    else:
        error = None
        preview = json.dumps(answer.model_dump(mode="json"))
    return ModelCheckResult(output=ModelCheckOutput(ok=error is None, echo=spec.output_model.__name__[:80],
                                                    model_note=preview[:160]),
                            usage=usage, profile=profile, structured_output=gateway.structured_mode(res)
                            if res and not spec.free_text else mode,
                            output_schema=spec.output_model.__name__, error=error)


@MODEL_CHECK.offline
def _offline_model_check(request: offline.OfflineRequest) -> dict[str, object]:
    return {"ok": True, "echo": str(request.context.get("word", "")), "model_note": "offline test double"}



# ------------------------------------------------------------------------------- the resolved agent table
def model_table(vram_gb: float | None = None) -> ModelTable:
    """Per agent, the model this process would use and why (config, env, GPU): `colloquy models` prints it for
    the shell it runs in, and the `worker_models` activity returns it from an LLM worker. Calls no model."""
    import socket

    from activities.llm.config import (
        AGENT_REGISTRY,
        ConfigError,
        check_agent_names,
        current_config,
        resolve_model,
    )
    from activities.llm.gpu import choose_tier, read_gpus
    from activities.llm.slots import worker_slots

    reading = read_gpus()
    vram = reading.best_vram_gb if vram_gb is None else vram_gb
    gpu = ", ".join(f"{g.name} {g.vram_total_gb} GB" for g in reading.gpus) or f"none ({reading.error})"
    tier, host = choose_tier(vram).name, socket.gethostname()
    try:
        cfg = current_config()
        check_agent_names(cfg)
        rows = []
        for name in sorted(AGENT_REGISTRY):
            res = resolve_model(name, cfg, vram_gb=vram_gb)
            fb = resolve_model(name, cfg, use_fallback=True, vram_gb=vram_gb)
            assert res is not None
            rows.append(AgentModelRow(agent=name, tier=res.tier, model=res.litellm_model,
                                      fallback=fb.litellm_model if fb else None, why=res.reason))
    except ConfigError as exc:
        return ModelTable(profile="?", default_provider="?", error=str(exc), gpu=gpu, local_tier=tier, host=host)
    slots = worker_slots(cfg)
    return ModelTable(profile=cfg.profile, default_provider=cfg.default_provider,
                      fallback_provider=cfg.fallback_provider, sources=list(cfg.source), rows=rows, gpu=gpu,
                      local_tier=tier, host=host, llm_slots=slots.slots, llm_slots_why=slots.why[:500])


@activity.defn(name="worker_models")
async def worker_models(req: WorkerModelsRequest) -> ModelTable:
    """The agent table as this LLM worker resolves it (WorkerModelsWorkflow; `colloquy models`)."""
    return await asyncio.to_thread(model_table, req.vram_gb)
