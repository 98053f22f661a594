"""A burst on one interview queues, it is not refused (issue 38): 300 answers posted at once to one room, against
the dev server (whose limit of in-flight updates per workflow is what refused 237 of them before) and a worker.

Each answer is accepted exactly once (200, one transcript entry per answer id); a re-sent answer is a duplicate,
never a second entry."""

from __future__ import annotations

import asyncio
import collections
import uuid

import aiohttp
import pytest

from client.web.interview.sessions import room_path
from models.interview.entries import TranscriptView
from models.interview.names import QUERY_TRANSCRIPT
from models.interview.workflow import InterviewInput
from tests.e2e.interview.test_room_api import PAGE, SECRET, serve
from tests.workflows.interview.helpers import adaptive_plan, control, decision

pytestmark = [pytest.mark.dev_server, pytest.mark.drill]

BURST = 300


async def test_three_hundred_answers_at_once_are_each_accepted_once(dev_env, worker, offline):
    offline.script("interview_orchestrator", *[decision(f"What happened next ({i})?", qid=f"q-{i}")
                                               for i in range(BURST + 20)])
    client = dev_env.client
    async with worker(client) as queue:
        wid = f"interview-burst-{uuid.uuid4().hex[:6]}"
        handle = await client.start_workflow(
            "InterviewWorkflow", InterviewInput(topic="Running on-call for a payments team", plan=adaptive_plan(),
                                                duration_seconds=900, write_essay=False),
            id=wid, task_queue=queue)
        runner, base = await serve(client)
        room = base + room_path(SECRET, wid)
        try:
            connector = aiohttp.TCPConnector(limit=BURST)
            async with aiohttp.ClientSession(connector=connector,
                                             timeout=aiohttp.ClientTimeout(total=600)) as http:
                for _ in range(100):          # the interview is live once the plan is in force
                    async with http.get(room + "/state") as r:
                        if r.status == 200 and (await r.json()).get("status") == "IN_PROGRESS":
                            break
                    await asyncio.sleep(0.2)

                async def answer(i: int) -> tuple[int, dict]:
                    async with http.post(room + "/entry", headers=PAGE,
                                         json={"entry_id": f"burst-{i}", "text": f"Answer number {i}."}) as r:
                        return r.status, await r.json()

                results = await asyncio.gather(*(answer(i) for i in range(BURST)))
                statuses = collections.Counter(status for status, _ in results)
                refused = [body for status, body in results if status != 200][:3]
                assert statuses == {200: BURST}, f"{statuses}; e.g. {refused}"
                assert not any(body["duplicate"] for _, body in results)

                again = await answer(7)        # the same answer sent again: acknowledged, not recorded twice
                assert again[0] == 200 and again[1]["duplicate"] is True

            view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
            ids = collections.Counter(e.entry_id for e in view.entries if e.speaker == "interviewee")
            assert {f"room-a-burst-{i}" for i in range(BURST)} <= set(ids)
            assert max(ids.values()) == 1
            await control(handle, "end")
        finally:
            await runner.cleanup()
