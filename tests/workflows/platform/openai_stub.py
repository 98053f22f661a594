"""A tiny OpenAI-compatible chat-completions server for tests (http.server in a thread, 127.0.0.1 only).

It records every request (path, headers, JSON body) and answers from a queue of canned replies:
`StubReply(status=200, body={...}, headers={...})`. With an empty queue it answers 500. A request with
`"stream": true` gets a 200 reply as server-sent events (OpenAI's chunk format, usage in the last chunk), as
the real servers do.
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


def stream_chunks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A chat.completion body as the chat.completion.chunk events a streaming server sends."""
    base = {"id": body.get("id", "chatcmpl-stub"), "object": "chat.completion.chunk",
            "created": body.get("created", int(time.time())), "model": body.get("model", "stub")}
    choice = (body.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    content = message.get("content") or ""
    chunks: list[dict[str, Any]] = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                                           "finish_reason": None}]}]
    for start in range(0, len(content), 16):
        chunks.append({**base, "choices": [{"index": 0, "delta": {"content": content[start:start + 16]},
                                            "finish_reason": None}]})
    for i, call in enumerate(message.get("tool_calls") or []):
        chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [{**call, "index": i}]},
                                            "finish_reason": None}]})
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice.get("finish_reason", "stop")}]})
    if body.get("usage"):
        chunks.append({**base, "choices": [], "usage": body["usage"]})
    return chunks


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
                body = stub.requests[-1].body
                if reply.status == 200 and body.get("stream"):
                    self._stream(reply)
                    return
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: StubReply) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                for chunk in stream_chunks(reply.body):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

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
