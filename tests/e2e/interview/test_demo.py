"""`colloquy demo`'s body (what `make demo` runs after starting the server), against the test's dev server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from client.demo import _demo
from core.settings import TemporalSettings
from tests.e2e.interview.helpers import ESSAY

pytestmark = pytest.mark.dev_server


async def test_demo_runs_a_rehearsed_interview_to_an_essay(dev_env, offline, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))
    offline.script("interview_writer", ESSAY)
    code = await _demo(TemporalSettings(address=dev_env.client.service_client.config.target_host))
    out = capsys.readouterr().out
    assert code == 0, out
    assert "LLM profile: offline" in out and "[offline test double]" in out
    assert "Interviewee: Honestly, by accident." in out  # answers replayed from the transcript file
    assert "(interviewer_closing)" in out                 # the rehearsal closed the session, the clock did not
    path = Path(re.search(r"path: (\S+essay\.md)", out).group(1))
    # the scripted essay quotes words the demo's interviewee never said: the essay is their own (extractive)
    assert path.is_relative_to(tmp_path) and "extractive: the model's essay did not hold" in path.read_text()
    ui_port = int(dev_env.client.service_client.config.target_host.rsplit(":", 1)[1]) + 1000
    assert re.search(rf"Web UI: http://127\.0\.0\.1:{ui_port}/namespaces/default/workflows/interview-", out)
