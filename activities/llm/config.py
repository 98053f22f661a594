"""Model resolution (seed 001 §15): per-agent tier → provider → model, with a fallback provider.

Sources, later wins: built-in defaults → YAML file (`COLLOQUY_CONFIG`, else `./colloquy.yaml` if present) →
environment overrides (`COLLOQUY_PROFILE`, `COLLOQUY_PROVIDER`, `COLLOQUY_FALLBACK_PROVIDER`, `COLLOQUY_MODEL`,
`COLLOQUY_MODEL_<AGENT>`, `COLLOQUY_API_BASE`). API keys are never stored here: only the *name* of the
environment variable that holds each provider's key; the gateway reads it in the worker at call time.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field, ValidationError

from activities.llm.gpu import choose_tier, local_model_for, read_gpus
from activities.llm.schema import STRUCTURED_MODES, StructuredMode
from core.secrets import register_secret_env

Tier = Literal["low", "medium", "high"]
OFFLINE_PROVIDER = "colloquy-offline"
LOCAL_PROVIDER = "colloquy-local"
LOCAL_MODEL_NAME = "smollm2-135m-instruct"


class ModelPrice(BaseModel):
    """USD per million tokens. Registered in litellm for this provider's model names."""

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


class ProviderConfig(BaseModel):
    prefix: str = Field(description="litellm model prefix, e.g. 'openai/'")
    api_base: str | None = None
    api_key_env: str | None = Field(default=None, description="Name of the env var holding the key (never the key)")
    api_version: str | None = None
    local: bool = Field(default=False, description="Runs on your hardware: priced at $0, GPU-aware model choice")
    context_window: int | None = None
    auto_select_model: bool = Field(default=False, description="Pick the model from local GPU tiers (VRAM)")
    prices: dict[str, ModelPrice] = Field(default_factory=dict,
                                          description="Model name (without prefix) → price; overrides litellm's map")
    structured_output: StructuredMode | None = Field(
        default=None, description="How calls ask for JSON: json_schema | json_object | tools | prompt "
        "(None: the provider's default, DEFAULT_STRUCTURED_OUTPUT)")
    structured_output_models: dict[str, StructuredMode] = Field(
        default_factory=dict, description="Model name (without prefix) → mode, where models of one provider differ")
    downgrade_structured_output: bool = Field(
        default=True, description="A server that rejects the mode: try the next one (json_schema → json_object → "
        "prompt) and remember it for that model in the worker; False: a non-retryable error naming the setting")
    stream: bool | None = Field(default=None, description="Stream answers, so a cancelled call closes its "
                                "connection and the server stops generating (None: on for HTTP providers)")
    small_model: bool | None = Field(
        default=None, description="Bound schema strings/arrays (and leave out optional free-form objects) so a small "
        "model can always finish the object within its token budget. None: on for a self-hosted (`local: true`) "
        "provider's model whose name states under 4B parameters ('smollm2-135m', 'qwen2.5:3b') or states no size "
        "(llama.cpp's server answers as 'default'); off for hosted APIs and named larger models")
    concurrency: int | None = Field(
        default=None, ge=1, le=10_000, description="How many calls the provider serves at once (None: no bound). "
        "The LLM worker takes no more (activities/llm/slots.py): a call beyond it waits in the task queue before "
        "its attempt starts. 1 for the in-process `local` model and the self-hosted servers (llama.cpp's server "
        "and Ollama serve one call at a time unless started with more); raise it to what your server serves "
        "(vLLM: its max_num_seqs), or COLLOQUY_PROVIDER_CONCURRENCY=N (`none`: no bound) for the default provider")


class AgentConfig(BaseModel):
    tier: Tier | None = None
    provider: str | None = None
    model: str | None = None
    role: str | None = None
    max_tokens: int | None = Field(default=None, gt=0, description="Overrides the agent's declared token budget")
    structured_output: StructuredMode | None = Field(default=None, description="Overrides the provider's mode")


class LLMConfig(BaseModel):
    profile: str = "offline"
    default_provider: str = "offline"
    fallback_provider: str | None = None
    providers: dict[str, ProviderConfig] = Field(default_factory=dict)
    tiers: dict[str, dict[str, str]] = Field(default_factory=dict)
    agents: dict[str, AgentConfig] = Field(default_factory=dict)
    request_timeout_s: float = 120.0
    source: list[str] = Field(default_factory=list, description="Where each setting came from (for `models`)")


class ModelResolution(BaseModel):
    agent: str
    provider: str
    model: str
    litellm_model: str
    api_base: str | None = None
    api_key_env: str | None = None
    api_version: str | None = None
    local: bool = False
    offline: bool = False
    tier: str
    reason: str
    structured_output: StructuredMode = "json_schema"
    downgrade_structured_output: bool = True
    stream: bool = False
    small_model: bool = False
    max_tokens: int | None = Field(default=None, description="Configured budget override for this agent")


class AgentDefaults(BaseModel):
    name: str
    tier: Tier = "medium"
    role: str = "writer"
    description: str = ""


# Agents register their defaults at import (one line per agent module), so `colloquy models` can list them.
AGENT_REGISTRY: dict[str, AgentDefaults] = {}


def register_agent(name: str, tier: Tier = "medium", role: str = "writer", description: str = "") -> None:
    AGENT_REGISTRY[name] = AgentDefaults(name=name, tier=tier, role=role, description=description)


BUILTIN_PROVIDERS: dict[str, ProviderConfig] = {
    "offline": ProviderConfig(prefix=f"{OFFLINE_PROVIDER}/", local=True),
    "local": ProviderConfig(prefix=f"{LOCAL_PROVIDER}/", local=True, context_window=8192, small_model=True,
                            concurrency=1),
    "ollama": ProviderConfig(prefix="ollama_chat/", api_base="http://127.0.0.1:11434", local=True,
                             auto_select_model=True, concurrency=1),
    "anthropic": ProviderConfig(prefix="anthropic/", api_key_env="ANTHROPIC_API_KEY"),
    "openai": ProviderConfig(prefix="openai/", api_key_env="OPENAI_API_KEY"),
    "azure": ProviderConfig(prefix="azure/", api_key_env="AZURE_API_KEY", api_version="2024-06-01"),
    "openrouter": ProviderConfig(prefix="openrouter/", api_key_env="OPENROUTER_API_KEY"),
    # Any OpenAI-compatible server (vLLM, llama.cpp server, LM Studio...): set COLLOQUY_API_BASE.
    "openai_compatible": ProviderConfig(prefix="openai/", api_key_env="OPENAI_COMPATIBLE_API_KEY", local=True,
                                        concurrency=1),
}

BUILTIN_TIERS: dict[str, dict[str, str]] = {
    "low": {"offline": "offline-low", "local": LOCAL_MODEL_NAME, "ollama": "qwen2.5:7b",
            "anthropic": "claude-3-haiku-20240307", "openai": "gpt-4o-mini", "azure": "gpt-4o-mini-deployment",
            "openrouter": "anthropic/claude-3-haiku", "openai_compatible": "default"},
    "medium": {"offline": "offline-medium", "local": LOCAL_MODEL_NAME, "ollama": "qwen2.5:14b",
               "anthropic": "claude-3-5-haiku-20241022", "openai": "gpt-4o-mini",
               "azure": "gpt-4o-mini-deployment", "openrouter": "anthropic/claude-3.5-haiku",
               "openai_compatible": "default"},
    "high": {"offline": "offline-high", "local": LOCAL_MODEL_NAME, "ollama": "qwen2.5:32b",
             "anthropic": "claude-sonnet-4-20250514", "openai": "gpt-4o", "azure": "gpt-4o-deployment",
             "openrouter": "anthropic/claude-sonnet-4-20250514", "openai_compatible": "default"},
}

PROFILE_PROVIDERS = {"offline": "offline", "local": "local"}

#: The structured-output mode of a provider that sets none (`providers.<name>.structured_output`).
#: Hosted APIs take a strict `json_schema` (litellm maps it to each API's own form). Self-hosted OpenAI-compatible
#: servers differ (llama.cpp's server answers `json_schema` with HTTP 500, older vLLM/LM Studio builds ignore it),
#: but all of them accept `json_object`: sent with the schema, which llama.cpp and LM Studio compile into a
#: grammar and others ignore, and with the schema in the prompt too, so it works everywhere it is accepted.
#: The in-process `local` model compiles the schema into a llama.cpp grammar itself.
DEFAULT_STRUCTURED_OUTPUT: dict[str, StructuredMode] = {"openai_compatible": "json_object", "local": "json_object"}


class ConfigError(ValueError):
    """A configuration mistake the user must fix (raised as the non-retryable `ConfigError` in activities)."""


def _config_file(env: dict[str, str], use_cwd: bool) -> Path | None:
    explicit = env.get("COLLOQUY_CONFIG")
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError(f"COLLOQUY_CONFIG points to {path}, which does not exist")
        return path
    if not use_cwd:
        return None
    default = Path.cwd() / "colloquy.yaml"
    return default if default.is_file() else None


def _apply_file(cfg: LLMConfig, path: Path) -> None:
    try:
        raw = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path} is not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"config file {path} must be a mapping with an `llm:` section")
    llm = raw.get("llm", raw) or {}
    try:
        for name, p in (llm.get("providers") or {}).items():
            base = cfg.providers.get(name, ProviderConfig(prefix=f"{name}/"))
            # validate the merged provider (model_copy(update=) would skip validation of nested prices)
            cfg.providers[name] = ProviderConfig.model_validate({**base.model_dump(), **(p or {})})
        for tier, table in (llm.get("tiers") or {}).items():
            cfg.tiers.setdefault(tier, {}).update(table or {})
        for name, a in (llm.get("agents") or {}).items():
            cfg.agents[name] = AgentConfig.model_validate(a or {})
    except ValidationError as exc:
        raise ConfigError(f"config file {path}: {exc.errors(include_url=False)[:3]}") from exc
    for key in ("default_provider", "fallback_provider", "request_timeout_s", "profile"):
        if key in llm:
            setattr(cfg, key, llm[key])
    if "default_provider" in llm and "profile" not in llm:
        cfg.profile = "config"
    cfg.source.append(f"file {path}")


def load_config(env: dict[str, str] | None = None, path: Path | None = None) -> LLMConfig:
    """Build the effective config. `env` and `path` are injectable for tests.

    With the real environment (env=None) a `./colloquy.yaml` is read when COLLOQUY_CONFIG is unset; with an
    injected env only COLLOQUY_CONFIG (or `path`) names a file, so tests never pick up a stray file.
    """
    use_cwd = env is None
    env = dict(os.environ if env is None else env)
    cfg = LLMConfig(providers=dict(BUILTIN_PROVIDERS), tiers={k: dict(v) for k, v in BUILTIN_TIERS.items()})
    cfg.source.append("built-in defaults")
    path = path if path is not None else _config_file(env, use_cwd)
    if path is not None:
        _apply_file(cfg, path)

    profile = env.get("COLLOQUY_PROFILE")
    if profile:
        cfg.profile = profile
        cfg.source.append(f"COLLOQUY_PROFILE={profile}")
    if cfg.profile in PROFILE_PROVIDERS:
        cfg.default_provider = PROFILE_PROVIDERS[cfg.profile]
    elif cfg.profile not in ("config",):
        raise ConfigError(f"unknown profile {cfg.profile!r}: use offline, local or config")
    if env.get("COLLOQUY_PROVIDER"):
        cfg.default_provider = env["COLLOQUY_PROVIDER"]
        cfg.profile = "config" if cfg.default_provider not in PROFILE_PROVIDERS else cfg.profile
        cfg.source.append(f"COLLOQUY_PROVIDER={cfg.default_provider}")
    if "COLLOQUY_FALLBACK_PROVIDER" in env:
        cfg.fallback_provider = env["COLLOQUY_FALLBACK_PROVIDER"] or None
        cfg.source.append(f"COLLOQUY_FALLBACK_PROVIDER={cfg.fallback_provider}")
    if env.get("COLLOQUY_API_BASE"):
        prov = cfg.providers.get(cfg.default_provider)
        if prov is not None:
            cfg.providers[cfg.default_provider] = prov.model_copy(update={"api_base": env["COLLOQUY_API_BASE"]})
    if env.get("COLLOQUY_PROVIDER_CONCURRENCY", "").strip():
        _apply_concurrency(cfg, env["COLLOQUY_PROVIDER_CONCURRENCY"].strip())
    mode = env.get("COLLOQUY_STRUCTURED_OUTPUT")
    if mode:
        if mode not in STRUCTURED_MODES:
            raise ConfigError(f"COLLOQUY_STRUCTURED_OUTPUT={mode!r}: use one of {', '.join(STRUCTURED_MODES)}")
        prov = cfg.providers.get(cfg.default_provider)
        if prov is not None:
            cfg.providers[cfg.default_provider] = prov.model_copy(update={"structured_output": mode})
        cfg.source.append(f"COLLOQUY_STRUCTURED_OUTPUT={mode}")
    if env.get("COLLOQUY_MODEL"):
        # One model for every agent, as a full litellm id ("openai/gpt-4o-mini") or a bare name for the provider.
        for tier in cfg.tiers.values():
            tier[cfg.default_provider] = env["COLLOQUY_MODEL"]
        cfg.source.append(f"COLLOQUY_MODEL={env['COLLOQUY_MODEL']}")
    for key, value in env.items():
        if key.startswith("COLLOQUY_MODEL_") and value:
            agent = key.removeprefix("COLLOQUY_MODEL_").lower()
            cfg.agents[agent] = (cfg.agents.get(agent) or AgentConfig()).model_copy(update={"model": value})
    if cfg.fallback_provider == cfg.default_provider:
        cfg.fallback_provider = None  # a fallback to the same provider would only repeat the failure
    for name, where in [(cfg.default_provider, "default provider"), (cfg.fallback_provider, "fallback provider"),
                        *[(a.provider, f"agents.{n}.provider") for n, a in cfg.agents.items()]]:
        if name and name not in cfg.providers:
            raise ConfigError(f"{where} {name!r} is not configured: known providers are {sorted(cfg.providers)}")
    # every key variable the config names is a secret, whatever it is called: its value is redacted everywhere
    register_secret_env(*(p.api_key_env for p in cfg.providers.values()))
    return cfg


def _apply_concurrency(cfg: LLMConfig, raw: str) -> None:
    """COLLOQUY_PROVIDER_CONCURRENCY: how many calls the default provider serves at once (`none`: no bound)."""
    if raw.lower() in ("none", "unbounded"):
        value = None
    else:
        try:
            value = int(raw)
        except ValueError:
            value = 0
        if not 1 <= value <= 10_000:
            raise ConfigError(f"COLLOQUY_PROVIDER_CONCURRENCY={raw!r}: a whole number of calls from 1 to 10000, or none")
    prov = cfg.providers.get(cfg.default_provider)
    if prov is not None:
        cfg.providers[cfg.default_provider] = prov.model_copy(update={"concurrency": value})
    cfg.source.append(f"COLLOQUY_PROVIDER_CONCURRENCY={raw}")


def unknown_agents(cfg: LLMConfig, known: set[str] | None = None) -> list[str]:
    """Agent keys of the config (`llm.agents` in the file, `COLLOQUY_MODEL_<AGENT>` overrides) that name no agent."""
    names = set(AGENT_REGISTRY) if known is None else known
    return sorted(name for name in cfg.agents if name not in names)


def check_agent_names(cfg: LLMConfig, known: set[str] | None = None) -> None:
    """A misspelt agent key would be silently ignored: refuse it, naming the agents that exist.
    Call this once every agent module is imported (the worker does it at start-up)."""
    unknown = unknown_agents(cfg, known)
    if unknown:
        names = sorted(AGENT_REGISTRY) if known is None else sorted(known)
        raise ConfigError(f"unknown agent(s) {', '.join(unknown)} in the LLM config "
                          f"(llm.agents or COLLOQUY_MODEL_<AGENT>); known agents: {', '.join(names)}")


def provider_for(model: str, cfg: LLMConfig) -> str:
    """The configured provider whose litellm prefix starts `model` (the default provider preferred)."""
    names = [cfg.default_provider] + [n for n in cfg.providers if n != cfg.default_provider]
    for name in names:
        prov = cfg.providers.get(name)
        if prov and model.startswith(prov.prefix):
            return name
    return cfg.default_provider


def config_for_call(agent: str, model: str | None = None, *, role: str | None = None,
                    cfg: LLMConfig | None = None) -> LLMConfig:
    """The config one call of `agent` uses: the effective config, with the agent forced to `model` when a call
    names one (writing's per-call fan-out models, discussion's per-role models); `role` then picks the GPU tier.

    - a provider name (`local`, `ollama`, `offline`), in any profile: that provider, its model chosen by tier;
    - profile `offline`: the offline test double answers for every other id (kept as the label, so usage and
      tests show which "model" answered);
    - a full litellm id (`anthropic/claude-…`): the provider whose prefix matches (the default provider
      preferred when prefixes are shared); a bare name goes to the default provider.
    Without a model the effective config is returned as it is.
    """
    cfg = cfg or current_config()
    if not model:
        return cfg
    override = (cfg.agents.get(agent) or AgentConfig()).model_copy()
    if role:
        override.role = role
    if model in cfg.providers:  # an explicit provider name wins in any profile
        override = override.model_copy(update={"provider": model, "model": None})
    elif cfg.default_provider == "offline":
        override = override.model_copy(update={"provider": "offline", "model": model})
    else:
        override = override.model_copy(update={"provider": provider_for(model, cfg), "model": model})
    return cfg.model_copy(update={"agents": {**cfg.agents, agent: override}})


#: A parameter count in a model name: "smollm2-135m-instruct", "qwen2.5:7b", "Llama-3.1-8B-Instruct-Q4_K_M".
_PARAMS = re.compile(r"(?<![a-wyz\d.])(\d+(?:\.\d+)?)\s*([mb])(?![a-z])", re.I)
#: Below this many parameters a self-hosted model gets the small-model bounds by default.
SMALL_MODEL_PARAMS = 4e9


def model_params(name: str) -> float | None:
    """The parameter count a model name states (the largest one, e.g. 'mixtral-8x7b' → 7e9), if any."""
    sizes = [float(n) * (1e6 if unit.lower() == "m" else 1e9) for n, unit in _PARAMS.findall(name.replace("_", "-"))]
    return max(sizes) if sizes else None


def small_by_default(prov: ProviderConfig, model: str) -> bool:
    """`small_model` left unset: a self-hosted server's model is bounded unless its name says it is large (a new
    user pointing at a llama.cpp server with a small model gets outputs that finish within their budgets and the
    request timeout); hosted APIs never."""
    if not prov.local or prov.prefix.startswith(OFFLINE_PROVIDER):
        return False
    params = model_params(model)
    return params is None or params < SMALL_MODEL_PARAMS


def _full_model(provider: str, prov: ProviderConfig, model: str) -> str:
    if "/" in model and model.split("/", 1)[0] + "/" == prov.prefix:
        return model
    return prov.prefix + model


def resolve_model(agent: str, cfg: LLMConfig, *, use_fallback: bool = False,
                  vram_gb: float | None = None) -> ModelResolution | None:
    """Resolve provider and model for an agent; None when a fallback was asked for and none is configured."""
    defaults = AGENT_REGISTRY.get(agent, AgentDefaults(name=agent))
    acfg = cfg.agents.get(agent, AgentConfig())
    tier = acfg.tier or defaults.tier
    role = acfg.role or defaults.role
    if use_fallback:
        if not cfg.fallback_provider:
            return None
        provider, why = cfg.fallback_provider, "fallback provider"
    elif acfg.provider:
        provider, why = acfg.provider, f"agent override provider={acfg.provider}"
    else:
        provider, why = cfg.default_provider, f"profile {cfg.profile}, default provider"
    prov = cfg.providers[provider]
    if acfg.model and not use_fallback:
        model, mwhy = acfg.model, "agent model override"
    elif prov.auto_select_model:
        vram = read_gpus().best_vram_gb if vram_gb is None else vram_gb
        local_tier = choose_tier(vram)
        model = local_model_for(role, local_tier)
        mwhy = f"GPU-aware {local_tier.name} ({vram:.0f} GB VRAM), role {role}"
    else:
        table = cfg.tiers.get(tier, {})
        if provider not in table:
            raise ConfigError(f"tier {tier!r} has no model for provider {provider!r}: add tiers.{tier}.{provider}")
        model, mwhy = table[provider], f"tier {tier}"
    bare = model.removeprefix(prov.prefix)
    mode = ((acfg.structured_output if not use_fallback else None) or prov.structured_output_models.get(bare)
            or prov.structured_output or DEFAULT_STRUCTURED_OUTPUT.get(provider, "json_schema"))
    custom = prov.prefix in (f"{OFFLINE_PROVIDER}/", f"{LOCAL_PROVIDER}/")  # in-process: nothing to stream
    return ModelResolution(
        agent=agent, provider=provider, model=model, litellm_model=_full_model(provider, prov, model),
        api_base=prov.api_base, api_key_env=prov.api_key_env, api_version=prov.api_version, local=prov.local,
        offline=provider == "offline", tier=tier, reason=f"{why}; {mwhy}", structured_output=mode,
        downgrade_structured_output=prov.downgrade_structured_output,
        stream=(not custom) if prov.stream is None else prov.stream and not custom,
        small_model=prov.small_model if prov.small_model is not None else small_by_default(prov, bare),
        max_tokens=acfg.max_tokens,
    )


@lru_cache(maxsize=1)
def current_config() -> LLMConfig:
    return load_config()


def reset_config_cache() -> None:
    current_config.cache_clear()
