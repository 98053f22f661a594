"""The four pipelines complete through a real OpenAI-compatible model server with the defaults a new user gets:
llama-cpp-python's server (the `local` extra's `server` part) serving SmolLM2 on a free 127.0.0.1 port, one
server for this module, and COLLOQUY_PROFILE=config COLLOQUY_PROVIDER=openai_compatible COLLOQUY_API_BASE=<it>
(nothing else configured). No invalid output anywhere (a slow call's fallback is reported), read from each run's
own records
(tests/e2e/platform/real_pipelines.py). The interview runs in `make test`; notes, writing and discussion (the same
provider path, longer) under `slow` (`make test-slow`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from activities.llm import gateway
from activities.llm.config import reset_config_cache
from tests.e2e.platform import real_pipelines as rp

pytest.importorskip("llama_cpp.server.app", reason="the `local` extra (llama-cpp-python[server]) is not installed")

from activities.llm.llama_server import LlamaServer  # noqa: E402

pytestmark = [pytest.mark.local_model, pytest.mark.dev_server]
#: The hang guard of a real-model interview: its own waits (start 600 s, 300 s per answer, essay 900 s) bound it;
#: on a busy machine it takes longer than pyproject's 1200 s without being hung (issue 41).
INTERVIEW_TIMEOUT_S = 2700


@pytest.fixture(scope="module")
def server() -> Iterator[LlamaServer]:
    with LlamaServer() as srv:
        yield srv


@pytest.fixture
def http(server, monkeypatch, tmp_path):
    monkeypatch.setenv("COLLOQUY_PROFILE", "config")
    monkeypatch.setenv("COLLOQUY_PROVIDER", "openai_compatible")
    monkeypatch.setenv("COLLOQUY_API_BASE", server.base_url)
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    monkeypatch.setenv("COLLOQUY_HISTORY_DB", str(tmp_path / "history.duckdb"))
    for key in ("COLLOQUY_CONFIG", "COLLOQUY_FALLBACK_PROVIDER", "COLLOQUY_MODEL", "COLLOQUY_STRUCTURED_OUTPUT"):
        monkeypatch.delenv(key, raising=False)
    reset_config_cache()
    gateway.reset_mode_downgrades()
    yield tmp_path
    gateway.reset_mode_downgrades()
    reset_config_cache()


@pytest.mark.timeout(INTERVIEW_TIMEOUT_S)
async def test_rehearsed_interview_through_the_server(dev_env, worker, http):
    async with worker(dev_env.client) as queue:
        rp.expect_interview(await rp.run_interview(dev_env.client, queue))


@pytest.mark.slow
async def test_notes_import_and_ask_with_a_clarification_through_the_server(dev_env, worker, http):
    async with worker(dev_env.client) as queue:
        rp.expect_notes(await rp.run_notes(dev_env.client, queue, http))


@pytest.mark.slow
async def test_writing_with_three_models_through_the_server(dev_env, worker, http):
    # three model ids, one server: llama-cpp-python's server answers any model name with the model it serves
    async with worker(dev_env.client) as queue:
        rp.expect_writing(await rp.run_writing(dev_env.client, queue, ["m-a", "m-b", "m-c"]))


@pytest.mark.slow
async def test_standard_discussion_through_the_server(dev_env, worker, http):
    async with worker(dev_env.client) as queue:
        rp.expect_discussion(await rp.run_discussion(dev_env.client, queue))
