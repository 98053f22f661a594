"""The `colloquy` door: every expected error is one line on stderr with its documented exit code (client/errors.py),
never a traceback; "no worker is polling" is said within 3 s; artifacts are read through Temporal by a client
that cannot see the worker's disk; `colloquy models` shows the worker's view beside the local one.

The real CLI runs in a subprocess against the dev server; workers run in this process (agents scripted), with
COLLOQUY_ARTIFACT_DIR set here only — the CLI process gets another, empty one.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from client.errors import ExitCode
from tests.e2e.interview.helpers import ESSAY

pytestmark = pytest.mark.dev_server
ROOT = Path(__file__).resolve().parents[3]


@dataclass
class Done:
    code: int
    out: str
    err: str
    seconds: float

    def one_line_error(self, code: ExitCode, *fragments: str) -> str:
        """Assert: the documented exit code, no traceback, exactly one (error) line on stderr with `fragments`."""
        assert self.code == code, (self.code, self.out[-2000:], self.err[-3000:])
        assert "Traceback" not in self.err and "Traceback" not in self.out, self.err
        lines = [line for line in self.err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), self.err
        for fragment in fragments:
            assert fragment in lines[0], (fragment, lines[0])
        return lines[0]


async def colloquy(*args: str, address: str, stdin: bytes = b"", **env: str) -> Done:
    environ = dict(os.environ, COLUMNS="250", COLLOQUY_LOG_LEVEL="ERROR", TEMPORAL_ADDRESS=address, **env)
    started = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client.cli", *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=environ, cwd=ROOT)
    out, err = await asyncio.wait_for(proc.communicate(stdin), timeout=120)
    return Done(proc.returncode or 0, out.decode(), err.decode(), time.monotonic() - started)


def _address(dev_env) -> str:
    return dev_env.client.service_client.config.target_host


def _queue() -> str:
    return f"doors-{uuid.uuid4().hex[:8]}"


# ------------------------------------------------------------------------------------------ one-line errors
async def test_unknown_ids_are_one_line_exit_4(dev_env):
    address = _address(dev_env)
    for args, fragment in [
        (["notes", "answer", "notes-nope-000"], "no workflow with id 'notes-nope-000'"),
        (["write", "status", "writing-nope-000"], "no workflow with id 'writing-nope-000'"),
        (["write", "approve", "writing-nope-000"], "no workflow with id 'writing-nope-000'"),
        (["write", "outputs", "writing-nope-000", "--show", "final"], "no workflow with id 'writing-nope-000'"),
        (["interview", "essay", "interview-nope-000"], "no interview with workflow id 'interview-nope-000'"),
        (["interview", "watch", "interview-nope-000"], "no interview with workflow id 'interview-nope-000'"),
    ]:
        (await colloquy(*args, address=address)).one_line_error(ExitCode.REFUSED, fragment)


async def test_bad_arguments_and_an_unreachable_server_are_one_line_exit_2(dev_env):
    address = _address(dev_env)
    done = await colloquy("notes", "ask", "--today", "tomorrow", "How was my week?", address=address)
    done.one_line_error(ExitCode.USAGE, "--today 'tomorrow' is not a date")
    done = await colloquy("notes", "ask", "How was my week?", address="127.0.0.1:1")
    done.one_line_error(ExitCode.USAGE, "cannot reach Temporal at 127.0.0.1:1")
    done = await colloquy("write", "status", "writing-x", address="127.0.0.1:1")
    done.one_line_error(ExitCode.USAGE, "cannot reach Temporal at 127.0.0.1:1")


async def test_exit_codes_are_documented_in_every_help():
    for args in (["--help"], ["notes", "ask", "--help"], ["write", "status", "--help"], ["models", "--help"],
                 ["interview", "essay", "--help"], ["worker", "--help"], ["server", "start", "--help"]):
        done = await colloquy(*args, address="127.0.0.1:1")
        assert done.code == 0, done.err
        text = " ".join(done.out.split())
        assert "Exit codes (the same for every command):" in text, args
        for code in ExitCode:
            assert f" {int(code)} " in text, (args, code)
        assert "no worker polls the task queue" in text and "not found or refused" in text


# -------------------------------------------------------------------------------------------- no worker
async def test_no_worker_is_said_within_3_s_with_the_command_that_starts_one(dev_env):
    from client.worker_check import require_worker

    address, queue = _address(dev_env), _queue()
    started = time.monotonic()
    with pytest.raises(Exception, match=f"no worker is polling task queue '{queue}'"):
        await require_worker(dev_env.client, queue)
    assert time.monotonic() - started < 3.0

    done = await colloquy("notes", "ask", "How was my week?", "--task-queue", queue, address=address)
    done.one_line_error(ExitCode.NO_WORKER, f"no worker is polling task queue '{queue}'",
                        f"`colloquy worker --task-queue {queue}`")
    assert done.seconds < 8, done.seconds  # process start + imports + connect + the 3 s-bounded check
    done = await colloquy("discuss", "Ideas for a quieter pager", "--task-queue", queue, address=address)
    done.one_line_error(ExitCode.NO_WORKER, f"`colloquy worker --task-queue {queue}`")
    done = await colloquy("notes", "context", "--task-queue", queue, address=address)
    done.one_line_error(ExitCode.NO_WORKER, f"no worker is polling task queue '{queue}'")


async def test_commands_on_a_run_whose_queue_has_no_worker_say_so_at_once(dev_env):
    """A run started while no worker polls its queue (a worker that is down): `notes answer` used to crash after
    ~36 s and `write status` to fail after 30 s; both say "no worker" within seconds now."""
    from models.query.workflow import WORKFLOW_TYPE as QUERY_WORKFLOW
    from models.query.workflow import QueryRequest
    from models.writing.workflow import WORKFLOW_TYPE as WRITING_WORKFLOW
    from models.writing.workflow import WritingInput
    from tests.workflows.writing.conftest import STORY, config

    address, queue = _address(dev_env), _queue()
    query = await dev_env.client.start_workflow(QUERY_WORKFLOW, QueryRequest(text="How was my week?"),
                                                id=f"notes-doors-{uuid.uuid4().hex[:6]}", task_queue=queue)
    writing = await dev_env.client.start_workflow(
        WRITING_WORKFLOW, WritingInput(story_text=STORY, story_name="doors", models=["m-a"], config=config()),
        id=f"writing-doors-{uuid.uuid4().hex[:6]}", task_queue=queue)
    try:
        for args in (["notes", "answer", query.id], ["write", "status", writing.id],
                     ["write", "approve", writing.id], ["write", "outputs", writing.id]):
            done = await colloquy(*args, address=address)
            done.one_line_error(ExitCode.NO_WORKER, f"no worker is polling task queue '{queue}'")
            assert done.seconds < 8, (args, done.seconds)
    finally:
        for handle in (query, writing):
            await handle.terminate("test cleanup")


async def test_a_worker_that_goes_away_while_the_client_waits_is_reported(dev_env, worker, monkeypatch):
    """While waiting, the workflow queue's pollers are looked at again; once the server has not seen one for
    FRESH_SECONDS (90 s in production, 1 s here) the wait stops with the no-worker message and how to resume."""
    from client import worker_check
    from client.errors import NoWorkerError
    from core import pollers

    async with worker(dev_env.client) as queue:
        await worker_check.require_worker(dev_env.client, queue)  # it is there
    monkeypatch.setattr(pollers, "FRESH_SECONDS", 1.0)
    await asyncio.sleep(1.5)
    never = asyncio.get_running_loop().create_future()
    started = time.monotonic()
    with pytest.raises(NoWorkerError, match="then `colloquy notes answer X`"):
        await worker_check.while_worker(dev_env.client, queue, never, "`colloquy notes answer X`", every=0.5)
    assert time.monotonic() - started < 5 and never.cancelled()


# ---------------------------------------------------------------------------------- artifacts via Temporal
async def test_essay_is_read_through_the_worker_not_from_its_disk(dev_env, worker, offline, tmp_path, monkeypatch):
    """The worker (this process) keeps artifacts in worker-artifacts/; the CLI process's own artifact dir is
    another, empty folder: before, `interview essay` died with a 60-line traceback ("outside the store")."""
    from activities.artifacts import ArtifactStore
    from client.interview.cli import (
        InterviewInput,
        RehearsalOptions,
        TranscriptAnswers,
        rehearse,
        start_interview,
    )
    from models.interview.workflow import InterviewResult

    worker_dir = tmp_path / "worker-artifacts"
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(worker_dir))
    client_env = {"COLLOQUY_ARTIFACT_DIR": str(tmp_path / "client-artifacts")}
    offline.script("interview_writer", ESSAY)
    address = _address(dev_env)
    async with worker(dev_env.client) as queue:
        handle = await start_interview(dev_env.client, InterviewInput(
            topic="Carrying the pager", duration_seconds=180, cycle_seconds=1, interviewee_name="Dana"),
            task_queue=queue)
        await rehearse(dev_env.client, handle.id, TranscriptAnswers(["Because somebody had to.",
                                                                     "The night the certificate expired."]),
                       RehearsalOptions(fresh_question_timeout=20))
        result: InterviewResult = await handle.result()
        assert result.essay is not None
        path = ArtifactStore.local_path(result.essay)
        assert path.is_relative_to(worker_dir) and not (tmp_path / "client-artifacts").exists()

        done = await colloquy("interview", "essay", handle.id, address=address, **client_env)
        assert done.code == 0 and "Traceback" not in done.err, done.err
        # the scripted essay quotes words Dana never said: the essay printed is her own sentences (extractive)
        assert "extractive: the model's essay did not hold" in done.out
        assert path.read_text().strip().splitlines()[0] in done.out
        assert not (tmp_path / "client-artifacts").exists()  # nothing was read (or written) on the client's side

        saved = tmp_path / "essay-copy.md"
        done = await colloquy("interview", "essay", handle.id, "--out", str(saved), address=address, **client_env)
        assert done.code == 0 and saved.read_text() == path.read_text()

        path.unlink()  # gone from the worker's store: one line, exit code 4
        done = await colloquy("interview", "essay", handle.id, address=address, **client_env)
        done.one_line_error(ExitCode.REFUSED, "essay.md not found in the worker's store")


async def test_discussion_artifacts_are_named_and_read_through_the_worker(dev_env, worker, offline, tmp_path,
                                                                         monkeypatch):
    """Before, `colloquy discuss` printed `Transcript: /worker/disk/...` and `Report: ...` paths a client in another
    container cannot open. Now it names them, `discuss --html --out F` saves the report and `discuss-report ID`
    prints or saves them — read through the worker, from a CLI process whose artifact dir is another, empty one."""
    from activities.artifacts import ArtifactStore
    from models.discussion.workflow import DiscussionResult
    from tests.workflows.discussion.helpers import ideas, scores, uniform

    worker_dir = tmp_path / "worker-artifacts"
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(worker_dir))
    client_env = {"COLLOQUY_ARTIFACT_DIR": str(tmp_path / "client-artifacts")}
    offline.script("discussion_kickoff", "Kickoff: focus on cost.")
    offline.script("discussion_ideate", ideas("Compost hub", "Surplus app"))
    for agent in ("discussion_research", "discussion_critique", "discussion_implement", "discussion_synthesize"):
        offline.script(agent, f"{agent} text")
    offline.script("discussion_score", scores(uniform("I1", 6.0), uniform("I2", 8.0)))
    offline.script("discussion_select", {"explanation": "Surplus app.", "preferred_idea_id": "I2"})
    address, wid = _address(dev_env), f"discussion-doors-{uuid.uuid4().hex[:6]}"
    saved = tmp_path / "out" / "report.html"
    async with worker(dev_env.client) as queue:
        done = await colloquy("discuss", "How can a small town cut food waste?", "--html", "--id", wid,
                              "--out", str(saved), "--task-queue", queue, address=address, **client_env)
        assert done.code == 0 and "Traceback" not in done.err, (done.out[-2000:], done.err)
        result = await dev_env.client.get_workflow_handle(wid, result_type=DiscussionResult).result()
        assert result.report is not None and result.transcript is not None
        report_path, transcript_path = ArtifactStore.local_path(result.report), ArtifactStore.local_path(result.transcript)
        assert report_path.is_relative_to(worker_dir)
        assert str(worker_dir) not in done.out and "file://" not in done.out, done.out
        assert f"Report: report.html — save it: colloquy discuss-report {wid} --html --out report.html" in done.out
        assert f"Transcript: transcript.md — print it: colloquy discuss-report {wid}" in done.out
        assert saved.read_text() == report_path.read_text()   # --out: read through the worker

        shown = await colloquy("discuss-report", wid, address=address, **client_env)
        assert shown.code == 0 and shown.out.strip() == transcript_path.read_text().strip(), shown.err
        copy = tmp_path / "copy.html"
        shown = await colloquy("discuss-report", wid, "--html", "--out", str(copy), address=address, **client_env)
        assert shown.code == 0 and copy.read_text() == report_path.read_text(), shown.err
        assert not (tmp_path / "client-artifacts").exists()  # nothing read (or written) on the client's side

        report_path.unlink()  # gone from the worker's store: one line, exit code 4
        (await colloquy("discuss-report", wid, "--html", address=address, **client_env)).one_line_error(
            ExitCode.REFUSED, "report.html not found in the worker's store")
    (await colloquy("discuss-report", "discussion-nope-000", address=address)).one_line_error(
        ExitCode.REFUSED, "no workflow with id 'discussion-nope-000'")


async def test_large_artifacts_come_in_chunks_and_are_checked(dev_env, worker, tmp_path, monkeypatch):
    from activities.artifacts import ArtifactStore
    from client.artifacts import read_artifact
    from client.errors import CliError

    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "worker-artifacts"))
    text = "".join(f"line {i}: ünïcödé spans chunk edges — ✓\n" for i in range(4000))  # ~190 KB, multi-byte
    ref = ArtifactStore().put("doors", "big.md", text)
    async with worker(dev_env.client) as queue:
        assert await read_artifact(dev_env.client, ref, queue, chunk_bytes=64 * 1024 + 1) == text
        history = [w async for w in dev_env.client.list_workflows(
            "WorkflowType='ReadArtifactWorkflow' AND ExecutionStatus='Completed'")]
        assert len(history) >= 3  # one short workflow per chunk
        ArtifactStore.local_path(ref).write_text(text.upper(), encoding="utf-8")  # same size, other bytes
        with pytest.raises(CliError) as err:
            await read_artifact(dev_env.client, ref, queue)
        assert err.value.code == ExitCode.REFUSED and "changed since it was written" in err.value.message


# --------------------------------------------------------------------------------- rejected update, models
async def test_a_rejected_approval_is_one_line_exit_4(dev_env, worker, offline, tmp_path, monkeypatch):
    from models.writing.workflow import QUERY_RUN_STATUS, WORKFLOW_TYPE, StatusView, WritingInput
    from tests.workflows.writing.conftest import STORY, config

    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    monkeypatch.setenv("COLLOQUY_HISTORY_DB", str(tmp_path / "history.duckdb"))
    address = _address(dev_env)
    async with worker(dev_env.client) as queue:
        handle = await dev_env.client.start_workflow(
            WORKFLOW_TYPE, WritingInput(story_text=STORY, story_name="doors", models=["m-a"],
                                        config=config("gated")),
            id=f"writing-doors-{uuid.uuid4().hex[:6]}", task_queue=queue)
        for _ in range(200):
            status = await handle.query(QUERY_RUN_STATUS, result_type=StatusView)
            if status.pending_approval is not None:
                break
            await asyncio.sleep(0.1)
        assert status.pending_approval is not None
        done = await colloquy("write", "approve", handle.id, "--request-id", "not-the-pending-one", address=address)
        done.one_line_error(ExitCode.REFUSED, "refused:")
        done = await colloquy("write", "approve", handle.id, address=address)
        assert done.code == 0 and "approve" in done.out, done.err
        await handle.result()
        done = await colloquy("write", "approve", handle.id, address=address)
        done.one_line_error(ExitCode.REFUSED, "is not waiting for approval")
        done = await colloquy("write", "outputs", handle.id, "--show", "final", address=address,
                              COLLOQUY_ARTIFACT_DIR=str(tmp_path / "client-artifacts"))
        assert done.code == 0 and done.out.strip(), done.err


async def test_models_shows_the_workers_view_beside_the_local_one(dev_env, worker):
    """The worker (this process) runs the offline profile; the CLI's shell says ollama: both shown, labelled,
    the differences marked, and --check prints the worker's profile above the worker's results."""
    address = _address(dev_env)
    async with worker(dev_env.client) as queue:
        done = await colloquy("models", "--task-queue", queue, address=address, COLLOQUY_PROVIDER="ollama")
        assert done.code == 0 and "Traceback" not in done.err, done.err
        local, _, theirs = done.out.partition("Worker view")
        assert "Local view (this shell" in local and "default provider: ollama" in local
        assert f"(an LLM worker on {queue}-llm" in theirs and "Profile: offline" in theirs
        assert "colloquy-offline/offline-low" in theirs and "differs" in theirs
        assert "resolve differently on the worker than in this shell" in theirs

        done = await colloquy("models", "--check", "--agent", "model_check", "--task-queue", queue,
                              address=address, COLLOQUY_PROVIDER="ollama")
        assert done.code == 0, done.out + done.err
        worker_part = done.out[done.out.index("Worker view"):]
        assert worker_part.index("Profile: offline") < worker_part.index("Model check on the worker (profile offline)")
        assert "1/1 agents answered" in worker_part

    done = await colloquy("models", "--task-queue", _queue(), address=address)
    done.one_line_error(ExitCode.NO_WORKER, "no worker is polling task queue")
    assert "Local view (this shell" in done.out  # the local view is still printed
