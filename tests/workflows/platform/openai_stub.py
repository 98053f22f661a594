"""A tiny OpenAI-compatible chat-completions server for tests (http.server in a thread, 127.0.0.1 only).

It records every request (path, headers, JSON body) and answers from a queue of canned replies:
`StubReply(status=200, body={...}, headers={...})`. With an empty queue it answers 500.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class StubReply:
    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class StubRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def chat_reply(content: str, prompt_tokens: int = 42, completion_tokens: int = 7, model: str = "stub") -> StubReply:
    return StubReply(body={
        "id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def error_reply(status: int, message: str, headers: dict[str, str] | None = None) -> StubReply:
    return StubReply(status=status, headers=headers or {},
                     body={"error": {"message": message, "type": "stub_error", "code": status}})


class OpenAIStub:
    def __init__(self) -> None:
        self.requests: list[StubRequest] = []
        self.replies: list[StubReply] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                with stub._lock:
                    stub.requests.append(StubRequest(self.path, {k.lower(): v for k, v in self.headers.items()},
                                                     json.loads(raw or b"{}")))
                    reply = stub.replies.pop(0) if stub.replies else error_reply(500, "stub: no reply queued")
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, name="openai-stub", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"  # bound to 127.0.0.1 above

    def queue(self, *replies: StubReply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def __enter__(self) -> OpenAIStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
