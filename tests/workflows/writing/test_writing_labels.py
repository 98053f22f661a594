"""Issue 23, item 4: one rule for every command that runs agents — on the `offline` profile the first line says
the test double answers (whatever model ids were given), an unreachable self-hosted provider is one clear line,
the same id twice is refused; `history` says how many offline runs it hides and how to include them."""

from __future__ import annotations

import socket

import pytest
from typer.testing import CliRunner

from activities.llm.config import reset_config_cache
from client.cli import app
from tests.workflows.writing.conftest import STORY, start

runner = CliRunner()
OFFLINE_LINE = "LLM profile offline: the deterministic offline test double answers every agent, not a model"
DEAD = "127.0.0.1:1"  # nothing listens there: the commands stop at connecting, after their first line


@pytest.fixture
def story(tmp_path):
    path = tmp_path / "post.md"
    path.write_text(STORY)
    return path


def _first_line(output: str) -> str:
    return next(line for line in output.splitlines() if line.strip())


def test_write_with_real_model_ids_on_offline_says_so_first(story, offline):
    out = runner.invoke(app, ["write", str(story), "--models", "openai/gpt-4o-mini,anthropic/claude-3-5-haiku-20241022",
                              "--address", DEAD])
    first = _first_line(out.output)
    assert first.startswith(OFFLINE_LINE), out.output
    assert "model ids openai/gpt-4o-mini, anthropic/claude-3-5-haiku-20241022 are labels only" in \
        " ".join(out.output.split())


def test_discuss_with_a_role_model_on_offline_says_so_first(offline):
    out = runner.invoke(app, ["discuss", "Cut food waste", "--models", "critic=openai/gpt-4o-mini",
                              "--address", DEAD])
    assert _first_line(out.output).startswith(OFFLINE_LINE), out.output


@pytest.mark.parametrize("argv", [["notes", "ask", "what did I eat?"], ["notes", "repl"],
                                  ["interview", "start", "GPU heat"], ["interview", "continue", "interview-x"],
                                  ["study", "create", "GPU heat", "--quota", "3"]])
def test_every_agent_command_says_offline_first(argv, offline):
    out = runner.invoke(app, [*argv, "--address", DEAD])
    assert _first_line(out.output).startswith(OFFLINE_LINE), out.output


def test_the_same_model_twice_is_refused(story, offline):
    out = runner.invoke(app, ["write", str(story), "--models", "a,a,a", "--address", DEAD])
    assert out.exit_code == 2 and "--models names 'a' more than once" in out.output
    out = runner.invoke(app, ["discuss", "topic", "--models", "critic=a,critic=b", "--address", DEAD])
    assert out.exit_code == 2 and "role 'critic' more than once" in out.output


def test_an_unreachable_ollama_is_one_clear_line(story, offline, tmp_path, monkeypatch):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / "colloquy.yaml"
    config.write_text(f"llm:\n  providers:\n    ollama:\n      api_base: http://127.0.0.1:{port}\n")
    monkeypatch.setenv("COLLOQUY_CONFIG", str(config))
    reset_config_cache()
    try:
        out = runner.invoke(app, ["write", str(story), "--models", "ollama", "--address", DEAD])
    finally:
        reset_config_cache()
    assert out.exit_code == 2, out.output
    errors = [line for line in out.output.splitlines() if "error" in line]
    assert len(errors) == 1 and "Traceback" not in out.output
    assert f"provider 'ollama' is not reachable at http://127.0.0.1:{port} (nothing is listening" in \
        " ".join(out.output.split())


async def test_history_says_how_many_offline_runs_it_hides(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        for _ in range(2):
            await (await start(ts_env, queue, ["m-a"])).result()
    for query in ("agents", "costs", "trend", "weekly"):
        out = runner.invoke(app, ["history", query])
        text = " ".join(out.output.split())
        assert out.exit_code == 0 and "(no rows yet)" not in text, (query, out.output)
        assert "no rows from real runs: 2 offline run(s) (answered by the test double) are hidden; add " \
               "--include-offline to include them" in text, (query, out.output)


async def test_the_workflow_refuses_the_same_model_twice_too(ts_env, worker, offline):
    from temporalio.client import WorkflowFailureError

    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, ["m-a", "m-b", " m-a"])
        with pytest.raises(WorkflowFailureError) as info:
            await handle.result()
    assert "model id(s) 'm-a' given more than once" in str(info.value.cause)
    assert offline.calls("writing_draft") == []
