"""The voice room in Chromium, shared by the browser voice tests: an InterviewWorkflow on a worker, the room server
with the voice doors, and a page whose fake microphone plays `mic` (a WAV) — torn down in reverse order."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.interview.entries import TranscriptEntry, TranscriptView
from models.interview.names import QUERY_TRANSCRIPT
from models.interview.workflow import InterviewInput
from tests.e2e.interview.test_browser_room import CHROMIUM, playwright_api
from tests.e2e.voice.helpers import serve
from tests.workflows.interview.helpers import adaptive_plan


@dataclass
class VoiceRoom:
    handle: Any
    wid: str
    base: str
    page: Any

    async def answers(self) -> list[TranscriptEntry]:
        view = await self.handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        return [e for e in view.entries if e.speaker == "interviewee"]


@asynccontextmanager
async def voice_room(client: Any, worker: Any, mic: Path, name: str) -> AsyncIterator[VoiceRoom]:
    """A 15-minute adaptive interview `interview-<name>-xxxxxx` and a browser page (not yet on the room)."""
    async with worker(client) as queue:
        wid = f"interview-{name}-{uuid.uuid4().hex[:6]}"
        handle = await client.start_workflow(
            "InterviewWorkflow", InterviewInput(topic="Running on-call for a payments team", plan=adaptive_plan(),
                                                duration_seconds=900, cycle_seconds=1, write_essay=False),
            id=wid, task_queue=queue)
        runner, base = await serve(client)
        try:
            async with playwright_api.async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=[
                    "--no-sandbox", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                    f"--use-file-for-fake-audio-capture={mic}%noloop", "--autoplay-policy=no-user-gesture-required"])
                try:
                    yield VoiceRoom(handle, wid, base, await (await browser.new_context()).new_page())
                finally:
                    await browser.close()
        finally:
            await runner.cleanup()
