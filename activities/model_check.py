"""`model_check`: one tiny structured call per agent model, to prove a configuration works end to end."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field
from temporalio import activity

from activities.agents.base import AgentSpec
from activities.llm import offline
from models.common import AgentResult
from models.platform import AgentModelRow, ModelTable, WorkerModelsRequest


class ModelCheckInput(BaseModel):
    word: str = "colloquy"
    agent: str | None = Field(default=None, description="Check the model this agent resolves to")


class ModelCheckOutput(BaseModel):
    ok: bool
    echo: str = Field(max_length=80)
    model_note: str = Field(default="", max_length=160)


MODEL_CHECK = AgentSpec("model_check", "platform/model_check.md", ModelCheckOutput, tier="low",
                        policy="fast_agent",
                        description="Connectivity check used by `colloquy models --check` and the tests")


@MODEL_CHECK.activity
async def model_check(inp: ModelCheckInput) -> AgentResult[ModelCheckOutput]:
    """One structured call with the model `inp.agent` resolves to (default: model_check's own)."""
    # Labelled (and answered offline) as model_check; the model is the one `inp.agent` resolves to.
    output, usage = await MODEL_CHECK.complete({"word": inp.word}, ModelCheckOutput,
                                               offline_context={"word": inp.word, "checked_agent": inp.agent},
                                               model_of=inp.agent or MODEL_CHECK.name)
    return AgentResult[ModelCheckOutput](output=output, usage=usage)  # type: ignore[arg-type]


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
    return ModelTable(profile=cfg.profile, default_provider=cfg.default_provider,
                      fallback_provider=cfg.fallback_provider, sources=list(cfg.source), rows=rows, gpu=gpu,
                      local_tier=tier, host=host)


@activity.defn(name="worker_models")
async def worker_models(req: WorkerModelsRequest) -> ModelTable:
    """The agent table as this LLM worker resolves it (WorkerModelsWorkflow; `colloquy models`)."""
    return await asyncio.to_thread(model_table, req.vram_gb)
