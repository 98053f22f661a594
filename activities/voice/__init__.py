"""Voice activities (they run on `<queue>-audio`: `colloquy worker --role audio`, or `all`):

- `voice_transcribe` — the clip (already in the artifact store) → text, heartbeating every HEARTBEAT_S while the
  model works (a long clip is never taken for a dead worker; a killed worker's attempt is retried elsewhere).
- `voice_speak` — a question's text → audio in the artifact store, cached per (interview, question, voice): a
  second call finds the stored audio and makes nothing.

Backends and profiles: activities/voice/backends.py. Audio storage (encryption, retention): store.py."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.voice.backends import SpeechConfigError, SpeechError, backend
from activities.voice.store import AudioStore, audio_scope, sweep_now_and_then
from models.voice.workflow import SpeakInput, Speech, TranscribeInput, Transcript

HEARTBEAT_S = 2.0
ERRORS = ("SpeechError", "SpeechConfigError", "ArtifactNotFound", "ArtifactError")


def _classified(exc: Exception) -> ApplicationError:
    kind = "SpeechConfigError" if isinstance(exc, SpeechConfigError) else "SpeechError"
    return ApplicationError(str(exc), type=kind, non_retryable=True)


async def _heartbeating(fn: Any, *args: Any) -> Any:
    """Run `fn(*args, progress)` in a thread; heartbeat (with the seconds done) every HEARTBEAT_S meanwhile."""
    done = {"seconds": 0.0}

    def progress(seconds: float) -> None:
        done["seconds"] = max(done["seconds"], seconds)

    task: asyncio.Future[Any] = asyncio.ensure_future(asyncio.to_thread(fn, *args, progress))  # type: ignore[call-arg]
    while True:
        finished, _ = await asyncio.wait([task], timeout=HEARTBEAT_S)
        with contextlib.suppress(RuntimeError):
            activity.heartbeat(done["seconds"])
        if finished:
            return task.result()


@activity.defn(name="voice_transcribe")
async def voice_transcribe(inp: TranscribeInput) -> Transcript:
    store = AudioStore()
    audio = await asyncio.to_thread(store.get, inp.clip)
    speech = backend()
    try:
        heard = await _heartbeating(speech.transcribe, audio, inp.clip.content_type, inp.language)
    except SpeechError as exc:
        raise _classified(exc) from None
    with contextlib.suppress(OSError, ValueError):
        await asyncio.to_thread(sweep_now_and_then)
    return Transcript(text=heard.text[:60_000], language=heard.language, audio_seconds=heard.audio_seconds,
                      profile=speech.profile, engine=heard.engine)


def _question_audio_name(inp: SpeakInput, voice_key: str) -> str:
    digest = hashlib.sha256(f"{voice_key}\n{inp.language}\n{inp.text}".encode()).hexdigest()[:24]
    return f"question-{digest}"


def speak(inp: SpeakInput) -> Speech:
    speech = backend()
    store = AudioStore()
    scope = audio_scope(inp.interview_id)
    name = _question_audio_name(inp, speech.voice_key(inp.language))
    for ext, kind in (("wav", "audio/wav"), ("mp3", "audio/mpeg")):
        ref = store.ref(scope, f"{name}.{ext}", kind)
        if ref is not None:
            return Speech(audio=ref, profile=speech.profile, engine="cached", cached=True)
    try:
        spoken = speech.synthesize(inp.text, inp.language)
    except SpeechError as exc:
        raise _classified(exc) from None
    ext = "wav" if spoken.content_type == "audio/wav" else "mp3"
    ref = store.put(scope, f"{name}.{ext}", spoken.audio, spoken.content_type)
    return Speech(audio=ref, profile=speech.profile, engine=spoken.engine)


@activity.defn(name="voice_speak")
async def voice_speak(inp: SpeakInput) -> Speech:
    return await asyncio.to_thread(speak, inp)


LLM_ACTIVITIES: list[Any] = []
ACTIVITIES: list[Any] = []            # nothing on the main queue
AUDIO_ACTIVITIES: list[Any] = [voice_transcribe, voice_speak]
