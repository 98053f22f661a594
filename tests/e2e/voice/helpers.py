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

from client.room import room_extension
from client.voice_room import voice_extension
from client.webapp import build_app

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
