"""Payloads of the platform's own workflows: the model check, the worker's model table, artifact reads."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, computed_field

from models.common import MAX_ITEMS, ArtifactRef, IdStr, LLMUsage, UsageTotals
from models.status import model_check_status

# ------------------------------------------------------------------------------------------- public names
# The model check's contract (`colloquy models --check`). Never change a value (recorded histories use them).
MODEL_CHECK_WORKFLOW_TYPE = "ModelCheckWorkflow"           # ModelCheckRequest -> ModelCheckReport
QUERY_MODEL_CHECK_ROWS = "rows"                            # -> list[ModelCheckRow] (rows finished so far)
# `colloquy models`: the agent table as an LLM worker resolves it (its env, config, GPU) — no model is called.
WORKER_MODELS_WORKFLOW_TYPE = "WorkerModelsWorkflow"       # WorkerModelsRequest -> ModelTable
# Any client reads a run's artifacts through the worker that wrote them, one chunk per workflow.
READ_ARTIFACT_WORKFLOW_TYPE = "ReadArtifactWorkflow"       # ArtifactChunkRequest -> ArtifactChunk
ARTIFACT_PIPELINE = "artifact"                             # its ColloquyPipeline (a helper: the UI filters it out)

ARTIFACT_CHUNK_BYTES = 128 * 1024        # what a client asks for per chunk (the history holds it twice)
ARTIFACT_CHUNK_MAX_BYTES = 512 * 1024    # the most one chunk may carry (well under Temporal's 2 MB payload limit)


class ModelCheckRequest(BaseModel):
    agents: list[IdStr] = Field(default_factory=lambda: ["model_check"], max_length=MAX_ITEMS,
                                description="Agents whose models to check")
    word: IdStr = "colloquy"
    parallel: int | None = Field(default=None, ge=1, le=MAX_ITEMS, description="At most this many checks at "
                                 "once (the LLM worker's slots, where its models serve few calls at once), so "
                                 "each agent gets its own time budget; None: all at once")


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

    @computed_field  # type: ignore[prop-decorator]
    @property
    def colloquy_status(self) -> str:
        """The run's final ColloquyStatus (shared vocabulary): partial when some models failed their check."""
        return model_check_status(sum(1 for r in self.rows if not r.ok))


class WorkerModelsRequest(BaseModel):
    vram_gb: float | None = Field(default=None, description="Pretend this much GPU memory (tier preview)")


class AgentModelRow(BaseModel):
    agent: str
    tier: str
    model: str = Field(description="litellm model id")
    fallback: str | None = None
    why: str = ""


class ModelTable(BaseModel):
    """Per agent, the model it would use and why, as one process resolves it (`colloquy models`)."""

    profile: str
    default_provider: str
    fallback_provider: str | None = None
    sources: list[str] = Field(default_factory=list)
    gpu: str = ""
    local_tier: str = ""
    host: str = Field(default="", description="Where it was resolved (the worker's host name)")
    rows: list[AgentModelRow] = Field(default_factory=list)
    error: str | None = Field(default=None, description="A configuration error instead of rows")
    llm_slots: int | None = Field(default=None, description="The LLM worker's activity slots as the models' "
                                  "concurrency bounds them (None: not bounded by the models)")
    llm_slots_why: str = Field(default="", max_length=500)


class ArtifactChunkRequest(BaseModel):
    """One chunk of an artifact, read by the worker whose store holds it."""

    model_config = ConfigDict(extra="forbid")

    ref: ArtifactRef
    offset: int = Field(default=0, ge=0)
    max_bytes: int = Field(default=ARTIFACT_CHUNK_BYTES, ge=1, le=ARTIFACT_CHUNK_MAX_BYTES)


class ArtifactChunk(BaseModel):
    offset: int
    data_b64: str = Field(description="The chunk's bytes, base64 (a chunk may end inside a UTF-8 character)")
    total_bytes: int
