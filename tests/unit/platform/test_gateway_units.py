"""Gateway pieces that are plain functions: lenient JSON, redaction, classification, price registration,
the offline provider's schema filler and fault headers."""

from __future__ import annotations

import httpx
import litellm
import pytest
from pydantic import BaseModel, Field

from activities.llm import gateway, offline
from activities.llm.config import load_config, resolve_model
from activities.llm.gateway import classify, extract_json, parse_output, redact, register_local_prices


class Verdict(BaseModel):
    reasoning: str = Field(min_length=12, max_length=40)
    items: list[int] = Field(min_length=1, max_length=1)
    sufficient: bool


def test_lenient_json():
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('Sure! {"a": [1, 2]} hope it helps') == {"a": [1, 2]}
    with pytest.raises(ValueError, match="no JSON object"):
        extract_json("no json here")
    out = parse_output('{"reasoning": "long enough text", "items": [3], "sufficient": true, "_offline": "x"}',
                       Verdict)
    assert out.sufficient and out.items == [3]
    with pytest.raises(ValueError, match="wrong schema for Verdict"):
        parse_output('{"reasoning": "short"}', Verdict)


def test_redaction_of_configured_keys_and_key_shapes(monkeypatch):
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", "plain-secret-value-123")
    text = redact("key plain-secret-value-123, header Bearer abcdefghijkl, openai sk-proj-ABCDEFGH12345")
    assert "plain-secret" not in text and "abcdefghijkl" not in text and "ABCDEFGH12345" not in text
    assert text.count("***") == 3


def _res():
    return resolve_model("unit", load_config(env={}))


def test_classification_of_http_errors_with_headers():
    req = httpx.Request("POST", "http://x")
    rl = litellm.RateLimitError("slow", "openai", "m", response=httpx.Response(429, headers={"Retry-After": "12"},
                                                                               request=req))
    err = classify(rl, _res())
    assert err.type == "LLMRateLimited" and not err.non_retryable and err.next_retry_delay.total_seconds() == 12
    unavailable = litellm.ServiceUnavailableError("down", "openai", "m",
                                                  response=httpx.Response(503, headers={"retry-after": "3"},
                                                                          request=req))
    err = classify(unavailable, _res())
    assert err.type == "LLMUnavailable" and err.next_retry_delay.total_seconds() == 3
    bad_header = litellm.RateLimitError("slow", "openai", "m",
                                        response=httpx.Response(429, headers={"retry-after": "soon"}, request=req))
    assert classify(bad_header, _res()).next_retry_delay is None
    assert classify(RuntimeError("weird"), _res()).type == "LLMUnavailable"


def test_local_names_are_free_but_public_prices_are_never_overwritten():
    cfg = load_config(env={"COLLOQUY_PROVIDER": "openai_compatible", "COLLOQUY_MODEL": "gpt-4o-mini"})
    public = dict(litellm.model_cost["gpt-4o-mini"]) if "gpt-4o-mini" in litellm.model_cost else None
    before = litellm.model_cost.get("openai/gpt-4o-mini")
    register_local_prices(cfg)
    assert litellm.model_cost.get("openai/gpt-4o-mini") == before  # not zeroed for the real OpenAI
    if public is not None:
        assert litellm.model_cost["gpt-4o-mini"]["input_cost_per_token"] == public["input_cost_per_token"]
    register_local_prices(load_config(env={"COLLOQUY_PROFILE": "local"}))
    assert litellm.model_cost["colloquy-local/smollm2-135m-instruct"]["input_cost_per_token"] == 0.0


def test_fill_schema_respects_lengths_and_items():
    data = offline.fill_schema(Verdict.model_json_schema(), seed="x")
    Verdict.model_validate(data)


def test_offline_fault_carries_retry_after_for_server_errors():
    with pytest.raises(litellm.InternalServerError) as err:
        offline._raise_fault(offline.Fault(kind="server_error", retry_after_s=4), "m")
    assert gateway._retry_after(err.value) == 4.0
    with pytest.raises(litellm.Timeout):
        offline._raise_fault(offline.Fault(kind="hang"), "m")


def test_lenient_json_prefers_the_object_over_bracketed_chatter():
    assert extract_json('[note] here you go: {"a": 1} [end]') == {"a": 1}
    assert extract_json("the list: [1, 2]") == [1, 2]
    with pytest.raises(ValueError, match="no parseable JSON"):
        extract_json("{not json}")


async def test_gateway_timeout_without_activity_context(monkeypatch):
    from activities.llm.config import load_config

    cfg = load_config(env={})
    cfg.request_timeout_s = 0.5
    offline.script("timeout_unit", offline.Fault(kind="hang"))
    with pytest.raises(Exception) as err:
        await gateway.complete("timeout_unit", [{"role": "user", "content": "x"}], Verdict, config=cfg)
    assert getattr(err.value, "type", None) == "LLMUnavailable" and "no answer within" in str(err.value)


async def test_offline_call_log_is_bounded():
    offline.reset()
    assert offline._state.calls.maxlen == offline.MAX_LOGGED_CALLS  # kept across reset()
    for i in range(offline.MAX_LOGGED_CALLS + 2):
        offline._state.calls.append(offline.OfflineCall("bounded", "m", [{"role": "user", "content": str(i)}], {}))
    await gateway.complete("bounded", [{"role": "user", "content": "last"}], None)
    logged = offline.calls("bounded")
    assert len(logged) == offline.MAX_LOGGED_CALLS and logged[-1].messages[-1]["content"] == "last"
    assert logged[0].messages[-1]["content"] == "3"
    offline.reset()
