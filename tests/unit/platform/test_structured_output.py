"""Structured-output modes, schema bounds and token budgets (activities/llm/schema.py, config, gateway)."""

from __future__ import annotations

import litellm
import pytest
from pydantic import BaseModel, Field

from activities.llm import gateway
from activities.llm.config import ConfigError, load_config, resolve_model
from activities.llm.schema import cap_schema, enumerate_bounded_numbers, token_budget
from models.interview.plan import PlanSnapshot

# What llama-cpp-python's server answers to a strict json_schema response_format (HTTP 500).
LLAMA_500 = ("litellm.InternalServerError: OpenAIException - 1 validation error:\n  {'type': 'literal_error', "
             "'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}")


class Scores(BaseModel):
    score: int = Field(ge=1, le=10)
    confidence: float = Field(ge=0, le=1)
    tags: list[str] = Field(min_length=6)


def test_default_modes_per_provider_and_overrides():
    cfg = load_config(env={"COLLOQUY_PROVIDER": "openai_compatible"})
    res = resolve_model("model_check", cfg)
    assert res is not None and res.structured_output == "json_object" and res.stream
    assert resolve_model("model_check", load_config(env={"COLLOQUY_PROVIDER": "openai"})).structured_output == \
        "json_schema"
    local = resolve_model("model_check", load_config(env={"COLLOQUY_PROFILE": "local"}))
    assert local.structured_output == "json_object" and local.small_model and not local.stream
    env = {"COLLOQUY_PROVIDER": "openai_compatible", "COLLOQUY_STRUCTURED_OUTPUT": "tools"}
    assert resolve_model("model_check", load_config(env=env)).structured_output == "tools"
    with pytest.raises(ConfigError, match="COLLOQUY_STRUCTURED_OUTPUT='strict'"):
        load_config(env={"COLLOQUY_STRUCTURED_OUTPUT": "strict"})


def test_per_model_and_per_agent_settings(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("llm:\n  default_provider: openai_compatible\n  providers:\n    openai_compatible:\n"
                    "      structured_output_models: {default: prompt}\n"
                    "  agents:\n    route_input: {max_tokens: 99, structured_output: tools}\n")
    cfg = load_config(env={"COLLOQUY_CONFIG": str(path)})
    assert resolve_model("model_check", cfg).structured_output == "prompt"
    routed = resolve_model("route_input", cfg)
    assert (routed.structured_output, routed.max_tokens) == ("tools", 99)


def test_small_model_bounds_never_go_below_declared_minimums():
    capped = cap_schema(Scores.model_json_schema(), max_string=160, max_items=4)
    assert capped["properties"]["tags"]["maxItems"] == 6  # minItems 6 wins over the cap of 4
    assert capped["properties"]["tags"]["items"]["maxLength"] == 160


def test_bounded_numbers_become_their_values_for_grammars():
    schema = enumerate_bounded_numbers(Scores.model_json_schema())
    assert schema["properties"]["score"]["enum"] == list(range(1, 11))
    assert schema["properties"]["confidence"]["enum"][0] == 0 and schema["properties"]["confidence"]["enum"][-1] == 1
    assert "minimum" not in schema["properties"]["score"]


def test_token_budget_is_sized_to_the_schema():
    small = token_budget(cap_schema(Scores.model_json_schema(), 160, 4))
    plan = token_budget(PlanSnapshot.model_json_schema())
    assert 128 <= small < plan <= 4096


def test_a_rejected_mode_is_recognised_and_an_outage_is_not():
    rejected = litellm.InternalServerError(message=LLAMA_500, llm_provider="openai", model="default")
    outage = litellm.InternalServerError(message="CUDA out of memory", llm_provider="openai", model="default")
    assert gateway.rejects_mode(rejected, "json_schema")
    assert not gateway.rejects_mode(rejected, "prompt")  # nothing left to downgrade: a plain error
    assert not gateway.rejects_mode(outage, "json_schema")
    bad = litellm.BadRequestError(message="'response_format.type' json_schema is not supported", model="m",
                                  llm_provider="openai")
    assert gateway.rejects_mode(bad, "json_schema")
