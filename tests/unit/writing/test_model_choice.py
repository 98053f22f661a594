"""Writer model ids are forced per call through the gateway's own resolution (incl. GPU-aware local tiers)."""

from __future__ import annotations

from activities.llm.config import config_for_call, reset_config_cache, resolve_model


def test_offline_profile_keeps_every_id_as_a_label_for_the_test_double():
    cfg = config_for_call("writing_draft", "anthropic/claude-3-5-haiku", role="writer")
    res = resolve_model("writing_draft", cfg)
    assert res.provider == "offline" and res.model == "anthropic/claude-3-5-haiku"
    assert res.litellm_model == "colloquy-offline/anthropic/claude-3-5-haiku"
    default = resolve_model("writing_draft", config_for_call("writing_draft", None, role="writer"))
    assert default.provider == "offline" and default.model == "offline-medium"
    local = resolve_model("writing_draft", config_for_call("writing_draft", "local", role="writer"))
    assert local.provider == "local" and local.model == "smollm2-135m-instruct"  # a provider name always wins


def test_real_profile_routes_each_id_to_its_provider_and_ollama_by_gpu_tier(monkeypatch):
    monkeypatch.setenv("COLLOQUY_PROFILE", "config")
    monkeypatch.setenv("COLLOQUY_PROVIDER", "openai")
    reset_config_cache()
    a = resolve_model("writing_draft", config_for_call("writing_draft", "anthropic/claude-3-5-haiku-20241022", role="writer"))
    assert (a.provider, a.litellm_model, a.api_key_env) == ("anthropic", "anthropic/claude-3-5-haiku-20241022",
                                                           "ANTHROPIC_API_KEY")
    o = resolve_model("writing_draft", config_for_call("writing_draft", "openai/gpt-4o-mini", role="writer"))
    assert (o.provider, o.litellm_model) == ("openai", "openai/gpt-4o-mini")
    bare = resolve_model("writing_draft", config_for_call("writing_draft", "gpt-4o", role="writer"))
    assert bare.litellm_model == "openai/gpt-4o"  # a bare name goes to the default provider
    cfg_w = config_for_call("writing_draft", "ollama", role="writer")
    writer = resolve_model("writing_draft", cfg_w, vram_gb=8)
    assert writer.provider == "ollama" and writer.local and "GPU-aware tier_8gb" in writer.reason
    assert writer.model == "llama3.2:8b-instruct-q4_K_M"
    auditor = resolve_model("writing_audit", config_for_call("writing_audit", "ollama", role="auditor"), vram_gb=8)
    assert auditor.model == "mistral:7b-instruct-q4_K_M"  # role auditor on the same GPU tier
    big = resolve_model("writing_draft", cfg_w, vram_gb=80)
    assert big.model == "llama3.1:70b-instruct"
