"""The local profile without its extra: a clear, permanent error (no retries, no silent fallback)."""

from __future__ import annotations

import sys

from activities.llm import local
from activities.llm.config import reset_config_cache
from tests.workflows.platform.helpers import failures, run_model_check


async def test_missing_local_extra_is_a_clear_non_retryable_error(ts_env, worker, monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as if llama-cpp-python were not installed
    monkeypatch.setattr(local._Engine, "_instance", None)
    monkeypatch.setenv("COLLOQUY_PROFILE", "local")
    reset_config_cache()
    async with worker(ts_env.client) as queue:
        handle, report = await run_model_check(ts_env.client, queue)
    row = report.rows[0]
    assert not row.ok and row.error_type == "LLMModelNotFound"
    assert "the `local` extra is not installed" in row.error and "make install-local" in row.error
    [failure] = await failures(handle)
    assert failure.application_failure_info.non_retryable


async def test_missing_weights_file_is_explained(ts_env, worker, monkeypatch, tmp_path):
    monkeypatch.setenv("COLLOQUY_LOCAL_GGUF", str(tmp_path / "nope.gguf"))
    monkeypatch.setattr(local._Engine, "_instance", None)
    monkeypatch.setenv("COLLOQUY_PROFILE", "local")
    reset_config_cache()
    async with worker(ts_env.client) as queue:
        _, report = await run_model_check(ts_env.client, queue)
    row = report.rows[0]
    assert row.error_type == "LLMModelNotFound" and "nope.gguf does not exist" in row.error
