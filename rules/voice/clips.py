"""What a recorded answer (a clip) may be, and its identity.

A clip is accepted as `audio/wav` (aliases `audio/x-wav`, `audio/wave`) or `audio/webm` (what a browser's
MediaRecorder makes; `audio/ogg` too), at most MAX_CLIP_BYTES, and its first bytes must say the same thing as
its content type. It lasts at most MAX_CLIP_SECONDS: a WAV by its header, a WebM or Ogg by what its container
declares (rules/voice/containers.py: the Segment's Duration or its last block; the last Ogg page's granule); a WebM
or Ogg whose container does not say is bounded by size instead (UNTIMED_MAX_BYTES: MAX_CLIP_SECONDS at
UNTIMED_BITRATE, a generous speech bitrate). A body that claims to be a WAV but is not a readable one is refused
with a clear message. Its key is the sha256 of its bytes: the same recording posted twice is one clip, one
transcription, one entry (`voice-<key>`)."""

from __future__ import annotations

import hashlib
import io
import struct
import wave
from dataclasses import dataclass

from rules.voice.containers import ogg_seconds, webm_seconds

MAX_CLIP_BYTES = 12 * 1024 * 1024      # ~6 min of 16 kHz mono 16-bit WAV; far more of webm/opus
MAX_CLIP_SECONDS = 300.0               # one answer; a longer one is cut by the page into several clips
MIN_CLIP_BYTES = 44                    # a WAV header
KEY_CHARS = 32
UNTIMED_BITRATE = 64_000               # bit/s: a WebM/Ogg whose duration is unknown is bounded as if it were this
UNTIMED_MAX_BYTES = int(MAX_CLIP_SECONDS * UNTIMED_BITRATE / 8)   # 2.4 MB
CANONICAL = {"audio/wav": "audio/wav", "audio/x-wav": "audio/wav", "audio/wave": "audio/wav",
             "audio/webm": "audio/webm", "audio/ogg": "audio/ogg"}
EXTENSION = {"audio/wav": "wav", "audio/webm": "webm", "audio/ogg": "ogg"}


class ClipError(ValueError):
    """A clip that cannot be accepted (the message says why, for the person and the log)."""


@dataclass(frozen=True)
class Clip:
    key: str
    content_type: str
    size: int
    seconds: float | None      # from the WAV header or the WebM/Ogg container; None when the container does not say

    @property
    def name(self) -> str:
        return f"clip-{self.key}.{EXTENSION[self.content_type]}"

    @property
    def entry_id(self) -> str:
        return f"voice-{self.key}"


def clip_key(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:KEY_CHARS]


def canonical_type(content_type: str) -> str:
    base = content_type.split(";", 1)[0].strip().lower()
    if base not in CANONICAL:
        raise ClipError(f"send the recording as audio/wav or audio/webm (got {content_type[:60]!r})")
    return CANONICAL[base]


def sniffed_type(data: bytes) -> str | None:
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data[:4] == b"\x1a\x45\xdf\xa3":
        return "audio/webm"
    if data[:4] == b"OggS":
        return "audio/ogg"
    return None


def wav_seconds(data: bytes) -> float:
    """The duration a WAV header declares (ClipError when it is not a readable PCM WAV)."""
    try:
        with wave.open(io.BytesIO(data)) as w:
            rate, frames = w.getframerate(), w.getnframes()
    except (wave.Error, EOFError, RuntimeError, struct.error, ValueError, OverflowError) as exc:
        # RuntimeError: the wave module's answer to a chunk whose declared size runs past the data
        detail = str(exc) or "a chunk's declared size runs past the data"
        raise ClipError(f"the WAV recording is not readable: {detail}") from None
    if rate <= 0:
        raise ClipError("the WAV recording declares no sample rate")
    return frames / rate


def check_clip(data: bytes, content_type: str, max_bytes: int = MAX_CLIP_BYTES,
               max_seconds: float = MAX_CLIP_SECONDS) -> Clip:
    """The clip, or ClipError: unknown type, empty, too large, too long, or bytes that are not what the
    content type says."""
    kind = canonical_type(content_type)
    if len(data) < MIN_CLIP_BYTES:
        raise ClipError("the recording is empty")
    if len(data) > max_bytes:
        raise ClipError(f"the recording is {len(data):,} bytes; at most {max_bytes:,} (say it in shorter parts)")
    sniffed = sniffed_type(data)
    if sniffed != kind and not (sniffed in ("audio/webm", "audio/ogg") and kind in ("audio/webm", "audio/ogg")):
        raise ClipError(f"the body is not {kind} (its first bytes say {sniffed or 'something else'})")
    if kind == "audio/wav":
        seconds: float | None = wav_seconds(data)
    else:
        seconds = webm_seconds(data) if sniffed == "audio/webm" else ogg_seconds(data)
        untimed_max = int(max_seconds * UNTIMED_BITRATE / 8)
        if seconds is None and len(data) > untimed_max:
            raise ClipError(f"the recording does not say how long it lasts and is {len(data):,} bytes; without a "
                            f"duration at most {untimed_max:,} (about {max_seconds:.0f} s at "
                            f"{UNTIMED_BITRATE // 1000} kbit/s)")
    if seconds is not None and seconds > max_seconds:
        raise ClipError(f"the recording lasts {seconds:.0f} s; at most {max_seconds:.0f} s per clip")
    return Clip(key=clip_key(data), content_type=kind, size=len(data), seconds=seconds)
