"""`model_check`: one tiny structured call per agent model, to prove a configuration works end to end."""

from __future__ import annotations

from pydantic import BaseModel, Field

from activities.agents.base import AgentSpec
from activities.llm import offline
from models.common import AgentResult


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

