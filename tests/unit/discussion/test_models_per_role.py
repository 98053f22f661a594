"""A role's litellm model id picks the provider by prefix (keys stay in the worker's environment)."""

from activities.llm.config import config_for_call, current_config, reset_config_cache, resolve_model


def _resolve(monkeypatch, model, provider="openai"):
    monkeypatch.setenv("COLLOQUY_PROFILE", "config")
    monkeypatch.setenv("COLLOQUY_PROVIDER", provider)
    reset_config_cache()
    return resolve_model("discussion_critique", config_for_call("discussion_critique", model))


def test_prefixed_id_selects_that_provider(monkeypatch):
    res = _resolve(monkeypatch, "anthropic/claude-3-5-haiku-20241022")
    assert (res.provider, res.litellm_model, res.api_key_env) == (
        "anthropic", "anthropic/claude-3-5-haiku-20241022", "ANTHROPIC_API_KEY")


def test_bare_name_goes_to_the_default_provider(monkeypatch):
    res = _resolve(monkeypatch, "gpt-4o")
    assert (res.provider, res.litellm_model) == ("openai", "openai/gpt-4o")


def test_default_provider_wins_when_prefixes_are_shared(monkeypatch):
    res = _resolve(monkeypatch, "openai/my-served-model", provider="openai_compatible")
    assert (res.provider, res.litellm_model) == ("openai_compatible", "openai/my-served-model")


def test_offline_profile_answers_any_id_with_the_test_double(monkeypatch):
    monkeypatch.setenv("COLLOQUY_PROFILE", "offline")
    monkeypatch.delenv("COLLOQUY_PROVIDER", raising=False)
    reset_config_cache()
    res = resolve_model("discussion_critique", config_for_call("discussion_critique", "openai/gpt-4o"))
    assert (res.provider, res.model, res.litellm_model) == ("offline", "openai/gpt-4o",
                                                            "colloquy-offline/openai/gpt-4o")


def test_no_model_means_the_configured_one(monkeypatch):
    res = _resolve(monkeypatch, None)
    assert config_for_call("discussion_critique", None) is current_config()  # no override: the config as it is
    assert res == resolve_model("discussion_critique", current_config())
