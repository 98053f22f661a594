"""`colloquy serve` needs no disk of the worker's (issue 25, "Done when"): a worker whose artifacts go to a real
S3-compatible server (SeaweedFS) and two `colloquy serve` processes, each with a data dir of its own and the same
secrets from the environment, on the dev server (real clock).

A one-participant study runs to its report; its participant is rehearsed (persona answers, offline profile) and
ends in an essay. Then, through HTTP:
- serve A (the same object storage: it reads through its own store) and serve B (no object-storage settings or
  credentials at all: it reads through a worker) both open the participant's essay and the study report;
- a room link made by A opens on B, and a browser signed in on A is signed in on B.
Nothing reaches either serve's data dir but what serve itself keeps (no artifact)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from activities.artifact_store import store
from activities.rehearsal.interviewee import Persona
from client.interview.cli import (
    PersonaAnswers,
    RehearsalOptions,
    TranscriptAnswers,
    rehearse,
    start_interview,
)
from models.interview.workflow import InterviewInput, InterviewResult
from models.study.workflow import UPDATE_OPEN_LINK, OpenedLink, StudyResult
from tests.conftest import replay
from tests.e2e.interview.helpers import ANSWERS
from tests.workflows.study.helpers import invite, opening, start_study

pytestmark = pytest.mark.dev_server
ROOT = Path(__file__).resolve().parents[3]
TOKEN = "stateless-serve-token-for-tests"
ROOM_SECRET = "room-secret-shared-by-both-replicas"
ESSAY = "# Carrying the pager\n\nI kept answering the pager at night, and after a year it became my job.\n"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(port: int, data: Path, address: str, queue: str, extra: dict[str, str]) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COLLOQUY_", "AWS_"))}
    env.update(PYTHONPATH=str(ROOT), COLLOQUY_PROFILE="offline", COLLOQUY_DATA_DIR=str(data),
               COLLOQUY_SERVE_TOKEN=TOKEN, COLLOQUY_ROOM_SECRET=ROOM_SECRET, COLLOQUY_TASK_QUEUE=queue,
               TEMPORAL_ADDRESS=address, **extra)
    return subprocess.Popen([sys.executable, "-m", "client.cli", "serve", "--port", str(port)], env=env, cwd=data,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)


def _wait_up(port: int, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"serve exited: {proc.stdout.read().decode() if proc.stdout else ''}")
        with contextlib.suppress(OSError), urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
            return
        time.sleep(0.2)
    raise AssertionError(f"serve on {port} did not start in {timeout} s")


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=90) as r:  # noqa: S310 — our own 127.0.0.1 servers
            return r.status, r.read().decode(), dict(r.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def _sign_in(base: str) -> str:
    """The session cookie a browser gets from /login (no redirect followed)."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            return None

    body = f"token={TOKEN}".encode()
    req = urllib.request.Request(f"{base}/login", data=body, method="POST",
                                 headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": base})
    try:
        r = urllib.request.build_opener(NoRedirect).open(req, timeout=30)
        cookie = r.headers["Set-Cookie"]
    except urllib.error.HTTPError as exc:
        cookie = exc.headers["Set-Cookie"]
    assert cookie, "no session cookie"
    return cookie.split(";", 1)[0]


async def _listed(client, *queries: str) -> dict[str, list]:  # noqa: ANN001
    """Each visibility query's workflows, once every one lists some (visibility lags the runs by a moment)."""
    deadline = time.monotonic() + 20
    while True:
        found = {q: [w async for w in client.list_workflows(q)] for q in queries}
        if all(found.values()) or time.monotonic() > deadline:
            return found
        await asyncio.sleep(0.5)


async def _rehearsed_interview(client, queue: str, iid: str) -> InterviewResult:  # noqa: ANN001
    handle = await start_interview(client, InterviewInput(topic="What on-call taught me", duration_seconds=600,
                                                          cycle_seconds=1.0), iid, queue)
    report = await rehearse(client, iid, TranscriptAnswers(ANSWERS[:2]), RehearsalOptions(fresh_question_timeout=20))
    assert report.turns == 2 and report.closed_by_client, report
    return await handle.result()


async def _one_participant_study(client, queue: str, sid: str) -> StudyResult:  # noqa: ANN001
    study = await start_study(client, queue, sid, quota=1, interview_seconds=300, cycle_seconds=1, languages=["en"])
    [(_, link_token)] = await invite(study, 1)
    opened = await study.execute_update(UPDATE_OPEN_LINK, opening(  # with consent, as the page sends it
        hashlib.sha256(link_token.encode()).hexdigest(), "en"), result_type=OpenedLink)
    persona = Persona(name="Ana", role="SRE", stories=["Nobody else would take the pager, so I did."],
                      opinions=["Paging people for noise is a management failure."])
    report = await rehearse(client, opened.interview_id, PersonaAnswers(
        client, opened.interview_id, "on-call", persona, task_queue=queue, max_turns=2),
        RehearsalOptions(fresh_question_timeout=20, poll_seconds=0.1, start_timeout=60))
    assert report.turns == 2 and report.closed_by_client, report
    return await asyncio.wait_for(client.get_workflow_handle(sid, result_type=StudyResult).result(), 120)


async def test_two_serves_with_data_dirs_of_their_own_open_essays_reports_and_each_others_links(
        dev_env, worker, offline, seaweed, tmp_path, monkeypatch):
    s3 = seaweed.env(prefix=f"e2e-{uuid.uuid4().hex[:8]}")
    dirs = {name: tmp_path / name for name in ("serve-a", "serve-b")}
    for d in dirs.values():
        d.mkdir()
    ports = {name: _free_port() for name in dirs}
    worker_env = {**s3, "COLLOQUY_DATA_DIR": str(tmp_path / "worker"),
                  "COLLOQUY_SERVE_URL": f"http://127.0.0.1:{ports['serve-a']}/"}  # where people open serve
    for name, value in worker_env.items():
        monkeypatch.setenv(name, value)  # the in-process worker: object storage, serve's address
    offline.script("interview_writer", ESSAY)
    client = dev_env.client
    address = client.service_client.config.target_host
    serves = {}
    async with worker(client) as queue:
        serves["serve-a"] = _serve(ports["serve-a"], dirs["serve-a"], address, queue, s3)
        serves["serve-b"] = _serve(ports["serve-b"], dirs["serve-b"], address, queue, {})  # no store settings
        try:
            sid = f"study-stateless-{uuid.uuid4().hex[:6]}"
            iid = f"interview-stateless-{uuid.uuid4().hex[:6]}"
            interview, result = await asyncio.gather(_rehearsed_interview(client, queue, iid),
                                                     _one_participant_study(client, queue, sid))
            assert interview.essay is not None and interview.essay.uri.startswith(f"s3://colloquy/{s3['COLLOQUY_S3_PREFIX']}/")
            assert result.outputs is not None and result.outputs.report_html.uri.startswith("s3://colloquy/e2e-")
            report_html = store().get(result.outputs.report_html)
            essay = store().get(interview.essay)
            assert ESSAY in essay  # the writer's (scripted) essay, under the offline double's label

            for name, port in ports.items():
                await asyncio.to_thread(_wait_up, port, serves[name])
            a, b = (f"http://127.0.0.1:{ports[n]}" for n in ("serve-a", "serve-b"))
            bearer = {"Authorization": f"Bearer {TOKEN}"}
            for base in (a, b):
                code, text, _ = await asyncio.to_thread(_get, f"{base}/api/interviews/{iid}/essay", bearer)
                assert code == 200 and text == essay, (base, code, text)
                code, text, headers = await asyncio.to_thread(_get, f"{base}/api/studies/{sid}/report", bearer)
                assert code == 200 and text == report_html and headers["Content-Type"].startswith("text/html"), \
                    (base, code, text[:300])

            # the result links the essay where a person opens it: serve's console URL, not the worker's path
            assert interview.essay.url == f"{a}/api/interviews/{iid}/essay"
            code, text, _ = await asyncio.to_thread(_get, interview.essay.url, bearer)
            assert code == 200 and text == essay

            # helpers carry ColloquyPipeline (the Web UI's list leaves them out): rehearsal answers, artifact reads
            helpers = await _listed(client, 'ColloquyPipeline="artifact"', 'ColloquyPipeline="rehearsal"')
            assert any(w.id.startswith("artifact-read-") for w in helpers['ColloquyPipeline="artifact"'])
            assert f"rehearsal-{sid}--P001-turn-1" in {w.id for w in helpers['ColloquyPipeline="rehearsal"']}
            main = [w.id async for w in client.list_workflows(
                f'ColloquyPipeline != "artifact" AND ColloquyPipeline != "rehearsal" AND WorkflowId = "{iid}"')]
            assert main == [iid]
            read = next(w for w in helpers['ColloquyPipeline="artifact"'] if w.id.startswith("artifact-read-"))
            await replay(client.get_workflow_handle(read.id))  # the patched upsert replays

            # one room link, one sign-in: both replicas honour what the other made
            code, text, _ = await asyncio.to_thread(_get, f"{a}/api/interviews/{iid}/room-link", bearer)
            room = json.loads(text)["url"].split(str(ports["serve-a"]), 1)[1]
            code, text, _ = await asyncio.to_thread(_get, f"{b}{room}/state")
            assert code == 200 and json.loads(text)["workflow_id"] == iid, text
            cookie = await asyncio.to_thread(_sign_in, a)
            code, text, _ = await asyncio.to_thread(_get, f"{b}/api/interviews/{iid}/console", {"Cookie": cookie})
            assert code == 200 and json.loads(text)["state"]["workflow_id"] == iid, text[:300]
        finally:
            for proc in serves.values():
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, 15)
            for proc in serves.values():
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, 9)
                    proc.wait()
    for d in dirs.values():  # serve kept nothing of the runs: no artifact, no copy of the essay
        assert not list(d.rglob("*.md")) and not list(d.rglob("*.html")) and not (d / "artifacts").exists()
