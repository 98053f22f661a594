"""Non-LLM writing activities: prepare a run (config file, personas, story artifact) and write the run logs."""

from __future__ import annotations

import asyncio
import json

import yaml
from pydantic import BaseModel, Field
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.artifacts import store
from activities.writing.configs import load_worker_config, persona_path
from activities.writing.history import HistoryStore
from models.common import ArtifactRef
from models.writing.workflow import RunArtifacts, RunRecord, WorkflowConfig
from rules.writing.config import ConfigError, persona_for
from rules.writing.summary import agent_logs, manifest, run_summary, state_log_lines, token_lines


class PrepareInput(BaseModel):
    run_id: str
    config: WorkflowConfig | None = None
    config_name: str = "default"
    inline_personas: list[str] = Field(default_factory=list)
    story_text: str | None = None


class PrepareResult(BaseModel):
    config: WorkflowConfig
    story_ref: ArtifactRef | None = None


def _writing_prepare_run(inp: PrepareInput) -> PrepareResult:
    try:
        cfg = inp.config or load_worker_config(inp.config_name)
    except ConfigError as exc:
        raise ApplicationError(str(exc), type="ConfigError", non_retryable=True) from None
    missing = []
    for name, state in cfg.states.items():
        if state.type not in ("fan-out", "single", "orchestrator-task"):
            continue
        persona = persona_for(state)
        if persona in inp.inline_personas:
            continue
        if not persona_path(persona, cfg.personas.get(persona)).is_file():
            missing.append(f"state {name!r}: persona file {cfg.personas.get(persona) or persona + '.md'} not found")
    if cfg.orchestrator.persona not in inp.inline_personas and \
            not persona_path(cfg.orchestrator.persona, cfg.personas.get(cfg.orchestrator.persona)).is_file():
        missing.append(f"orchestrator persona {cfg.orchestrator.persona!r} not found")
    if missing:
        raise ApplicationError(f"invalid writing workflow config {cfg.name!r}: " + "; ".join(missing),
                               type="ConfigError", non_retryable=True)
    ref = store().put(inp.run_id, "input_story.md", inp.story_text, "text/markdown") if inp.story_text else None
    return PrepareResult(config=cfg, story_ref=ref)


@activity.defn(name="writing_prepare_run")
async def writing_prepare_run(inp: PrepareInput) -> PrepareResult:
    """Load the named config (when none was given), check every persona file exists, store the story."""
    return await asyncio.to_thread(_writing_prepare_run, inp)


class RunLogsInput(RunRecord):
    analysis_ref: ArtifactRef | None = None


def _writing_write_run_logs(inp: RunLogsInput) -> RunArtifacts:
    artifacts = store()
    scope = inp.state.run_id
    refs: dict[str, ArtifactRef] = {}
    refs["run_manifest.yaml"] = artifacts.put(scope, "run_manifest.yaml",
                                              yaml.safe_dump(manifest(inp), sort_keys=False, allow_unicode=True),
                                              "application/yaml")
    refs["state_log.jsonl"] = artifacts.put(scope, "state_log.jsonl", "\n".join(state_log_lines(inp)) + "\n",
                                            "application/jsonl")
    refs["token_usage.jsonl"] = artifacts.put(scope, "token_usage.jsonl", "\n".join(token_lines(inp)) + "\n",
                                              "application/jsonl")
    for name, lines in agent_logs(inp).items():
        refs[name] = artifacts.put(scope, name.replace("/", "__"), "\n".join(lines) + "\n", "application/jsonl")
    post_text = artifacts.get(inp.final_post.ref) if inp.final_post else None
    analysis_text = artifacts.get(inp.analysis_ref) if inp.analysis_ref else None
    try:
        history = HistoryStore().context(inp.state.story_name, inp.state.run_id)
    except Exception as exc:  # history is context here, never a reason to lose the run's logs
        activity.logger.warning("run summary without historical context: %s", exc)
        history = None
    refs["run_summary.md"] = artifacts.put(scope, "run_summary.md",
                                           run_summary(inp, post_text, analysis_text, history))
    return RunArtifacts(refs=refs)


@activity.defn(name="writing_write_run_logs")
async def writing_write_run_logs(inp: RunLogsInput) -> RunArtifacts:
    """§7: run_manifest.yaml, state_log.jsonl, token_usage.jsonl, agent_logs/*.jsonl, run_summary.md."""
    return await asyncio.to_thread(_writing_write_run_logs, inp)


class DumpInput(BaseModel):
    run_id: str
    context: dict


def _writing_dump_context(inp: DumpInput) -> ArtifactRef:
    return store().put(inp.run_id, "debug_dump.json", json.dumps(inp.context, indent=2, default=str),
                       "application/json")


@activity.defn(name="writing_dump_context")
async def writing_dump_context(inp: DumpInput) -> ArtifactRef:
    """The orchestrator's dump_context decision: everything the run knows, as debug_dump.json."""
    return await asyncio.to_thread(_writing_dump_context, inp)
