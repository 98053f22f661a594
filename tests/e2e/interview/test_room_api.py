"""The room's HTTP API against the dev server and a worker (no browser): section boundaries and time warnings
come with the state (from the engine's event log), the entry limit comes with it, and an answer delivered after
the interview finished is refused with 409 (the interview has ended), not 404 (no such interview)."""

from __future__ import annotations

import asyncio
import time
import uuid

import aiohttp
import pytest
from aiohttp import web

from client.web.app import build_app
from client.web.interview.room import room_extension
from client.web.interview.sessions import room_path
from models.interview.workflow import InterviewInput, InterviewResult
from tests.workflows.interview.helpers import adaptive_plan, control, decision

pytestmark = pytest.mark.dev_server

SECRET = b"room-secret-for-tests"
PAGE = {"X-Colloquy-CSRF": "page"}     # what the room page sends (client/web/csrf.js)
Q1 = "How did you end up carrying the pager?"


async def serve(client) -> tuple[web.AppRunner, str]:  # noqa: ANN001
    async def temporal():  # noqa: ANN202
        return client

    app = build_app("console-token-for-tests", None, [], extensions=[room_extension(temporal, SECRET, poll_s=0.2)])
    runner = web.AppRunner(app, shutdown_timeout=2)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


async def test_boundaries_warnings_and_a_late_answer_over_http(dev_env, worker, offline):
    offline.script("interview_orchestrator", *[decision(Q1, qid="q-origin")] * 40)
    client = dev_env.client
    async with worker(client) as queue:
        wid = f"interview-room-api-{uuid.uuid4().hex[:6]}"
        handle = await client.start_workflow(
            "InterviewWorkflow", InterviewInput(topic="Running on-call for a payments team", plan=adaptive_plan(),
                                                duration_seconds=30, cycle_seconds=1, write_essay=False,
                                                warning_thresholds_seconds=[5]),
            id=wid, task_queue=queue)
        runner, base = await serve(client)
        room = base + room_path(SECRET, wid)
        try:
            async with aiohttp.ClientSession() as http:
                async def view() -> dict:
                    async with http.get(room + "/state") as r:
                        assert r.status == 200
                        return await r.json()

                deadline = time.monotonic() + 40
                while True:
                    v = await view()
                    kinds = [(n["kind"], n["section_id"]) for n in v["notices"]]
                    if ("section_started", "practice") in kinds or time.monotonic() > deadline:
                        break
                    await asyncio.sleep(0.3)
                assert v["max_entry_chars"] == 8000
                assert kinds[:4] == [("section_started", "origins"), ("time_warning", "origins"),
                                     ("section_ended", "origins"), ("section_started", "practice")]
                texts = [n["text"] for n in v["notices"]]
                assert texts[0].startswith("New section: Origins")
                assert texts[1] == "0:05 left in this section (Origins)"
                assert texts[2] == "Section ended: Origins (its time is up)"

                await control(handle, "end")
                result = await client.get_workflow_handle(wid, result_type=InterviewResult).result()
                assert result.status == "COMPLETED"
                async with http.post(room + "/entry", json={"entry_id": "after-the-end", "text": "One more thing"}, headers=PAGE) as r:
                    body = await r.json()
                    assert r.status == 409, body
                    assert "ended" in body["error"]
                async with http.post(room + "/heartbeat", json={"client_id": "page", "seq": 1}, headers=PAGE) as r:
                    assert r.status == 409
                # a session that never existed is still 404
                other = base + room_path(SECRET, "interview-never-started")
                async with http.post(other + "/entry", json={"entry_id": "x", "text": "hello"}, headers=PAGE) as r:
                    assert r.status == 404
        finally:
            await runner.cleanup()
