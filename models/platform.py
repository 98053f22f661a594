"""Payloads of the platform's own workflow (model check)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from models.common import LLMUsage, UsageTotals

# ------------------------------------------------------------------------------------------- public names
# The model check's contract (`colloquy models --check`). Never change a value (recorded histories use them).
MODEL_CHECK_WORKFLOW_TYPE = "ModelCheckWorkflow"           # ModelCheckRequest -> ModelCheckReport
QUERY_MODEL_CHECK_ROWS = "rows"                            # -> list[ModelCheckRow] (rows finished so far)


class ModelCheckRequest(BaseModel):
    agents: list[str] = Field(default_factory=lambda: ["model_check"], description="Agents whose models to check")
    word: str = "colloquy"


class ModelCheckRow(BaseModel):
    agent: str
    ok: bool
    model: str | None = None
    provider: str | None = None
    echo: str | None = None
    model_note: str | None = Field(default=None, description="What the model said about itself")
    error: str | None = None
    error_type: str | None = Field(default=None, description="ApplicationError type, e.g. LLMAuthError")
    usage: LLMUsage | None = None
    profile: str | None = Field(default=None, description="The worker's profile (offline, local, config)")
    structured_output: str | None = Field(default=None, description="json_schema | json_object | tools | prompt "
                                          "| text: how the worker asked for the output")
    output_schema: str | None = Field(default=None, description="The agent's output model that was checked")


class ModelCheckReport(BaseModel):
    rows: list[ModelCheckRow]
    totals: UsageTotals
