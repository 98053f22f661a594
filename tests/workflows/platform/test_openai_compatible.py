"""The OpenAI-compatible provider path (vLLM, llama.cpp server, LM Studio...) against a stub HTTP server.

COLLOQUY_PROVIDER=openai_compatible + COLLOQUY_API_BASE, a fake key in the worker's environment: the request
carries the key in its Authorization header, but no workflow history ever contains it.
"""

from __future__ import annotations

import json

import pytest

from activities.llm.config import reset_config_cache
from tests.workflows.platform.helpers import failures, history_text, run_model_check, started_attempts
from tests.workflows.platform.openai_stub import OpenAIStub, chat_reply, error_reply

FAKE_KEY = "sk-colloquy-test-0123456789abcdefSECRET"
OK = json.dumps({"ok": True, "echo": "colloquy", "model_note": "stub server"})


@pytest.fixture
def stub(monkeypatch):
    with OpenAIStub() as server:
        monkeypatch.setenv("COLLOQUY_PROVIDER", "openai_compatible")
        monkeypatch.setenv("COLLOQUY_API_BASE", server.base_url)
        monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", FAKE_KEY)
        reset_config_cache()
        yield server
    reset_config_cache()


async def test_structured_call_reaches_the_server_with_schema_and_key(ts_env, worker, stub):
    stub.queue(chat_reply(OK, prompt_tokens=120, completion_tokens=30))
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    row = report.rows[0]
    assert row.ok and row.echo == "colloquy", row.error
    assert (row.provider, row.model) == ("openai_compatible", "default")
    assert (row.usage.input_tokens, row.usage.output_tokens) == (120, 30)
    assert row.usage.cost_usd == 0.0 and not row.usage.offline  # a self-hosted model is not priced publicly

    [request] = stub.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {FAKE_KEY}"
    body = request.body
    assert body["model"] == "default"
    # the openai_compatible default: json_object with the schema (llama.cpp's grammar), the schema in the prompt
    # too, streamed (a cancelled call closes its connection) and bounded by the schema's token budget
    fmt = body["response_format"]
    assert fmt["type"] == "json_object"
    assert set(fmt["schema"]["properties"]) == {"ok", "echo", "model_note"}
    assert '"model_note"' in body["messages"][0]["content"]
    assert body["stream"] is True and 0 < body["max_tokens"] <= 512
    assert body["messages"][0]["role"] == "system" and "Word: colloquy" in body["messages"][-1]["content"]

    history = await history_text(handle)
    assert FAKE_KEY not in history and "0123456789abcdef" not in history
    assert '"provider":"openai_compatible"' in history  # decoded payloads are searched too


async def test_rejected_key_is_permanent_and_redacted_from_history(ts_env, worker, stub):
    # Like OpenAI, the server echoes the key it rejected.
    stub.queue(error_reply(401, f"Incorrect API key provided: {FAKE_KEY}"))
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    row = report.rows[0]
    assert not row.ok and row.error_type == "LLMAuthError"
    assert "authentication failed" in row.error and "OPENAI_COMPATIBLE_API_KEY" in row.error
    assert len(stub.requests) == 1
    history = await history_text(handle)
    assert FAKE_KEY not in history and "***" in history
    [failure] = await failures(handle)
    assert failure.application_failure_info.non_retryable


async def test_http_429_retry_after_and_500_are_retried(ts_env, worker, stub):
    stub.queue(error_reply(429, "slow down", {"retry-after": "45"}), error_reply(503, "overloaded"),
               chat_reply(OK))
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    assert report.rows[0].ok and report.rows[0].usage.attempt == 3
    assert await started_attempts(handle) == [3]
    assert len(stub.requests) == 3
    history = await handle.fetch_history()
    scheduled = started = None
    for e in history.events:
        if e.HasField("activity_task_started_event_attributes"):
            started = e
        if e.HasField("activity_task_scheduled_event_attributes"):
            scheduled = e
    gap = (started.event_time.ToDatetime() - scheduled.event_time.ToDatetime()).total_seconds()
    assert gap >= 45  # the 429's retry-after, then the policy's 2 s backoff


async def test_garbage_answer_is_reasked_then_accepted(ts_env, worker, stub):
    stub.queue(chat_reply("I am a helpful assistant! {oops"), chat_reply("```json\n" + OK + "\n```"))
    async with worker(ts_env.client) as queue:
        _, report = await run_model_check(ts_env.client, queue)
    assert report.rows[0].ok and report.rows[0].usage.reasks == 1
    assert "not valid" in stub.requests[1].body["messages"][-1]["content"]


async def test_unreachable_server_is_retryable_unavailable(ts_env, worker, monkeypatch):
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("COLLOQUY_PROVIDER", "openai_compatible")
    monkeypatch.setenv("COLLOQUY_API_BASE", f"http://127.0.0.1:{port}/v1")
    reset_config_cache()
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    row = report.rows[0]
    assert not row.ok and row.error_type == "LLMUnavailable"
    assert await started_attempts(handle) == [4]
