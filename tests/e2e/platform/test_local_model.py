"""The `local` profile end to end: SmolLM2-135M via llama.cpp inside the worker, through litellm."""

from __future__ import annotations

import pytest

from activities.llm.config import LOCAL_MODEL_NAME, reset_config_cache
from tests.workflows.platform.helpers import run_model_check

pytestmark = [pytest.mark.local_model, pytest.mark.dev_server]


async def test_model_check_on_the_local_model(dev_env, worker, monkeypatch):
    pytest.importorskip("llama_cpp", reason="the `local` extra is not installed (make install-local)")
    monkeypatch.setenv("COLLOQUY_PROFILE", "local")
    monkeypatch.setenv("COLLOQUY_LOCAL_THREADS", "1")
    reset_config_cache()
    async with worker(dev_env.client) as queue:
        _, report = await run_model_check(dev_env.client, queue, prefix="local-model-check")
    row = report.rows[0]
    assert row.ok is not None and row.error is None, row.error  # validated ModelCheckOutput (content is weak)
    assert isinstance(row.echo, str) and len(row.echo) <= 80
    usage = row.usage
    assert (usage.provider, usage.model) == ("local", LOCAL_MODEL_NAME)
    assert usage.cost_usd == 0.0 and not usage.offline
    assert usage.input_tokens > 0 and usage.output_tokens > 0
