"""Colloquy against a real OpenAI-compatible model server: llama-cpp-python's server (the `local` extra's `server`
part) serving SmolLM2 on a free 127.0.0.1 port, started once for this module and stopped at its end.

COLLOQUY_PROFILE=config COLLOQUY_PROVIDER=openai_compatible COLLOQUY_API_BASE=<server>: the default mode
(json_object + schema) works; a strict json_schema, which this server answers with HTTP 500 (a request-validation
error), is downgraded once and remembered, or refused with an error naming the setting; fault cases (server
killed mid-call, slower than the attempt's deadline) are retried or answered by the fallback provider; a
cancelled call's connection is closed and the server stops generating.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from pydantic import BaseModel, Field
from temporalio.exceptions import ApplicationError

from activities.llm import gateway
from activities.llm.config import load_config, reset_config_cache
from models.platform.workflow import ModelCheckRequest
from tests.workflows.platform.helpers import run_model_check, started_attempts

pytest.importorskip("llama_cpp.server.app", reason="the `local` extra (llama-cpp-python[server]) is not installed")

from activities.llm.llama_server import LlamaServer  # noqa: E402

pytestmark = [pytest.mark.local_model, pytest.mark.dev_server]

#: A call SmolLM2 must answer at length (the grammar forces 6000 characters, ~2000 tokens, ~30 s here): the calls
#: that are cut short.
LONG = [{"role": "user", "content": "Write a long story about a dragon and a baker."}]


class Long(BaseModel):
    story: str = Field(min_length=6000)


@pytest.fixture(scope="module")
def server() -> Iterator[LlamaServer]:
    with LlamaServer() as srv:
        yield srv


@pytest.fixture
def http(server, monkeypatch):
    monkeypatch.setenv("COLLOQUY_PROFILE", "config")
    monkeypatch.setenv("COLLOQUY_PROVIDER", "openai_compatible")
    monkeypatch.setenv("COLLOQUY_API_BASE", server.base_url)
    reset_config_cache()
    gateway.reset_mode_downgrades()
    yield server
    gateway.reset_mode_downgrades()
    reset_config_cache()


def _cfg(**env: str):
    base = {"COLLOQUY_PROFILE": "config", "COLLOQUY_PROVIDER": "openai_compatible"}
    return load_config(env={**base, **env})


async def test_agent_schemas_pass_the_model_check_through_the_server(dev_env, worker, http):
    # a handful, one at a time as `models --check` asks a worker whose server serves one call at a time (the
    # bench runs all); real time: a time-skipping server would skip past a real model's start-to-close
    agents = ["interview_note_taker", "route_input", "writing_final_analysis", "interview_writer"]
    async with worker(dev_env.client) as queue:
        _, report = await run_model_check(dev_env.client, queue, ModelCheckRequest(agents=agents, parallel=1))
    for row in report.rows:
        assert row.ok, (row.agent, row.error)
        assert row.profile == "config" and row.provider == "openai_compatible"
        assert row.structured_output == ("text" if row.agent == "interview_writer" else "json_object")
        assert row.usage and row.usage.output_tokens > 0


async def test_strict_json_schema_is_downgraded_once_and_remembered(http):
    from activities.platform.model_check import MODEL_CHECK, ModelCheckOutput

    cfg = _cfg(COLLOQUY_API_BASE=http.base_url, COLLOQUY_STRUCTURED_OUTPUT="json_schema")
    messages = [{"role": "user", "content": 'Reply with {"ok": true, "echo": "colloquy", "model_note": "hi"}'}]
    out, usage = await gateway.complete(MODEL_CHECK.name, messages, ModelCheckOutput, config=cfg)
    assert isinstance(out, ModelCheckOutput) and usage.attempt == 1  # the server's 500 burnt no attempt
    assert gateway._MODE_DOWNGRADES == {("openai_compatible", "default"): "json_object"}
    res = gateway.resolve_model(MODEL_CHECK.name, cfg)
    assert res is not None and gateway.structured_mode(res) == "json_object"


async def test_strict_json_schema_without_downgrade_is_a_clear_permanent_error(http, tmp_path):
    path = tmp_path / "colloquy.yaml"
    path.write_text("llm:\n  default_provider: openai_compatible\n  providers:\n    openai_compatible:\n"
                    f"      api_base: {http.base_url}\n      structured_output: json_schema\n"
                    "      downgrade_structured_output: false\n")
    from activities.platform.model_check import MODEL_CHECK, ModelCheckOutput

    cfg = load_config(env={"COLLOQUY_CONFIG": str(path)})
    with pytest.raises(ApplicationError) as info:
        await gateway.complete(MODEL_CHECK.name, [{"role": "user", "content": "hi"}], ModelCheckOutput, config=cfg)
    err = info.value
    assert err.non_retryable and err.type == gateway.BAD_REQUEST
    assert "rejected structured-output mode json_schema" in err.message
    assert "llm.providers.openai_compatible.structured_output" in err.message


def _requests_seen(server: LlamaServer) -> int:
    return server.tail(200_000).count("POST /v1/chat/completions")


async def until_generating(server: LlamaServer, seen: int, limit_s: float = 60.0) -> None:
    """Wait until the server has started answering one more request than `seen` (uvicorn logs a streamed
    request when its response starts, at the first token): what the fault tests need, not a fixed delay."""
    deadline = time.monotonic() + limit_s
    while _requests_seen(server) <= seen:
        assert time.monotonic() < deadline, f"the server started no answer within {limit_s:.0f} s"
        await asyncio.sleep(0.1)


async def _quick_answer_s(server: LlamaServer) -> float:
    cfg = _cfg(COLLOQUY_API_BASE=server.base_url)
    started = time.monotonic()
    text, _ = await gateway.complete("interview_assistant", [{"role": "user", "content": "Say hi."}], None,
                                     max_tokens=8, config=cfg)
    assert isinstance(text, str)
    return time.monotonic() - started


async def test_a_cancelled_call_closes_its_request_and_the_server_stops_generating(http):
    cfg = _cfg(COLLOQUY_API_BASE=http.base_url)
    seen = _requests_seen(http)
    call = asyncio.ensure_future(gateway.complete("interview_writer", LONG, Long, max_tokens=2500, config=cfg))
    await until_generating(http, seen)  # SmolLM2 does ~60 tokens/s here: 2000 tokens take ~30 s
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    # The server saw the client go away and stopped: the next request is answered at once, not after the
    # rest of a 2000-token answer (llama.cpp serves one request at a time).
    # (an unclosed request would hold the server for the rest of its ~2000 tokens: 30 s or more on 2 cores)
    assert await _quick_answer_s(http) < 20
    deadline = time.monotonic() + 5
    while "Disconnected from client" not in http.tail(20000) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    assert "Disconnected from client" in http.tail(20000)  # the server side of the closed connection


async def test_a_server_slower_than_the_deadline_is_cut_off_and_the_fallback_answers(http, offline):
    cfg = _cfg(COLLOQUY_API_BASE=http.base_url, COLLOQUY_FALLBACK_PROVIDER="offline")
    cfg.request_timeout_s = 1.5  # the attempt's budget for this call
    started = time.monotonic()
    text, usage = await gateway.complete("interview_writer", LONG, Long, max_tokens=2500, config=cfg)
    assert time.monotonic() - started < 15
    assert usage.fallback_used and usage.provider == "offline"
    assert await _quick_answer_s(http) < 20  # the abandoned generation did not keep the server busy


async def test_a_server_killed_mid_call_is_retried_as_an_outage(ts_env, worker, monkeypatch, tmp_path):
    # its own server: this one is killed
    with LlamaServer() as doomed:
        monkeypatch.setenv("COLLOQUY_PROFILE", "config")
        monkeypatch.setenv("COLLOQUY_PROVIDER", "openai_compatible")
        monkeypatch.setenv("COLLOQUY_API_BASE", doomed.base_url)
        monkeypatch.setenv("COLLOQUY_FALLBACK_PROVIDER", "")
        reset_config_cache()
        cfg = _cfg(COLLOQUY_API_BASE=doomed.base_url)
        seen = _requests_seen(doomed)
        call = asyncio.ensure_future(gateway.complete("interview_writer", LONG, Long, max_tokens=2500, config=cfg))
        await until_generating(doomed, seen)
        doomed.kill()
        with pytest.raises(ApplicationError) as info:
            await asyncio.wait_for(call, 15)
        assert info.value.type == gateway.UNAVAILABLE and not info.value.non_retryable  # retried by Temporal
        # Through a workflow: every attempt fails fast (nobody listens), the run ends, nothing hangs.
        async with worker(ts_env.client) as queue:
            handle, report = await asyncio.wait_for(run_model_check(ts_env.client, queue), 120)
        assert not report.rows[0].ok and report.rows[0].error_type == "LLMUnavailable"
        assert await started_attempts(handle) == [4]
