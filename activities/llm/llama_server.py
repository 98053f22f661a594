"""llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`, the `local` extra's `server` part)
serving the SmolLM2 GGUF on a free 127.0.0.1 port: the real HTTP model server the tests and the model-server
bench run Colloquy against (COLLOQUY_PROVIDER=openai_compatible, COLLOQUY_API_BASE=<base_url>).

    with LlamaServer() as server:          # started, ready (GET /v1/models answers), stopped on exit
        server.base_url                    # http://127.0.0.1:PORT/v1
        server.kill()                      # the fault case: a server killed mid-call
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from activities.llm.local import find_gguf


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServer:
    def __init__(self, *, threads: int = 1, n_ctx: int = 4096, gguf: Path | None = None,
                 ready_timeout_s: float = 120.0) -> None:
        self.threads, self.n_ctx, self.ready_timeout_s = threads, n_ctx, ready_timeout_s
        self.gguf = gguf or find_gguf()
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = Path(tempfile.mkstemp(prefix="llama-server-", suffix=".log")[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        self.port = free_port()
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.gguf), "--host", "127.0.0.1",
               "--port", str(self.port), "--n_threads", str(self.threads), "--n_ctx", str(self.n_ctx),
               "--model_alias", "default",
               # by default a new streamed request interrupts the one being generated (it ends without a
               # finish_reason): parallel agents must queue instead
               "--interrupt_requests", "False"]
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                         env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited ({self.proc.returncode}): {self.tail()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"llama.cpp server not ready within {self.ready_timeout_s:.0f} s: {self.tail()}")

    def tail(self, chars: int = 2000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def kill(self) -> None:
        """SIGKILL, as a crash would (the fault tests)."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        self.log.unlink(missing_ok=True)
