"""`colloquy study create|invite|revoke|status|close|report` through typer's CliRunner against the dev server and
in-process workers: links printed once, one-line errors with the documented exit codes, the report read back."""

from __future__ import annotations

import asyncio
import re
import uuid

import pytest
from typer.testing import CliRunner

from client.cli import app
from models.study.workflow import QUERY_PARTICIPANTS, ParticipantView, StudyResult

pytestmark = pytest.mark.dev_server
runner = CliRunner()


async def cli(*args: str):
    result = await asyncio.to_thread(runner.invoke, app, ["study", *args])
    return result.exit_code, result.output


async def test_create_invite_revoke_status_close_report(dev_env, worker, offline, tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    conn = ["--address", dev_env.client.service_client.config.target_host]
    sid = f"study-cli-{uuid.uuid4().hex[:6]}"
    async with worker(dev_env.client) as queue:
        q = ["--task-queue", queue]
        code, out = await cli("create", "How teams run on-call", "--goal", "What makes on-call bearable",
                              "--quota", "5", "--close-in", "7d", "--minutes", "5", "--languages", "en,de",
                              "--id", sid, *q, *conn)
        assert code == 0 and f"started {sid}" in out and f"colloquy study invite {sid}" in out, out

        code, out = await cli("invite", sid, "--count", "2", "--language", "de", "--base-url",
                              "https://study.example.org", "--out", str(tmp_path / "links.csv"), *conn)
        links = re.findall(rf"(P00\d)  (https://study\.example\.org/study/{sid}/join/[\w-]{{32}})", out)
        assert code == 0 and [p for p, _ in links] == ["P001", "P002"], out
        assert (tmp_path / "links.csv").read_text().splitlines() == ["participant,link",
                                                                     *(f"{p},{link}" for p, link in links)]

        code, out = await cli("invite", sid, "--count", "1", "--language", "xx-not-a-language", *conn)
        assert code == 2 and "language" in out and "Traceback" not in out and len(out.strip().splitlines()) == 1, out
        code, out = await cli("revoke", sid, "P002", *conn)
        assert code == 0 and "P002: revoked" in out, out
        code, out = await cli("revoke", sid, "P002", *conn)
        assert code == 4 and "already revoked" in out and len(out.strip().splitlines()) == 1, out
        code, out = await cli("status", sid, *conn)
        assert code == 0 and "invited 2" in out and "revoked 1" in out and "completed 0 of 5" in out, out
        code, out = await cli("report", sid, *conn)
        assert code == 4 and "no report yet" in out and "--wait" in out, out
        code, out = await cli("export", sid, "--format", "qdpx", *q, *conn)
        assert code == 4 and "no findings to export yet" in out and len(out.strip().splitlines()) == 1, out
        code, out = await cli("review", sid, "--approve", *conn)
        assert code == 4 and "not started for review" in out, out

        code, out = await cli("close", sid, "--reason", "pilot over", *conn)
        assert code == 0 and "closed: pilot over" in out, out
        result = await dev_env.client.get_workflow_handle(sid, result_type=StudyResult).result()
        code, out = await cli("report", sid, "--format", "md", *q, *conn)
        assert code == 0 and out.startswith("# Findings: How teams run on-call") and "0 completed" in out, out
        code, out = await cli("report", sid, "--format", "html", "--out", str(tmp_path / "r.html"), *q, *conn)
        assert code == 0 and (tmp_path / "r.html").read_text().startswith("<!doctype html>"), out
        code, out = await cli("export", sid, "--format", "csv", "--out", str(tmp_path / "csv"), *q, *conn)
        assert code == 0 and (tmp_path / "csv" / "participants.csv").read_text().count("\n") == 3, out
        # the study has ended: one line that says so, exit code 4 (never "workflow execution already completed")
        for args, nothing in ((("revoke", sid, "P001"), "nothing to revoke"),
                              (("close", sid), "it is closed already"),
                              (("invite", sid, "--count", "1"), "it takes no new participants")):
            code, out = await cli(*args, *conn)
            assert code == 4 and f"study {sid} has ended (completed): {nothing}" in out, out
            assert len(out.strip().splitlines()) == 1 and "already completed" not in out, out

        # --review: the plan is shown; links stay shut until `study review --approve`
        rid = f"{sid}-review"
        code, out = await cli("create", "How teams run on-call", "--quota", "2", "--review", "--id", rid, *q, *conn)
        assert code == 0 and "Plan: How teams run on-call" in out and f"colloquy study review {rid} --approve" in out
        code, out = await cli("status", rid, *conn)
        assert code == 0 and "phase: reviewing" in out, out
        code, out = await cli("review", rid, "--approve", *conn)
        assert code == 0 and "approved: links open" in out, out
        await dev_env.client.get_workflow_handle(rid).execute_update("close_study", {"reason": "test over"})
        ledger = await dev_env.client.get_workflow_handle(sid).query(QUERY_PARTICIPANTS,
                                                                      result_type=list[ParticipantView])
    code, out = await cli("status", "study-that-does-not-exist", *conn)
    assert code == 4 and len(out.strip().splitlines()) == 1, out
    assert result.closed_reason == "pilot over" and [p.language for p in ledger] == ["de", "de"]
