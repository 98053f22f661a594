"""The voice doors over HTTP (no browser) against the dev server and a worker, with the offline speech double
(its transcripts are scripted here, by clip hash): consent first; a clip is stored, transcribed on
`<queue>-audio`, and becomes one entry that keeps a reference to its audio even when posted twice; the
question in force comes back as audio, made once; bad clips get clear 4xx answers; after the end, nothing more
is recorded (409)."""

from __future__ import annotations

import asyncio
import uuid

import aiohttp
import pytest

from activities.voice.store import AudioStore
from client.interview.cli import wait_for_state
from client.web.interview.sessions import room_path
from models.interview.entries import TranscriptView
from models.interview.names import QUERY_TRANSCRIPT
from models.interview.workflow import InterviewInput, InterviewResult
from models.voice.workflow import clip_workflow_id
from tests.e2e.crash.helpers import completed_activities
from tests.e2e.voice.helpers import PAGE, SECRET, script_clips, serve, tone_wav
from tests.workflows.interview.helpers import adaptive_plan, control, decision

pytestmark = pytest.mark.dev_server
Q1 = "How did you end up carrying the pager?"
Q2 = "Tell me about the worst night you had on call"
SAID = "I kept answering the pager at night and after a year it became my job"


async def test_spoken_answers_over_http(dev_env, worker, offline, tmp_path, monkeypatch):
    offline.script("interview_orchestrator", decision(Q1, qid="q-origin"), *[decision(Q2, qid="q-worst")] * 40)
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    monkeypatch.setenv("COLLOQUY_SPEECH_PROFILE", "offline")
    clip, unknown = tone_wav(440, seconds=8.0), tone_wav(523)   # 256 kB: arrives in several pieces
    monkeypatch.setenv("COLLOQUY_SPEECH_SCRIPT", str(script_clips(tmp_path / "speech.json", {clip: {"text": SAID}})))
    client = dev_env.client
    async with worker(client) as queue:
        wid = f"interview-voice-api-{uuid.uuid4().hex[:6]}"
        handle = await client.start_workflow(
            "InterviewWorkflow", InterviewInput(topic="Running on-call for a payments team", plan=adaptive_plan(),
                                                duration_seconds=300, cycle_seconds=1, write_essay=False),
            id=wid, task_queue=queue)
        runner, base = await serve(client)
        room = base + room_path(SECRET, wid)
        wav = {**PAGE, "Content-Type": "audio/wav"}
        try:
            async with aiohttp.ClientSession() as http:
                async def post(body: bytes, query: str = "?consent=yes", headers: dict | None = None):  # noqa: ANN202
                    async with http.post(room + "/audio" + query, data=body, headers=headers or wav) as r:
                        return r.status, await r.json()

                # consent first; then bad clips get clear answers and store nothing
                status, body = await post(clip, query="")
                assert status == 403 and "agrees" in body["error"]
                status, body = await post(clip, headers={**PAGE, "Content-Type": "text/plain"})
                assert status == 415 and "audio/wav" in body["error"]
                status, body = await post(b"RIFF-not-really-a-wave-file-at-all-" * 3)
                assert status == 400, body
                status, body = await post(clip, headers={"Content-Type": "audio/wav"})   # no CSRF header
                assert status == 403
                assert not list((tmp_path / "artifacts").glob("audio-*/*"))

                async def pieces():  # noqa: ANN202 - the body arrives in pieces, as a browser's does
                    for i in range(0, len(clip), 16384):
                        yield clip[i:i + 16384]
                        await asyncio.sleep(0.01)

                async with http.post(room + "/audio?consent=yes", data=pieces(), headers=wav) as r:
                    status, first = r.status, await r.json()
                assert status == 200, first
                assert first["text"] == SAID and first["profile"] == "offline"
                assert first["engine"] == "offline speech double"          # labelled, never pretends
                status, again = await post(clip)                           # the same clip again: the same result
                assert status == 200 and again == first
                stored = AudioStore().files.path_for(f"audio-{wid}", first["clip"])
                assert stored.read_bytes() == clip                         # kept before transcription, as sent

                status, body = await post(unknown)                         # a clip the double has no text for
                assert status == 422 and "never guesses" in body["error"], body

                entry = {"entry_id": first["entry_id"], "text": SAID + " (edited)", "audio_clips": [first["clip"]]}
                for duplicate in (False, True):
                    async with http.post(room + "/entry", json=entry, headers=PAGE) as r:
                        answer = await r.json()
                        assert r.status == 200 and answer["duplicate"] is duplicate, answer
                async with http.post(room + "/entry", json={**entry, "entry_id": "x", "audio_clips": ["clip-nope"]},
                                     headers=PAGE) as r:
                    assert r.status == 400 and "audio_clips" in (await r.json())["error"]

                view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
                spoken = [e for e in view.entries if e.speaker == "interviewee"]
                assert [(e.text, e.audio) for e in spoken] == [(SAID + " (edited)", [f"audio-{wid}/{first['clip']}"])]
                key = first["clip"].removeprefix("clip-").split(".")[0]
                transcription = client.get_workflow_handle(clip_workflow_id(wid, key))
                assert await completed_activities(transcription, "voice_transcribe") == 1   # transcribed once

                # the engine decides with the spoken answer in hand: its next question is the one in force
                await wait_for_state(handle, lambda s: s.next_question == Q2, 30)
                async with http.get(room + "/question-audio") as r:
                    assert r.status == 200 and r.content_type.startswith("audio/")
                    audio, qid = await r.read(), r.headers["X-Colloquy-Question-Id"]
                    assert audio[:4] == b"RIFF" and b"offline speech double" in audio
                async with http.get(room + "/question-audio") as r:
                    assert await r.read() == audio and r.headers["X-Colloquy-Question-Id"] == qid
                async with http.get(room + f"/question-audio?q={qid}") as r:             # one question: cacheable
                    assert await r.read() == audio and "max-age" in r.headers["Cache-Control"]
                async with http.get(room + "/question-audio?q=999999") as r:           # not the one in force
                    assert r.status == 409
                async with http.get(room + "/question-audio?lang=not a language") as r:
                    assert r.status == 400

                await control(handle, "end")
                await client.get_workflow_handle(wid, result_type=InterviewResult).result()
                status, body = await post(tone_wav(660))
                assert status == 409 and "ended" in body["error"]
        finally:
            await runner.cleanup()
