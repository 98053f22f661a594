"""Model resolution (seed 001 §15) and GPU tiers (seed 004 §4) with injected env, files and readings."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities.llm import gpu
from activities.llm.config import (
    AGENT_REGISTRY,
    LOCAL_MODEL_NAME,
    ConfigError,
    load_config,
    register_agent,
    resolve_model,
)
from activities.llm.gpu import GpuReading, choose_tier, local_model_for, read_gpus

SEED_FILE = """
llm:
  default_provider: "ollama"
  fallback_provider: "anthropic"
  providers:
    ollama: {api_base: "http://gpu-box:11434", auto_select_model: false}
    azure: {api_base: "https://example.openai.azure.com/", api_version: "2024-06-01"}
  tiers:
    low: {ollama: "qwen2.5:7b", anthropic: "claude-3-haiku-20240307"}
    high: {ollama: "qwen2.5:32b", anthropic: "claude-sonnet-4-20250514"}
  agents:
    router: {tier: low}
    planner: {tier: high}
    evaluator: {tier: high, provider: anthropic}
"""


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "colloquy.yaml"
    path.write_text(text)
    return path


def test_defaults_are_the_offline_profile():
    cfg = load_config(env={})
    res = resolve_model("anything", cfg)
    assert cfg.profile == "offline" and res.provider == "offline" and res.offline
    assert res.litellm_model == "colloquy-offline/offline-medium"
    assert res.reason == "profile offline, default provider; tier medium"


def test_seed_file_tiers_agents_and_fallback(tmp_path):
    cfg = load_config(env={}, path=_file(tmp_path, SEED_FILE))
    assert cfg.profile == "config" and cfg.default_provider == "ollama" and cfg.fallback_provider == "anthropic"
    router = resolve_model("router", cfg)
    assert (router.provider, router.model, router.litellm_model) == ("ollama", "qwen2.5:7b", "ollama_chat/qwen2.5:7b")
    assert router.api_base == "http://gpu-box:11434" and router.local
    planner = resolve_model("planner", cfg)
    assert planner.model == "qwen2.5:32b" and planner.reason == "profile config, default provider; tier high"
    evaluator = resolve_model("evaluator", cfg)
    assert evaluator.provider == "anthropic" and evaluator.reason.startswith("agent override provider=anthropic")
    assert evaluator.api_key_env == "ANTHROPIC_API_KEY" and not evaluator.local
    fb = resolve_model("planner", cfg, use_fallback=True)
    assert (fb.provider, fb.model, fb.reason) == ("anthropic", "claude-sonnet-4-20250514",
                                                  "fallback provider; tier high")
    assert f"file {tmp_path / 'colloquy.yaml'}" in cfg.source


def test_env_overrides_win_over_the_file(tmp_path):
    path = _file(tmp_path, SEED_FILE)
    cfg = load_config(env={"COLLOQUY_PROFILE": "offline"}, path=path)
    assert cfg.default_provider == "offline"
    cfg = load_config(env={"COLLOQUY_PROVIDER": "openai", "COLLOQUY_FALLBACK_PROVIDER": "",
                           "COLLOQUY_MODEL_PLANNER": "gpt-4.1"}, path=path)
    assert cfg.fallback_provider is None and resolve_model("planner", cfg, use_fallback=True) is None
    planner = resolve_model("planner", cfg)
    assert (planner.litellm_model, planner.reason) == ("openai/gpt-4.1",
                                                       "profile config, default provider; agent model override")
    assert resolve_model("router", cfg).litellm_model == "openai/gpt-4o-mini"
    cfg = load_config(env={"COLLOQUY_PROVIDER": "openai_compatible", "COLLOQUY_API_BASE": "http://127.0.0.1:9/v1",
                           "COLLOQUY_MODEL": "my-vllm-model"})
    res = resolve_model("x", cfg)
    assert (res.litellm_model, res.api_base) == ("openai/my-vllm-model", "http://127.0.0.1:9/v1")


def test_config_file_named_by_env_and_cwd_file(tmp_path, monkeypatch):
    path = _file(tmp_path, SEED_FILE)
    assert load_config(env={"COLLOQUY_CONFIG": str(path)}).default_provider == "ollama"
    # with an injected env, a colloquy.yaml in the working directory is NOT read ...
    monkeypatch.chdir(tmp_path)
    assert load_config(env={}).default_provider == "offline"
    # ... with the real environment it is
    monkeypatch.delenv("COLLOQUY_CONFIG", raising=False)
    monkeypatch.delenv("COLLOQUY_PROFILE", raising=False)
    assert load_config().default_provider == "ollama"


def test_local_profile_uses_smollm2_at_zero_cost():
    cfg = load_config(env={"COLLOQUY_PROFILE": "local"})
    res = resolve_model("anything", cfg)
    assert res.provider == "local" and res.model == LOCAL_MODEL_NAME and res.local


@pytest.mark.parametrize(("env", "text", "message"), [
    ({"COLLOQUY_PROFILE": "cloudy"}, None, "unknown profile 'cloudy'"),
    ({"COLLOQUY_PROVIDER": "nosuch"}, None, "default provider 'nosuch' is not configured"),
    ({"COLLOQUY_FALLBACK_PROVIDER": "nosuch"}, None, "fallback provider 'nosuch' is not configured"),
    ({}, "llm:\n  agents:\n    planner: {provider: nosuch}\n", "agents.planner.provider 'nosuch'"),
    ({}, "llm:\n  agents:\n    planner: {tier: ultra}\n", "config file"),
    ({}, "llm: [not, a, mapping", "not valid YAML"),
    ({"COLLOQUY_CONFIG": "/nonexistent/colloquy.yaml"}, None, "which does not exist"),
])
def test_bad_configuration_gives_a_clear_error(tmp_path, env, text, message):
    path = _file(tmp_path, text) if text is not None else None
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config(env=env, path=path)


def test_tier_without_a_model_for_the_provider_is_explained(tmp_path):
    cfg = load_config(env={}, path=_file(tmp_path, "llm:\n  default_provider: mine\n  providers:\n"
                                                   "    mine: {prefix: 'openai/'}\n"))
    with pytest.raises(ConfigError, match="tier 'medium' has no model for provider 'mine'"):
        resolve_model("x", cfg)


def test_fallback_equal_to_default_is_dropped():
    cfg = load_config(env={"COLLOQUY_PROVIDER": "openai", "COLLOQUY_FALLBACK_PROVIDER": "openai"})
    assert cfg.fallback_provider is None


def test_registered_agent_defaults_and_gpu_aware_ollama(monkeypatch):
    monkeypatch.setattr("activities.llm.config.AGENT_REGISTRY", dict(AGENT_REGISTRY))  # keep it test-local
    register_agent("unit_test_auditor", tier="high", role="auditor")
    cfg = load_config(env={"COLLOQUY_PROVIDER": "ollama"})
    res = resolve_model("unit_test_auditor", cfg, vram_gb=8)
    assert res.model == "mistral:7b-instruct-q4_K_M" and res.tier == "high"
    assert res.reason.endswith("GPU-aware tier_8gb (8 GB VRAM), role auditor")
    assert resolve_model("unit_test_auditor", cfg, vram_gb=0).model == "phi3:mini"


@pytest.mark.parametrize(("vram", "tier", "writer"), [
    (0, "tier_cpu", "phi3:mini"),
    (4, "tier_cpu", "phi3:mini"),
    (8, "tier_8gb", "llama3.2:8b-instruct-q4_K_M"),
    (11, "tier_8gb", "llama3.2:8b-instruct-q4_K_M"),  # the gap 10–12 GB stays on the lower tier
    (16, "tier_16gb", "llama3.1:13b-instruct-q4_K_M"),
    (24, "tier_24gb", "llama3.1:70b-instruct-q4_K_M"),
    (80, "tier_48gb", "llama3.1:70b-instruct"),
])
def test_gpu_tier_choice(vram, tier, writer):
    chosen = choose_tier(vram)
    assert chosen.name == tier
    assert local_model_for("writer", chosen) == writer
    assert local_model_for("unknown-role", chosen) == chosen.fallback


def test_best_vram_from_an_injected_reading():
    reading = GpuReading(gpus=[gpu.GpuInfo(index=0, name="small", vram_total_gb=8, vram_free_gb=7),
                               gpu.GpuInfo(index=1, name="big", vram_total_gb=24, vram_free_gb=20)])
    assert choose_tier(reading.best_vram_gb).name == "tier_24gb"
    assert GpuReading().best_vram_gb == 0.0


def test_read_gpus_without_a_driver_never_raises(monkeypatch):
    reading = read_gpus()  # whatever this machine has
    assert isinstance(reading, GpuReading)
    assert reading.gpus or reading.error

    import pynvml

    def broken_init() -> None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_DRIVER_NOT_LOADED)

    monkeypatch.setattr(pynvml, "nvmlInit", broken_init)
    reading = read_gpus()
    assert reading.gpus == [] and "no NVIDIA driver/GPU" in reading.error
    assert choose_tier(reading.best_vram_gb).name == "tier_cpu"
