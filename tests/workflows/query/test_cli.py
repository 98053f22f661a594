"""The `colloquy notes` CLI: command routing, the terminal clarification loop (library level), a closed
terminal leaving the question open, and the keyless offline defaults driving a whole session."""

from __future__ import annotations

from typer.testing import CliRunner

from client.cli import app
from client.query.cli import follow_query
from models.query.workflow import ClarifyAnswer
from tests.workflows.query.helpers import (
    analysis,
    answer,
    evaluation,
    finding,
    gap,
    no_update,
    plan,
    route,
    start,
    unlabelled,
)
from workflows.query.workflow import QueryWorkflow

Q = "What should I do today?"


def test_notes_routes_text_to_ask_and_keeps_subcommands():
    runner = CliRunner()
    ask = runner.invoke(app, ["notes", "Why was my bench heavy last week?", "--help"])
    assert ask.exit_code == 0 and "One input" in ask.output
    imp = runner.invoke(app, ["notes", "import", "--help"])
    assert imp.exit_code == 0 and "progress bar" in imp.output
    missing = runner.invoke(app, ["notes", "import", "/no/such/dir"])
    assert missing.exit_code == 2 and "is not a directory" in missing.output


class _Spy:
    """A Temporal client that records which workflows it ran (proves a read went through the worker)."""

    def __init__(self, client) -> None:  # noqa: ANN001
        self._client, self.ran = client, []

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self._client, name)

    async def execute_workflow(self, workflow, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN201
        self.ran.append(workflow)
        return await self._client.execute_workflow(workflow, *args, **kwargs)


async def test_context_is_read_through_the_worker_for_cli_and_api(ts_env, worker, tmp_path, monkeypatch):
    """Item 7: `notes context` and GET /context ask the worker (its store), not the client's folder."""
    from aiohttp.test_utils import TestClient, TestServer

    from client.query.cli import build_api, read_global_context

    store = tmp_path / "worker-notes"
    store.mkdir()
    (store / "global-context.md").write_text("# Global Context\n\n## Facts\n- bench_pr: 205 lbs (certain)\n")
    monkeypatch.setenv("COLLOQUY_NOTES_DIR", str(store))  # the worker's setting; the client passes no folder
    spy = _Spy(ts_env.client)
    async with worker(ts_env.client) as queue:
        text = await read_global_context(spy, queue, None)
        async with TestClient(TestServer(build_api(spy, queue, "fitness", None), host="127.0.0.1")) as http:
            ctx = await http.get("/context")
            body = await ctx.text()
    assert "bench_pr: 205 lbs" in text
    assert ctx.status == 200 and "bench_pr: 205 lbs" in body
    assert spy.ran == ["NotesContextWorkflow", "NotesContextWorkflow"]


def _script(offline) -> None:  # noqa: ANN001
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(Q), plan(Q, action="clarify"))
    offline.script("analyze_evidence", analysis("insufficient", [finding("heavy bench", "2026-01-12#1")],
                                                [gap("how you feel", "subjective")]),
                   analysis("sufficient", [finding("you feel great", "your answer")]))
    offline.script("clarify_gaps", {"questions": [{"question": "How do you feel?"}], "context_explanation": "",
                                    "fallback_action": ""})
    offline.script("synthesize_answer", answer("Go heavy today.", []))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())


async def test_closed_terminal_leaves_the_question_open_and_answer_resumes(dev_env, worker, offline, notes):
    """Real clock (dev server): the CLI awaits the result while it polls, which on the time-skipping server
    would skip straight over the 24 h clarification timeout."""
    ts_env = dev_env
    _script(offline)
    asked = []

    async def close_terminal(pending):  # noqa: ANN001, ANN202
        asked.append(pending.questions[0].question)
        return None  # Ctrl-C: leave it open

    async def answer_great(pending):  # noqa: ANN001, ANN202
        return ClarifyAnswer(request_id=pending.request_id, answers={"q1": "great"})

    async with worker(ts_env.client) as queue:
        handle = await start(ts_env, queue, Q, notes)
        assert await follow_query(handle, close_terminal, poll_s=0.05) is None
        assert asked == ["How do you feel?"]
        still = await handle.query(QueryWorkflow.pending_clarification)
        assert still is not None and still.request_id == "clarify-1"
        # `colloquy notes answer <id>` later:
        result = await follow_query(ts_env.client.get_workflow_handle_for(QueryWorkflow.run, handle.id), answer_great, poll_s=0.05)
    assert unlabelled(result.response) == "Go heavy today."


async def test_keyless_offline_defaults_complete_log_query_and_correction(ts_env, worker, offline, notes):
    """Nothing scripted: the deterministic default responders (demo path) carry each input type to the end."""
    async with worker(ts_env.client) as queue:
        log = await (await start(ts_env, queue, "Bench 190x3x2, felt strong", notes)).result()
        query = await (await start(ts_env, queue, "Why did my bench feel heavy last week?", notes)).result()
        fix = await (await start(ts_env, queue, "Actually that was 185 not 85", notes)).result()
    assert log.path[-4:] == ["PARSE", "STORE", "OBSERVE", "COMPLETE"]
    assert query.path[-2:] == ["OBSERVE", "COMPLETE"] and "EVALUATE" in query.path
    assert fix.input_type.value == "correction" and fix.path[-3:] == ["STORE", "OBSERVE", "COMPLETE"]
