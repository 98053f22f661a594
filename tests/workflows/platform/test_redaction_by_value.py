"""Secrets are redacted by VALUE (issue 15, defect 7): a key held in `MYLLM_PASSWORD` — the configured
`api_key_env`, a name with no KEY/TOKEN/SECRET in it — and echoed by the provider in its 401 body reaches
neither the workflow history, nor the error the client sees, nor the worker's log.

Real counterparts: a local HTTP server speaking the OpenAI API (tests/workflows/platform/openai_stub.py), the
dev server, and a `colloquy worker` process whose log is read back."""

from __future__ import annotations

import io
import logging
import uuid

import pytest
import structlog

from core import secrets
from core.logging import configure_logging
from models.platform.workflow import ModelCheckReport, ModelCheckRequest
from tests.e2e.interview.helpers import worker_env, worker_process
from tests.workflows.platform.helpers import history_text
from tests.workflows.platform.openai_stub import OpenAIStub, error_reply

KEY = "hunter2-correct-horse-battery-staple-42"  # not shaped like a key: only its value gives it away

pytestmark = [pytest.mark.dev_server]


def test_a_configured_key_variable_is_redacted_whatever_its_name(monkeypatch, tmp_path):
    from activities.llm.config import load_config

    monkeypatch.setenv("MYLLM_AUTH", KEY)  # no KEY/TOKEN/SECRET/PASSWORD in the name: only the config says so
    monkeypatch.setenv("PLAIN_SETTING", "not-a-secret-at-all")
    assert KEY in secrets.redact(f"bad key {KEY}!")
    (tmp_path / "c.yaml").write_text("llm:\n  providers:\n    myllm: {prefix: openai/, api_key_env: MYLLM_AUTH}\n")
    load_config(path=tmp_path / "c.yaml")
    assert secrets.redact(f"bad key {KEY}!") == "bad key ***!"
    assert "not-a-secret-at-all" in secrets.redact("value not-a-secret-at-all")
    monkeypatch.setenv("OPENAI_API_KEY", "abcdef123456")  # a standard provider variable, any shape
    assert secrets.redact("abcdef123456") == "***"


def test_logs_are_redacted_by_value_stdlib_and_structlog(monkeypatch):
    monkeypatch.setenv("MYLLM_PASSWORD", KEY)
    secrets.register_secret_env("MYLLM_PASSWORD")
    stream = io.StringIO()
    configure_logging(fmt="json", level="INFO", stream=stream)
    structlog.get_logger("t").warning("llm.failed", error=f"401 {KEY}", nested={"body": [KEY]})
    handler = logging.StreamHandler(buffer := io.StringIO())
    logging.getLogger("t.std").addHandler(handler)
    try:
        logging.getLogger("t.std").warning("provider said %s", KEY)
        try:
            raise RuntimeError(f"echo {KEY}")
        except RuntimeError:
            logging.getLogger("t.std").exception("failed")
    finally:
        logging.getLogger("t.std").removeHandler(handler)
    assert KEY not in stream.getvalue() and "***" in stream.getvalue()
    assert KEY not in buffer.getvalue() and "provider said ***" in buffer.getvalue()
    assert "RuntimeError: echo ***" in buffer.getvalue()


async def test_a_key_echoed_in_a_401_body_reaches_no_history_error_or_log(dev_env, tmp_path):
    client = dev_env.client
    queue = f"redact-{uuid.uuid4().hex[:6]}"
    with OpenAIStub() as stub:
        stub.queue(error_reply(401, f"Incorrect API key provided: {KEY}. You can find your key at ..."))
        config = tmp_path / "colloquy.yaml"
        config.write_text(f"llm:\n  default_provider: myllm\n  providers:\n    myllm:\n      prefix: openai/\n"
                          f"      api_base: {stub.base_url}\n      api_key_env: MYLLM_PASSWORD\n      local: true\n"
                          f"  tiers:\n    low: {{myllm: stub}}\n    medium: {{myllm: stub}}\n    high: {{myllm: stub}}\n")
        env = worker_env(tmp_path / "artifacts")
        env.update(COLLOQUY_CONFIG=str(config), COLLOQUY_PROFILE="config", MYLLM_PASSWORD=KEY,
                   COLLOQUY_LOG_LEVEL="DEBUG")
        log = tmp_path / "worker.log"
        async with worker_process(client.service_client.config.target_host, queue, env, log):
            handle = await client.start_workflow("ModelCheckWorkflow", ModelCheckRequest(),
                                                 id=f"mc-redact-{uuid.uuid4().hex[:6]}", task_queue=queue,
                                                 result_type=ModelCheckReport)
            report = await handle.result()
        assert stub.requests and stub.requests[0].headers["authorization"] == f"Bearer {KEY}"
    row = report.rows[0]
    assert not row.ok and row.error_type == "LLMAuthError", row
    assert KEY not in (row.error or "") and "***" in (row.error or "")
    history = await history_text(handle)
    assert KEY not in history and "***" in history
    worker_log = log.read_text()
    assert worker_log.strip(), "the worker logged nothing"
    assert KEY not in worker_log
