"""Every workflow and activity Colloquy registers. Each pipeline contributes one line per list.

LLM activities (agents) and the rest (storage, artifacts, history) are kept apart so that a worker can run
only one kind (`colloquy worker --role llm|workflows`).
"""

from __future__ import annotations

from typing import Any

from activities.artifacts import ACTIVITIES as ARTIFACT_ACTIVITIES


def workflows() -> list[type]:
    from workflows.platform.artifacts import ReadArtifactWorkflow
    from workflows.platform.model_check import ModelCheckWorkflow, WorkerModelsWorkflow

    found: list[type] = [ModelCheckWorkflow, WorkerModelsWorkflow, ReadArtifactWorkflow]
    for module in _pipeline_modules("workflows", "workflow"):
        found.extend(getattr(module, "WORKFLOWS", []))
    return found


def llm_activities() -> list[Any]:
    from activities.platform.model_check import model_check

    found: list[Any] = [model_check]
    for module in _pipeline_modules("activities"):
        found.extend(getattr(module, "LLM_ACTIVITIES", []))
    return found


def llm_worker_activities() -> list[Any]:
    """What an LLM worker runs: every agent, plus `worker_models` (its resolved agent table; calls no model)."""
    from activities.platform.model_check import worker_models

    return [*llm_activities(), worker_models]


def agent_names() -> list[str]:
    """Every declared agent (importing every agent module declares them)."""
    from activities.llm.config import AGENT_REGISTRY

    llm_activities()
    return sorted(AGENT_REGISTRY)


def check_agent_config() -> None:
    """At worker start-up: every agent the LLM config names (`llm.agents` in colloquy.yaml or the ConfigMap,
    `COLLOQUY_MODEL_<AGENT>`) must exist — a misspelt key would otherwise be ignored silently. Raises
    `activities.llm.config.ConfigError` listing the known agents. Other config mistakes keep surfacing where
    they did (per call, as a non-retryable ConfigError; `colloquy models`)."""
    from activities.llm.config import ConfigError, check_agent_names, current_config

    known = set(agent_names())
    try:
        cfg = current_config()
    except ConfigError:
        return
    check_agent_names(cfg, known)


def other_activities() -> list[Any]:
    found: list[Any] = list(ARTIFACT_ACTIVITIES)
    for module in _pipeline_modules("activities"):
        found.extend(getattr(module, "ACTIVITIES", []))
    return found


def audio_activities() -> list[Any]:
    """Transcription and speech (`<queue>-audio`: audio workers scale apart from the rest)."""
    from activities.voice import AUDIO_ACTIVITIES

    return list(AUDIO_ACTIVITIES)


# One entry per pipeline: `workflows.<name>.workflow` exposes WORKFLOWS; `activities.<name>` exposes LLM_ACTIVITIES
# (its agents' activities, derived from their declarations: activities.agents.base.agent_activities) and
# ACTIVITIES (everything else).
PIPELINES = ["interview", "rehearsal", "query", "writing", "discussion", "study", "voice"]


def _pipeline_modules(package: str, module: str = "") -> list[Any]:
    """Each pipeline's `<package>.<pipeline>` package (activities: its __init__ lists them) or its
    `<package>.<pipeline>.<module>` (workflows: `workflow.py` lists the pipeline's workflows)."""
    import importlib

    suffix = f".{module}" if module else ""
    return [importlib.import_module(f"{package}.{name}{suffix}") for name in PIPELINES]
