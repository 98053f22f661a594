"""The `offline` profile: a deterministic LLM provider registered inside litellm — a TEST DOUBLE.

It exists so tests, CI and keyless demos still go through litellm and the whole gateway. It answers with
schema-valid output derived from the request (pipelines register small deterministic responders, e.g. "ask the
next unasked question of the plan"), and every answer is labelled as produced offline. It is not a model.

Tests script exact responses per agent, and inject faults:

    from activities.llm import offline
    offline.script("interview_orchestrator", {"next_question": "..."}, offline.Fault(kind="rate_limit", retry_after_s=2))
    offline.script("interview_note_taker", offline.Fault(kind="invalid_json"))

Scripted items are consumed first-in first-out; when an agent's script is empty its responder (or the generic
schema filler) answers. Another process (a worker started by `colloquy worker`) reads a script from the JSON
file named by COLLOQUY_OFFLINE_SCRIPT: {"agent": [response-or-{"fault": kind, ...}, ...]}.
COLLOQUY_OFFLINE_LATENCY_MS simulates a fixed-latency model (benchmarks); COLLOQUY_OFFLINE_LATENCY_AGENTS (comma-
separated agent names) limits it to those agents, as `set_latency(s, agent)` does in-process.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
import litellm
from litellm import CustomLLM
from pydantic import BaseModel

from activities.llm.answers import free_of_charge
from activities.llm.schema import json_schema_of

PROVIDER = "colloquy-offline"
MAX_LOGGED_CALLS = 5000
OFFLINE_LABEL = "[offline test double]"

FaultKind = Literal[
    "rate_limit", "server_error", "timeout", "connection", "auth", "bad_request", "not_found",
    "unprocessable", "context_window", "invalid_json", "wrong_schema", "hang",
]


class Fault(BaseModel):
    """An injected failure. `invalid_json` / `wrong_schema` return garbage instead of raising."""

    kind: FaultKind
    retry_after_s: float | None = None
    message: str | None = None


@dataclass
class OfflineRequest:
    agent: str
    model: str
    messages: list[dict[str, Any]]
    schema: dict[str, Any] | None
    context: dict[str, Any]

    @property
    def prompt(self) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.messages)

    @property
    def last_user(self) -> str:
        for m in reversed(self.messages):
            if m.get("role") == "user":
                return str(m.get("content", ""))
        return ""


@dataclass
class OfflineCall:
    agent: str
    model: str
    messages: list[dict[str, Any]]
    context: dict[str, Any]
    response: str | None = None
    fault: str | None = None
    scripted: bool = False


Responder = Callable[[OfflineRequest], Any]
ScriptItem = Any  # str | dict | BaseModel | Fault | Responder


@dataclass
class _State:
    scripts: dict[str, deque[ScriptItem]] = field(default_factory=dict)
    responders: dict[str, Responder] = field(default_factory=dict)
    # the newest calls only: a long-running offline worker (`make up`) must not grow without bound
    calls: deque[OfflineCall] = field(default_factory=lambda: deque(maxlen=MAX_LOGGED_CALLS))
    latency_s: dict[str, float] = field(default_factory=dict)
    # a model that works on one call at a time (llama.cpp's server, the in-process model): calls queue for it
    serial: dict[asyncio.AbstractEventLoop, asyncio.Lock] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    env_script_loaded: bool = False


_state = _State()


# ---------------------------------------------------------------------------------------------- test API
def script(agent: str, *items: ScriptItem) -> None:
    """Queue exact responses (or faults, or callables) for an agent."""
    with _state.lock:
        _state.scripts.setdefault(agent, deque()).extend(items)


def set_latency(seconds: float, agent: str = "*") -> None:
    _state.latency_s[agent] = seconds


def set_serial(serial: bool = True) -> None:
    """Model one call at a time, as a llama.cpp server or the in-process model does: a call waits for the one
    before it to finish (its latency included). Off by default (a hosted API serves calls in parallel)."""
    _state.serial = {} if serial else None


def calls(agent: str | None = None) -> list[OfflineCall]:
    return [c for c in _state.calls if agent is None or c.agent == agent]


def pending(agent: str) -> int:
    return len(_state.scripts.get(agent, ()))


def reset() -> None:
    """Forget scripts, latency and the call log (responders registered by pipelines stay)."""
    with _state.lock:
        _state.scripts.clear()
        _state.calls.clear()
        _state.latency_s.clear()
        _state.serial = None


def register_responder(agent: str, responder: Responder) -> None:
    """A pipeline's deterministic default for one agent (used when nothing is scripted)."""
    _state.responders[agent] = responder


# -------------------------------------------------------------------------------------- schema filling
def _snippet(text: str, limit: int = 80) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text[:limit] if text else "offline"


def fill_schema(schema: dict[str, Any], seed: str = "", defs: dict[str, Any] | None = None,
                name: str = "") -> Any:
    """A deterministic instance of a JSON schema (pydantic's flavour), strings derived from `seed`."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return fill_schema(defs[schema["$ref"].split("/")[-1]], seed, defs, name)
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return fill_schema(options[0], seed, defs, name)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: fill_schema(v, seed, defs, k) for k, v in props.items()}
    if kind == "array":
        count = max(1, schema.get("minItems", 1))
        if schema.get("maxItems") is not None:
            count = min(count, int(schema["maxItems"]))
        return [fill_schema(schema.get("items", {"type": "string"}), seed, defs, name) for _ in range(count)]
    if kind == "integer":
        lo = schema.get("minimum", schema.get("exclusiveMinimum", 0) + (1 if "exclusiveMinimum" in schema else 0))
        return max(int(lo), 1) if schema.get("maximum", 10) >= 1 else int(lo)
    if kind == "number":
        lo = float(schema.get("minimum", 0.0))
        hi = float(schema.get("maximum", 1.0))
        return round((lo + hi) / 2, 3) if hi >= lo else lo
    if kind == "boolean":
        return False
    formats = {"date": "2026-01-01", "date-time": "2026-01-01T09:00:00Z", "time": "09:00:00"}
    if schema.get("format") in formats:
        return formats[schema["format"]]
    text = f"{name.replace('_', ' ')}: {_snippet(seed)}" if name else _snippet(seed)
    minimum = int(schema.get("minLength", 0))
    if len(text) < minimum:
        text = (text + " ") * (minimum // max(1, len(text) + 1) + 1)
    limit = schema.get("maxLength")
    return text[:limit] if limit else text


# ------------------------------------------------------------------------------------------- provider
def _schema_of(optional_params: dict[str, Any]) -> dict[str, Any] | None:
    fmt = optional_params.get("response_format")
    if fmt is None:
        return None
    if isinstance(fmt, type) and issubclass(fmt, BaseModel):
        return json_schema_of(fmt)
    if isinstance(fmt, dict):
        if fmt.get("type") == "json_schema":
            return (fmt.get("json_schema") or {}).get("schema") or {}
        if fmt.get("type") == "json_object":  # with a schema where the server takes one (llama.cpp's grammar)
            return fmt.get("schema") or {"type": "object", "properties": {}}
    return None


def _raise_fault(fault: Fault, model: str) -> None:
    msg = fault.message or f"offline fault injected: {fault.kind}"
    req = httpx.Request("POST", "http://offline.invalid/v1/chat/completions")
    headers = {"retry-after": str(fault.retry_after_s)} if fault.retry_after_s is not None else {}
    kw: dict[str, Any] = {"llm_provider": PROVIDER, "model": model}
    if fault.kind == "rate_limit":
        raise litellm.RateLimitError(message=msg, response=httpx.Response(429, headers=headers, request=req), **kw)
    if fault.kind == "server_error":
        raise litellm.InternalServerError(message=msg, response=httpx.Response(500, headers=headers, request=req),
                                          **kw)
    if fault.kind in ("timeout", "hang"):
        raise litellm.Timeout(message=msg, **kw)
    if fault.kind == "connection":
        raise litellm.APIConnectionError(message=msg, **kw)
    if fault.kind == "auth":
        raise litellm.AuthenticationError(message=msg, **kw)
    if fault.kind == "bad_request":
        raise litellm.BadRequestError(message=msg, **kw)
    if fault.kind == "not_found":
        raise litellm.NotFoundError(message=msg, **kw)
    if fault.kind == "unprocessable":
        raise litellm.UnprocessableEntityError(message=msg, response=httpx.Response(422, request=req), **kw)
    if fault.kind == "context_window":
        raise litellm.ContextWindowExceededError(message=msg, **kw)
    raise AssertionError(f"unhandled fault {fault.kind}")


def _load_env_script() -> None:
    if _state.env_script_loaded:
        return
    _state.env_script_loaded = True
    path = os.environ.get("COLLOQUY_OFFLINE_SCRIPT")
    if not path:
        return
    data = json.loads(open(path, encoding="utf-8").read())
    for agent, items in data.items():
        script(agent, *[_from_json(item) for item in items])


def _from_json(item: Any) -> ScriptItem:
    if isinstance(item, dict) and "fault" in item:
        fields = dict(item)
        return Fault(kind=fields.pop("fault"), **fields)
    return item


def _next_item(agent: str) -> tuple[ScriptItem | None, bool]:
    with _state.lock:
        queue = _state.scripts.get(agent)
        if queue:
            return queue.popleft(), True
    return None, False


def _render(item: Any) -> str:
    if isinstance(item, BaseModel):
        return item.model_dump_json()
    if isinstance(item, (dict, list)):
        return json.dumps(item)
    return str(item)


def _label(content: str, structured: bool) -> str:
    if structured:
        try:
            data = json.loads(content)
        except ValueError:
            return content
        if isinstance(data, dict):
            data.setdefault("_offline", OFFLINE_LABEL)
            return json.dumps(data)
        return content
    return label_text(content)


_MARKDOWN_BLOCK = re.compile(r"^\s*(#{1,6}\s|>|[-*+]\s|\d+[.)]\s|\||```|~~~|---)")


def label_text(content: str) -> str:
    """The offline label on a text answer without breaking its markdown: on its own line (a blank line after it)
    when the text opens with a block (`# Title`, a list, a quote, a table, a fence), else in front of the text."""
    if content.startswith(OFFLINE_LABEL):
        return content
    if _MARKDOWN_BLOCK.match(content):
        return f"{OFFLINE_LABEL}\n\n{content}"
    return f"{OFFLINE_LABEL} {content}"


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class OfflineLLM(CustomLLM):
    """litellm custom provider `colloquy-offline/<anything>`."""

    async def acompletion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose,  # type: ignore[override]
                          encoding, api_key, logging_obj, optional_params, acompletion=None, litellm_params=None,
                          logger_fn=None, headers={}, timeout=None, client=None):  # noqa: B006
        _load_env_script()
        metadata = (litellm_params or {}).get("metadata") or {}
        agent = str(metadata.get("agent", "unknown"))
        request = OfflineRequest(agent=agent, model=model, messages=list(messages),
                                 schema=_schema_of(optional_params), context=dict(metadata.get("offline_context") or {}))
        call = OfflineCall(agent=agent, model=model, messages=request.messages, context=request.context)
        _state.calls.append(call)
        delay = _state.latency_s.get(agent, _state.latency_s.get("*"))
        if delay is None and agent in (os.environ.get("COLLOQUY_OFFLINE_LATENCY_AGENTS") or agent).split(","):
            delay = float(os.environ.get("COLLOQUY_OFFLINE_LATENCY_MS", "0")) / 1000
        if _state.serial is not None:
            loop = asyncio.get_running_loop()
            async with _state.serial.setdefault(loop, asyncio.Lock()):
                await asyncio.sleep(delay or 0)
        elif delay:
            await asyncio.sleep(delay)

        item, scripted = _next_item(agent)
        call.scripted = scripted
        if callable(item) and not isinstance(item, (BaseModel, dict)):
            item = item(request)
        if isinstance(item, Fault):
            call.fault = item.kind
            if item.kind == "hang":
                await asyncio.sleep(3600)
            if item.kind == "invalid_json":
                content = "Sure! Here is the JSON you asked for: {not valid json"
            elif item.kind == "wrong_schema":
                content = json.dumps({"unexpected": "shape", "_offline": OFFLINE_LABEL})
            else:
                _raise_fault(item, model)
        elif item is not None:
            content = _label(_render(item), request.schema is not None)
        else:
            # a pipeline responder reads its pipeline's context; `models --check` has none: the schema filler
            responder = None if request.context.get("model_check") else _state.responders.get(agent)
            produced = responder(request) if responder else None
            if produced is None:
                produced = (fill_schema(request.schema, request.last_user) if request.schema is not None
                            else f"Offline answer for {agent}: {_snippet(request.last_user, 200)}")
            content = _label(_render(produced), request.schema is not None)
        call.response = content
        model_response.choices[0].message.content = content
        model_response.model = f"{PROVIDER}/{model}"
        model_response.usage = litellm.Usage(prompt_tokens=_tokens(request.prompt), completion_tokens=_tokens(content),
                                             total_tokens=_tokens(request.prompt) + _tokens(content))
        return free_of_charge(model_response, litellm_params)

    def completion(self, *args, **kwargs):  # type: ignore[override]
        raise NotImplementedError("the gateway only uses acompletion")
