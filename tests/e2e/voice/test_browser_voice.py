"""The voice room in a real browser with real speech: Chromium's fake microphone plays a WAV made by piper and
espeak-ng (three answers with pauses between them), faster-whisper (Whisper base) transcribes on the audio
worker, and:
- three spoken answers become three entries, each within the word error rate bound of its voice (piper ≤ 0.15,
  espeak-ng ≤ 0.25) and each keeping a reference to its recordings; the words are in the answer box, editable,
  before they are sent;
- nothing is recorded before the participant ticks the consent box;
- the questions are fetched as audio (piper speaks them);
- when the interview is closed, capture stops at once (the microphone's tracks end).
One module, one interview, short clips: the whole path once."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from activities.voice.local import espeak_wav, piper_wav
from client.web.interview.sessions import room_path
from rules.voice.wer import word_error_rate
from tests.e2e.interview.test_browser_room import CHROMIUM, _until, playwright_api
from tests.e2e.voice.browser import voice_room
from tests.e2e.voice.helpers import SECRET, local_voice_missing, spoken_wav
from tests.workflows.interview.helpers import control, decision

MISSING = local_voice_missing()
pytestmark = [pytest.mark.dev_server, pytest.mark.voice,
              pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is needed (make test installs it)"),
              pytest.mark.skipif(MISSING is not None, reason=f"the local voice path: {MISSING}")]
expect = playwright_api.expect

Q1, Q2, Q3 = ("How did you end up carrying the pager?", "Tell me about the worst night you had on call.",
              "How do you tell that a rotation is healthy?")
ANSWERS = [  # (engine, words, WER bound)
    ("piper", "I started carrying the pager by accident, because nobody else on the payments team wanted the "
              "night shift.", 0.15),
    ("espeak-ng", "My worst shift was the weekend the main database went down for four hours.", 0.25),
    ("piper", "A healthy rotation means people sleep through most nights and every alert leads to a fix.", 0.15),
]


async def test_three_spoken_answers_in_the_browser(dev_env, worker, offline, tmp_path: Path, monkeypatch):
    offline.script("interview_orchestrator", decision(Q1, qid="q-1"), decision(Q2, qid="q-2"),
                   *[decision(Q3, qid="q-3", phase="deep_dive")] * 40)
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    monkeypatch.setenv("COLLOQUY_SPEECH_PROFILE", "local")
    mic = tmp_path / "answers.wav"
    mic.write_bytes(spoken_wav([piper_wav(text) if engine == "piper" else espeak_wav(text, "en-us")
                                for engine, text, _ in ANSWERS], gap_s=16.0))
    async with voice_room(dev_env.client, worker, mic, "voice-browser") as room:
        page, wid = room.page, room.wid
        spoken_questions: list[tuple[str, str]] = []
        page.on("response", lambda r: spoken_questions.append((r.headers.get("content-type", ""),
                                                                 r.headers.get("x-colloquy-question-id", "")))
                if "/question-audio" in r.url and r.status == 200 else None)
        clips: list = []

        async def on_clip(r) -> None:  # noqa: ANN001
            if "/audio?" in r.url:
                clips.append((r.status, await r.text()))
        page.on("response", lambda r: on_clip(r))
        await page.goto(room.base + room_path(SECRET, wid) + "?autosend=1")
        await expect(page.locator("#question")).to_have_text(Q1, timeout=30_000)
        await expect(page.locator("#mic")).to_be_disabled()           # no consent, no microphone
        # a person answers once the question has been spoken (speaking over it stops it: test_browser_bargein.py)
        await _until(lambda: page.evaluate("window.ColloquyVoice.questionsPlayed()"), 60,
                     "the first question to be spoken", 0.2)
        await page.locator("#voice-consent").check()
        await page.locator("#mic").click()
        started = time.monotonic()
        # the words are shown in the box, editable, before they are sent
        await expect(page.locator("#answer")).to_have_value(re.compile("pager", re.I), timeout=120_000)
        assert not await page.locator("#answer").get_attribute("readonly")
        got = await _until(lambda: _count(room.answers, 3), 240, "three spoken answers as entries", 0.5)
        took = time.monotonic() - started
        for entry, (engine, said, bound) in zip(got, ANSWERS, strict=True):
            wer = word_error_rate(said, entry.text)
            print(f"\n{engine}: WER {wer:.2f} — {entry.text!r}")
            assert wer <= bound, (engine, said, entry.text, [e.text for e in got], clips, spoken_questions)
            assert entry.audio and all(a.startswith(f"audio-{wid}/clip-") for a in entry.audio)
            assert entry.entry_id.startswith("room-a-voice-")
        assert any(kind.startswith("audio/") for kind, _ in spoken_questions), spoken_questions
        assert len({qid for _, qid in spoken_questions}) >= 2          # a new question, spoken again
        assert await page.evaluate("window.ColloquyVoice.capturing()")

        await control(room.handle, "end")                                   # closing: capture stops at once
        await expect(page.locator("#banner")).to_contain_text("ended", timeout=20_000)
        assert not await page.evaluate("window.ColloquyVoice.capturing()")
        assert await page.evaluate("window.ColloquyVoice.tracks()") == ["ended"]
        await expect(page.locator("#mic")).to_be_disabled()
        assert len(await room.answers()) == 3
        print(f"three spoken answers in {took:.0f}s")


async def _count(answers, n: int):  # noqa: ANN001, ANN202
    got = await answers()
    return got if len(got) >= n else None
