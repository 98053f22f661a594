"""`colloquy interview start|join|watch|rehearse|essay|continue` through typer's CliRunner, against the dev server
and in-process workers. Each command runs in a thread (it calls asyncio.run), the workers in the test's loop."""

from __future__ import annotations

import asyncio
import re
import uuid

import pytest
from typer.testing import CliRunner

from client.cli import app
from client.interview.cli import session_state, wait_for_state
from models.interview.entries import TranscriptView
from models.interview.names import MAX_ENTRY_CHARS, QUERY_TRANSCRIPT
from models.interview.workflow import InterviewResult
from tests.e2e.interview.helpers import ESSAY

pytestmark = pytest.mark.dev_server
runner = CliRunner()


async def cli(*args: str, input: str | None = None):
    result = await asyncio.to_thread(runner.invoke, app, ["interview", *args], input=input)
    return result.exit_code, result.output


async def test_start_join_watch_rehearse_essay_continue(dev_env, worker, offline, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    address = dev_env.client.service_client.config.target_host
    conn = ["--address", address]
    wf_id = f"interview-cli-{uuid.uuid4().hex[:6]}"
    offline.script("rehearsal_interviewee", {"answer": "Honestly, config changes caused most of our outages."},
                   {"answer": "We deleted alerts nobody acted on and the pages fell by seventy percent."})
    offline.script("interview_writer", ESSAY)
    offline.script("interview_assistant", "An SLO is a target for a service level indicator.")
    async with worker(dev_env.client) as queue:
        q = ["--task-queue", queue]
        code, out = await cli("start", "What on-call taught me", "--duration", "5m", "--cycle-seconds", "1",
                              "--id", wf_id, *q, *conn)
        assert code == 0 and f"started {wf_id}" in out and f"/workflows/{wf_id}" in out, out
        handle = dev_env.client.get_workflow_handle(wf_id, result_type=InterviewResult)
        await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS" and bool(s.next_question), 60)

        code, out = await cli("essay", wf_id, *conn)
        assert code == 4 and "is still running (IN_PROGRESS)" in out and "--wait" in out, out

        answer = "Alert fatigue is real: we paged people for things they could not fix, every single night."
        typed = (f"{answer}\n{'x' * (MAX_ENTRY_CHARS + 1)}\n   \n/bogus\n/state\n/pause\n/resume\n"
                 "/ask what is an SLO?\n/quit\n")
        code, out = await cli("join", wf_id, "--entry-prefix", "tty", "--wait-question", "5", *conn, input=typed)
        assert code == 0, out
        assert "Interviewer" in out and "phase" in out and "time left" in out
        assert "your answer was sent in 2 parts" in out and f"{MAX_ENTRY_CHARS:,}" in out  # split, never refused
        assert "unknown command /bogus" in out and f"left {wf_id}" in out
        assert "pause: status paused" in out and "resume: status running (IN_PROGRESS)" in out, out
        assert "running (IN_PROGRESS)  ·  phase" in out, out  # /state: the shared word, then the engine's own
        assert re.search(r"assistant: (\[offline test double\] )?An SLO is a target for a service level indicator\.",
                         out), out[-1200:]
        view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        mine = [(e.speaker, e.text) for e in view.entries if e.entry_id.startswith("tty-")]
        said = [t for who, t in mine if who == "interviewee"]
        assert said[0] == answer and "".join(said[1:]) == "x" * (MAX_ENTRY_CHARS + 1)   # the long line in 2 parts
        assert {who for who, _ in mine} == {"interviewee"}       # join sends the answers only ...
        assert all(len(e.text) <= MAX_ENTRY_CHARS for e in view.entries)
        assert view.entries[0].speaker == "interviewer" and view.entries[0].client_id == "engine"   # ... the engine
        # recorded the question it put in force itself

        code, out = await cli("watch", wf_id, "--no-follow", *conn)
        assert code == 0 and "INTERVIEW_STARTED" in out and "CANDIDATE_MESSAGE" in out, out
        assert "status running (IN_PROGRESS))" in out, out

        code, out = await cli("rehearse", "--id", wf_id, "--persona", "maya", "--max-turns", "2", "--pace", "0",
                              "--no-wait-essay", *q, *conn)
        assert code == 0, out
        assert "config changes caused most of our outages" in out and "fell by seventy percent" in out
        assert "answers came from the offline test double" in out
        result = await handle.result()
        assert result.status == "COMPLETED"

        out_file = tmp_path / "essay.md"
        code, out = await cli("essay", wf_id, "--out", str(out_file), *conn)
        assert code == 0 and f"saved {out_file}" in out, out
        # the scripted essay quotes words this rehearsal's interviewee never said: the essay is theirs (extractive)
        assert "extractive: the model's essay did not hold to the transcript" in out_file.read_text()

        code, out = await cli("continue", wf_id, "--topic", "Escalation", "--cycle-seconds", "1", *q, *conn)
        assert code == 0 and f"follow-up of {wf_id} on: Escalation" in out, out
        follow_id = re.search(r"started (interview-\S+)", out).group(1)   # (the first line may be the offline label)
        follow = dev_env.client.get_workflow_handle(follow_id, result_type=InterviewResult)
        state = await wait_for_state(follow, lambda s: s.status == "IN_PROGRESS", 60)
        assert state.previous_session_id == wf_id and state.duration_seconds == 360
        code, out = await cli("rehearse", "--id", follow_id, "--transcript", "oncall", "--pace", "0",
                              "--no-wait-essay", *q, *conn)
        assert code == 0, out
        assert (await follow.result()).previous_session_id == wf_id
        final = await session_state(follow)
        assert final.status == "COMPLETED"


async def test_cli_errors_are_clear(dev_env, tmp_path):
    conn = ["--address", dev_env.client.service_client.config.target_host]
    code, out = await cli("join", "interview-nope-000000", *conn)
    assert code == 4 and "no interview with workflow id 'interview-nope-000000'" in out, out
    code, out = await cli("rehearse", "Topic", *conn)
    assert code == 2 and "choose one answer source" in out, out
    code, out = await cli("rehearse", "--persona", "nobody", "--id", "x", *conn)
    assert code == 2 and "nobody: no such file" in out and "maya" in out, out
    code, out = await cli("start", "Topic", "--duration", "soon", *conn)
    assert code != 0 and "is not a duration" in out, out
    code, out = await cli("essay", "interview-nope-000000", *conn)
    assert code == 4 and "no interview with workflow id" in out, out


async def test_rehearse_a_new_session_from_a_transcript_file_to_the_essay(dev_env, worker, offline, tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    offline.script("interview_writer", ESSAY)
    transcript = tmp_path / "mine.txt"
    transcript.write_text("Host: Why on-call?\nDana: Because somebody had to carry the pager.\n"
                          "  And I was curious.\nHost: Worst night?\nDana: The night the certificate expired.\n")
    conn = ["--address", dev_env.client.service_client.config.target_host]
    async with worker(dev_env.client) as queue:
        code, out = await cli("rehearse", "Carrying the pager", "--transcript", str(transcript), "--duration", "3m",
                              "--cycle-seconds", "1", "--pace", "0", "--task-queue", queue, *conn)
        wid = re.search(r"started (interview-\S+)", out)
        assert code == 0 and wid, out
        essay_code, essay_out = await cli("essay", wid.group(1), *conn)  # read through the worker
    assert code == 0, out
    assert re.search(r"started interview-[0-9a-f]{6}\n", out) and "rehearsing" in out and "from Dana" in out
    assert "Interviewee: Because somebody had to carry the pager. And I was curious." in out
    assert "Interviewee: The night the certificate expired." in out
    assert "session finalizing (interviewer_closing): 2 of 2 answers used" in out or \
        "session completed (interviewer_closing): 2 of 2 answers used" in out, out
    # the essay's name and how to read it, never a path on the worker's disk
    assert re.search(r"essay: essay\.md \(.*\) — print it: colloquy interview essay interview-\S+", out), out
    assert "artifacts" not in out and "file://" not in out, out
    # the scripted essay quotes words this transcript never said: the essay is the interviewee's own (extractive)
    assert essay_code == 0 and "extractive: the model's essay did not hold" in essay_out, essay_out
    assert "session completed (interviewer_closing)" in essay_out, essay_out
    assert "Web UI: http://" in out
