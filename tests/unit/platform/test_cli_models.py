"""`colloquy models`: per agent, the model it would use and why."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from activities.llm.config import reset_config_cache
from client.cli import app
from client.common import console


@pytest.fixture
def run_models(monkeypatch):
    monkeypatch.setattr(console, "width", 300)  # no wrapping inside table cells

    def _run(*args: str, **env: str):
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        reset_config_cache()
        return CliRunner().invoke(app, ["models", "--local", *args])

    yield _run
    reset_config_cache()


def test_offline_profile_is_labelled_and_every_agent_listed(run_models):
    result = run_models(COLLOQUY_PROFILE="offline")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Profile: offline" in out and "offline = the deterministic test double, not a model." in out
    assert "model_check" in out and "colloquy-offline/offline-low" in out
    assert "profile offline, default provider; tier low" in out
    assert "GPU: " in out and "local tier: tier_" in out


def test_gpu_tier_preview_for_ollama(run_models):
    result = run_models("--vram-gb", "16", COLLOQUY_PROFILE="offline", COLLOQUY_PROVIDER="ollama",
                        COLLOQUY_FALLBACK_PROVIDER="anthropic")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "local tier: tier_16gb" in out
    assert "ollama_chat/llama3.1:13b-instruct-q4_K_M" in out and "GPU-aware tier_16gb (16 GB VRAM)" in out
    assert "anthropic/claude-3-haiku-20240307" in out  # model_check's fallback (tier low)


def test_configuration_error_is_reported_not_raised(run_models):
    result = run_models(COLLOQUY_PROFILE="offline", COLLOQUY_PROVIDER="nosuch")
    assert result.exit_code == 2
    assert "default provider 'nosuch' is not configured" in result.output
