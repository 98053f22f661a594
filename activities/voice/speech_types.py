"""What every speech backend (activities/voice/backends.py, local.py) takes and gives back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Progress = Callable[[float], None]      # called with the seconds of audio done so far (heartbeats)


class SpeechError(RuntimeError):
    """A clip or a text the backend cannot handle (not worth retrying)."""


class SpeechConfigError(SpeechError):
    """The speech profile is not usable here (unknown, not installed, not configured)."""


@dataclass(frozen=True)
class Heard:
    text: str
    language: str
    audio_seconds: float
    engine: str


@dataclass(frozen=True)
class Spoken:
    audio: bytes
    content_type: str
    engine: str
