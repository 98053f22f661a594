"""Agent declarations: one name for activity, config key and offline responder; declared tier and policy kind;
agent keys in every config source must name a real agent (checked at worker start-up); the worker registers every
declared agent activity; module and prompt are named after the agent, and no prompt file is left without one."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
import yaml

import activities
from activities.agents.base import AGENTS, AgentSpec, agent_activities, agent_activity
from activities.llm import offline
from activities.llm.config import (
    AGENT_REGISTRY,
    ConfigError,
    check_agent_names,
    load_config,
    reset_config_cache,
    resolve_model,
    unknown_agents,
)
from core.resources import prompts_dir
from core.settings import ROOT
from rules.policies import POLICIES
from workers import registry

KNOWN = set(registry.agent_names())
CONFIGMAP = ROOT / "deploy" / "k8s" / "configmap.yaml"


def test_every_agent_activity_is_declared_once_under_its_agent_name():
    for fn in registry.llm_activities():
        declared = agent_activity(fn)
        assert declared is not None, f"{fn.__name__} is not declared with @SPEC.activity"
        name = fn.__temporal_activity_definition.name
        assert declared.policy in POLICIES and declared.policy.endswith("agent")
        if name == declared.spec.name:
            assert declared.spec.activity_fn is fn
        assert declared.spec.name in AGENT_REGISTRY and AGENTS[declared.spec.name] is declared.spec
    assert KNOWN == set(AGENTS)


def _every_agent_declared() -> dict[str, AgentSpec]:
    """Import every module under activities/ (an agent module the registry does not import still declares)."""
    for module in pkgutil.walk_packages(activities.__path__, "activities."):
        importlib.import_module(module.name)
    return dict(AGENTS)


def _name(fn) -> str:
    return fn.__temporal_activity_definition.name


def test_the_llm_worker_registers_every_activity_declared_through_an_agent():
    registered = registry.llm_worker_activities()
    for name, spec in _every_agent_declared().items():
        assert spec.activities, f"agent {name} declares no activity"
        assert spec.activities[0] is spec.activity_fn and _name(spec.activity_fn) == name
        for fn in spec.activities:  # the agent's own activity and any further one (parse_log_batch)
            assert fn in registered, f"{_name(fn)} ({fn.__module__}) is declared but no worker registers it"
    names = [_name(fn) for fn in registered]
    assert len(names) == len(set(names))
    assert {"parse_log_batch", "worker_models"} <= set(names)


def test_a_pipeline_registers_the_agent_activities_of_its_modules_in_declaration_order():
    from activities import query

    assert query.LLM_ACTIVITIES == agent_activities("activities.query")
    names = [_name(fn) for fn in query.LLM_ACTIVITIES]
    assert names.index("parse_log") + 1 == names.index("parse_log_batch")
    assert agent_activities("activities.que") == [] and agent_activities("activities.nothing") == []


#: Pipelines whose agents keep their historical unprefixed names (the name is the role): the query agents and the
#: platform's own `model_check` (activities/platform/model_check.py).
UNPREFIXED = ("query", "platform")


def test_module_and_prompt_are_named_after_the_agent():
    """The rule (activities/agents/base.py): an agent `<P>_<role>` of pipeline P lives in
    activities/<P>/<role>.py with its prompt in prompts/<P>/<role>.md; the query pipeline's agents and the
    platform's keep their historical unprefixed names (`route_input`: activities/query/route_input.py,
    prompts/query/route_input.md). The declaration, its activities and its offline responder are in that one
    module."""
    for name, spec in _every_agent_declared().items():
        module = spec.activity_fn.__module__
        _, pipeline, _ = module.split(".")
        assert pipeline in (*registry.PIPELINES, "platform"), f"{name}: {module} is not in a pipeline package"
        if pipeline in UNPREFIXED:
            role = name
        else:
            assert name.startswith(f"{pipeline}_"), f"{name} (in activities/{pipeline}/) lacks its prefix"
            role = name.removeprefix(f"{pipeline}_")
        assert (module, spec.prompt) == (f"activities.{pipeline}.{role}", f"{pipeline}/{role}.md"), name
        assert {fn.__module__ for fn in spec.activities} == {module}, name
        assert offline._state.responders[name].__module__ == module, f"{name}: offline responder elsewhere"


def test_every_prompt_file_belongs_to_a_declared_agent():
    """No orphan prompt: each template under prompts/ is some agent's (prompts/writing/personas/ holds the
    writing pipeline's persona texts, not templates)."""
    root = prompts_dir()
    files = {p.relative_to(root).as_posix() for p in root.rglob("*.md")
             if not p.relative_to(root).as_posix().startswith("writing/personas/")}
    prompts = {spec.prompt for spec in _every_agent_declared().values()}
    assert sorted(files - prompts) == [], "prompt files no agent declares"
    assert sorted(prompts - files) == [], "agents naming a prompt file that does not exist"


def test_offline_decorator_registers_the_responder_under_the_agent_name():
    assert offline._state.responders["interview_writer"].__name__ == "_offline_essay"
    assert offline._state.responders["discussion_critique"].__name__ == "_offline_critique"


def test_policy_kind_must_be_an_agent_kind():
    with pytest.raises(ValueError, match="not an agent kind"):
        AgentSpec("unit_bad_policy", "platform/model_check.md", AgentSpec, policy="storage")  # type: ignore[arg-type]


def test_interview_writer_runs_on_tier_high():
    assert AGENT_REGISTRY["interview_writer"].tier == "high"
    res = resolve_model("interview_writer", load_config(env={}))
    assert res is not None and (res.tier, res.model) == ("high", "offline-high")


def _yaml_config(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "colloquy.yaml"
    path.write_text(text)
    return {"COLLOQUY_CONFIG": str(path)}


def test_unknown_agent_in_the_config_file_is_an_error_listing_the_agents(tmp_path):
    env = _yaml_config(tmp_path, "llm:\n  agents:\n    orchestrate: {tier: high}\n")
    with pytest.raises(ConfigError, match="unknown agent.*orchestrate.*known agents:.*interview_orchestrator"):
        check_agent_names(load_config(env=env), KNOWN)


def test_unknown_agent_in_an_env_override_is_an_error():
    cfg = load_config(env={"COLLOQUY_MODEL_WRITE_ESSAY": "gpt-4o"})
    assert unknown_agents(cfg, KNOWN) == ["write_essay"]
    with pytest.raises(ConfigError, match="write_essay"):
        check_agent_names(cfg, KNOWN)
    assert unknown_agents(load_config(env={"COLLOQUY_MODEL_INTERVIEW_WRITER": "gpt-4o"}), KNOWN) == []


def test_the_worker_refuses_to_start_with_an_unknown_agent(monkeypatch, tmp_path):
    from workers.main import build_workers

    monkeypatch.setenv("COLLOQUY_CONFIG", _yaml_config(tmp_path, "llm:\n  agents:\n    orchestrate: {}\n")
                       ["COLLOQUY_CONFIG"])
    reset_config_cache()
    try:
        with pytest.raises(ConfigError, match="orchestrate.*interview_writer"):
            build_workers(object(), "unit-test")  # type: ignore[arg-type]  # fails before touching the client
    finally:
        monkeypatch.delenv("COLLOQUY_CONFIG")
        reset_config_cache()


def _configmap_llm_config() -> str:
    docs = [d for d in yaml.safe_load_all(CONFIGMAP.read_text()) if d]
    return next(d["data"]["colloquy.yaml"] for d in docs if d.get("kind") == "ConfigMap")


def test_the_k8s_configmap_names_only_real_agents(tmp_path):
    env = _yaml_config(tmp_path, _configmap_llm_config())
    cfg = load_config(env=env)
    assert cfg.agents, "the ConfigMap's sample no longer configures an agent: keep one, so this stays a test"
    assert unknown_agents(cfg, KNOWN) == []


def _doc_samples() -> list[tuple[str, dict]]:
    samples = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for n, block in enumerate(re.findall(r"```ya?ml\n(.*?)```", path.read_text(), re.S)):
            data = yaml.safe_load(block)
            llm = data.get("llm") if isinstance(data, dict) else None
            if isinstance(llm, dict) and llm.get("agents"):
                samples.append((f"{path.name} yaml block {n + 1}", llm["agents"]))
    return samples


def test_docs_samples_name_only_real_agents():
    samples = _doc_samples()
    assert len(samples) >= 2  # README.md and docs/platform.md
    for where, agents in samples:
        assert sorted(set(agents) - KNOWN) == [], f"{where} configures unknown agent(s)"
    env_names = {m.lower() for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
                 for m in re.findall(r"COLLOQUY_MODEL_([A-Z][A-Z0-9_]+)=", path.read_text())}
    assert sorted(env_names - KNOWN) == []


def test_colloquy_worker_exits_2_naming_the_known_agents(monkeypatch):
    from typer.testing import CliRunner

    from client.cli import app

    monkeypatch.setenv("COLLOQUY_MODEL_ORCHESTRATE", "gpt-4o")
    reset_config_cache()
    try:
        result = CliRunner().invoke(app, ["worker", "--address", "127.0.0.1:1"])
    finally:
        monkeypatch.delenv("COLLOQUY_MODEL_ORCHESTRATE")
        reset_config_cache()
    assert result.exit_code == 2
    assert "orchestrate" in result.output and "interview_orchestrator" in result.output
