"""The one LLM call path. Every agent activity calls `complete()`; nothing else imports litellm.

- litellm.acompletion with num_retries=0: Temporal owns retries, so every attempt is visible in history.
- Provider errors are classified: permanent ones (auth, bad request, not found, unprocessable, context window)
  become non-retryable ApplicationErrors with a clear message; 429/5xx/timeouts are retryable, and a 429's
  retry-after is honoured through `next_retry_delay`.
- Structured output: response_format from the pydantic model, lenient parse, pydantic validation, one re-ask
  with the validation error inside the activity, then a retryable `InvalidLLMOutput`.
- A configured fallback provider is tried within the same attempt when the primary fails.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from datetime import timedelta
from functools import lru_cache
from typing import Any, TypeVar

import core.settings  # noqa: F401  (sets LITELLM_LOCAL_MODEL_COST_MAP before litellm is imported)

# isort: split
import litellm
import structlog
from opentelemetry import trace
from pydantic import BaseModel
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.llm import offline
from activities.llm.answers import (  # noqa: F401  (re-exported)
    FREE_OF_CHARGE,
    check_prose,
    extract_json,
    parse_output,
)
from activities.llm.config import (
    LOCAL_PROVIDER,
    OFFLINE_PROVIDER,
    ConfigError,
    LLMConfig,
    ModelResolution,
    current_config,
    resolve_model,
)
from activities.llm.schema import (
    DOWNGRADE,
    STRUCTURED_MODES,
    TEXT_BUDGET,
    cap_schema,
    enumerate_bounded_numbers,
    json_schema_of,
    require_some,
    schema_instruction,
    shared_json_schema,
    token_budget,
)
from activities.llm.slots import (
    attempt_deadline,
    attempt_number,
    provider_limit,
    provider_slot,
    task_queue_wait_ms,
    time_left,
)
from core import secrets
from core.logging import bounded, mark_logged, next_step
from models.common import LLMUsage
from rules.retry_classes import FINAL, http_status_class

log = structlog.get_logger("colloquy.llm")
tracer = trace.get_tracer("colloquy.llm")
T = TypeVar("T", bound=BaseModel)

# Error types (ApplicationError.type). Retry policies list the non-retryable ones too.
AUTH_ERROR = "LLMAuthError"
BAD_REQUEST = "LLMBadRequest"
NOT_FOUND = "LLMModelNotFound"
CONTEXT_WINDOW = "LLMContextWindowExceeded"
RATE_LIMITED = "LLMRateLimited"
UNAVAILABLE = "LLMUnavailable"
INVALID_OUTPUT = "InvalidLLMOutput"
CONFIG_ERROR = "ConfigError"
NON_RETRYABLE_LLM_ERRORS = (AUTH_ERROR, BAD_REQUEST, NOT_FOUND, CONTEXT_WINDOW, CONFIG_ERROR)

#: Bounds of schemas for small models (`providers.<name>.small_model`, on for `local`): a 135M model rambles.
SMALL_MODEL_MAX_STRING = 160
SMALL_MODEL_MAX_ITEMS = 4
#: Free text (an essay, a draft) from a small model stops here (~450 words): what such a model writes past it is
#: not kept by the essay's checks, and it bounds the finishing work's time (issue 41, `bench.local_models`).
SMALL_MODEL_TEXT_BUDGET = 640

litellm.suppress_debug_info = True
_registered = False


def _register_providers() -> None:
    """Register the built-in custom providers and $0 prices for local model names (once per process)."""
    global _registered
    if _registered:
        return
    from litellm.types.llms.custom_llm import CustomLLMItem

    handlers: list[CustomLLMItem] = [{"provider": OFFLINE_PROVIDER, "custom_handler": offline.OfflineLLM()}]
    from activities.llm import local  # light import; llama.cpp loads only on first use

    handlers.append({"provider": LOCAL_PROVIDER, "custom_handler": local.LocalLLM()})
    litellm.custom_provider_map = [
        h for h in (litellm.custom_provider_map or []) if h["provider"] not in (OFFLINE_PROVIDER, LOCAL_PROVIDER)
    ] + handlers
    from litellm.utils import custom_llm_setup

    custom_llm_setup()
    _registered = True


_registered_prices: dict[str, tuple[float, float]] = {}


def _price_provider(prov_prefix: str) -> str:
    return prov_prefix.rstrip("/").split("_")[0]


def register_local_prices(cfg: LLMConfig) -> None:
    """Prices litellm must know: every local model name at $0 (a local model must never borrow a public
    price) and every price written in the config (`providers.<name>.prices`). Registered once per value.

    A local provider's model name that litellm already prices (e.g. `openai/gpt-4o-mini` served by an
    OpenAI-compatible server) is NOT overwritten: that would zero the public model for every other provider.
    The gateway charges $0 for local providers itself (`_cost`)."""
    entries: dict[str, Any] = {}
    for provider, prov in cfg.providers.items():
        names: set[str] = set()
        if prov.local:
            names |= {table[provider] for table in cfg.tiers.values() if provider in table}
        for name in names:
            full = name if name.startswith(prov.prefix) else prov.prefix + name
            bare = full.split("/", 1)[-1]  # litellm.register_model also writes the name without its prefix
            known = full in litellm.model_cost or bare in litellm.model_cost
            if known and _registered_prices.get(full) is None:
                continue  # a public price: leave it alone
            if _registered_prices.get(full) == (0.0, 0.0):
                continue
            entries[full] = {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0,
                             "litellm_provider": _price_provider(prov.prefix), "mode": "chat",
                             "max_input_tokens": prov.context_window or 8192}
        for name, price in prov.prices.items():
            full = name if name.startswith(prov.prefix) else prov.prefix + name
            value = (price.input_per_mtok / 1e6, price.output_per_mtok / 1e6)
            if _registered_prices.get(full) == value:
                continue
            entries[full] = {"input_cost_per_token": value[0], "output_cost_per_token": value[1],
                             "litellm_provider": _price_provider(prov.prefix), "mode": "chat",
                             "max_input_tokens": prov.context_window or 8192}
    if entries:
        import logging

        logging.getLogger("LiteLLM").setLevel(logging.ERROR)
        litellm.register_model(entries)
        for full, entry in entries.items():
            _registered_prices[full] = (entry["input_cost_per_token"], entry["output_cost_per_token"])


# --------------------------------------------------------------------------------------- classification
def redact(text: str) -> str:
    """Remove anything that looks like a credential, and every secret VALUE (each provider's `api_key_env`
    whatever it is called, the standard provider variables: core/secrets.py), from a message."""
    return secrets.redact(text)


def _retry_after(exc: Exception) -> float | None:
    headers: Any = getattr(exc, "litellm_response_headers", None)
    response = getattr(exc, "response", None)
    if headers is None and response is not None:
        headers = getattr(response, "headers", None)
    if not headers:
        return None
    value = headers.get("retry-after") or headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def classify(exc: Exception, res: ModelResolution) -> ApplicationError:
    """Map a provider exception to a Temporal ApplicationError (retryable or not, with a clear message)."""
    where = f"{res.provider} model {res.model} (agent {res.agent})"
    detail = bounded(redact(str(exc)), 500)
    if isinstance(exc, litellm.ContextWindowExceededError):
        return ApplicationError(f"prompt too long for {where}: {detail}", type=CONTEXT_WINDOW, non_retryable=True)
    if isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError)):
        hint = f" — check {res.api_key_env} in the worker's environment" if res.api_key_env else ""
        return ApplicationError(f"authentication failed for {where}{hint}: {detail}", type=AUTH_ERROR,
                                non_retryable=True)
    if isinstance(exc, litellm.NotFoundError):
        return ApplicationError(f"model not found at {where}: {detail}", type=NOT_FOUND, non_retryable=True)
    if isinstance(exc, litellm.RateLimitError):
        delay = _retry_after(exc)
        return ApplicationError(f"rate limited by {where}: {detail}", type=RATE_LIMITED,
                                next_retry_delay=timedelta(seconds=delay) if delay is not None else None)
    if isinstance(exc, (litellm.Timeout, litellm.APIConnectionError, litellm.InternalServerError,
                        litellm.ServiceUnavailableError, litellm.BadGatewayError)):
        delay = _retry_after(exc)  # a 503 may say when to come back, too
        return ApplicationError(f"{where} unavailable ({exc.__class__.__name__}): {detail}", type=UNAVAILABLE,
                                next_retry_delay=timedelta(seconds=delay) if delay is not None else None)
    if isinstance(exc, (litellm.UnprocessableEntityError, litellm.BadRequestError)):
        return ApplicationError(f"request rejected by {where}: {detail}", type=BAD_REQUEST, non_retryable=True)
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and http_status_class(status) == FINAL:  # the table: rules/retry_classes.py
        return ApplicationError(f"request rejected by {where} ({status}): {detail}", type=BAD_REQUEST,
                                non_retryable=True)
    return ApplicationError(f"{where} failed ({exc.__class__.__name__}): {detail}", type=UNAVAILABLE)


# ----------------------------------------------------------------------------------------------- calls
#: (provider, model) → the structured-output mode a server accepted after rejecting the configured one.
_MODE_DOWNGRADES: dict[tuple[str, str], str] = {}
_MODE_REJECTION = re.compile(r"response_format|json_schema|json_object|tool_choice|\btools?\b|grammar|"
                             r"validation error|literal_error|extra_forbidden|not supported|unsupported", re.I)


def structured_mode(res: ModelResolution) -> str:
    """The mode this worker uses for `res`: configured, or the one it downgraded to for that model."""
    return _MODE_DOWNGRADES.get((res.provider, res.model), res.structured_output)


def reset_mode_downgrades() -> None:
    _MODE_DOWNGRADES.clear()


def _status(exc: Exception) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def rejects_mode(exc: Exception, mode: str) -> bool:
    """Did the server reject the request's structured-output part (not the model, the key, the prompt)?

    A 400/422 or a 500 whose body is a request-validation error (llama.cpp's server answers a `json_schema`
    response_format that way) that talks about the structured-output fields."""
    if mode == "prompt" or isinstance(exc, (litellm.ContextWindowExceededError, litellm.AuthenticationError,
                                            litellm.PermissionDeniedError, litellm.NotFoundError)):
        return False
    status = _status(exc)
    text = str(exc)
    if status in (400, 422) or isinstance(exc, (litellm.BadRequestError, litellm.UnprocessableEntityError)):
        return bool(_MODE_REJECTION.search(text))
    if status == 500 or isinstance(exc, litellm.InternalServerError):
        return "validation error" in text.lower() and bool(_MODE_REJECTION.search(text.replace(
            "validation error", "")))
    return False


IN_PROCESS_PROVIDERS = (OFFLINE_PROVIDER, LOCAL_PROVIDER)


def _mode_request(mode: str, output_model: type[BaseModel], res: ModelResolution,
                  messages: list[dict[str, Any]], call_schema: dict[str, Any] | None = None
                  ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(request fields, messages) asking for `output_model` in `mode`. `call_schema`: this call's narrower form
    of the output model's schema (e.g. the idea ids a moderator must score, one evaluation each), sent instead
    of the model's own; the answer is still validated against `output_model`."""
    # the shared schema is only read here: cap_schema and enumerate_bounded_numbers build new values, and the
    # request gets either one of those, the call's own schema, a copy (json_schema_of) or the pydantic model
    schema = call_schema or shared_json_schema(output_model)
    if res.small_model:
        schema = cap_schema(schema, SMALL_MODEL_MAX_STRING, SMALL_MODEL_MAX_ITEMS)
    schema = require_some(schema)  # after the caps: an optional free-form object left out stays out
    fields: dict[str, Any] = {}
    if mode == "json_schema":
        # the pydantic model: litellm sends each API its own strict form of it
        fields["response_format"] = output_model
        if res.small_model or call_schema is not None:
            fields["response_format"] = {"type": "json_schema", "json_schema": {
                "name": output_model.__name__, "schema": schema}}
        elif res.litellm_model.split("/", 1)[0] in IN_PROCESS_PROVIDERS:
            # the offline and local providers read the model's own schema (generated once per model): litellm
            # would otherwise build its strict form anew on every call, a fifth of a busy worker's CPU
            fields["response_format"] = {"type": "json_schema", "json_schema": {
                "name": output_model.__name__, "schema": json_schema_of(output_model)}}
    elif mode in ("json_object", "tools"):
        schema = enumerate_bounded_numbers(schema)  # decoded with a grammar where the server takes the schema
    if mode == "json_object":
        fields["response_format"] = {"type": "json_object", "schema": schema}
    elif mode == "tools":
        fields["tools"] = [{"type": "function", "function": {
            "name": output_model.__name__, "description": f"Return the {output_model.__name__}",
            "parameters": schema}}]
        fields["tool_choice"] = {"type": "function", "function": {"name": output_model.__name__}}
    if mode in ("json_object", "prompt") and not res.provider == "local":
        # the in-process model decodes with the schema as a grammar: the prompt stays small for its context
        messages = _with_schema(messages, schema_instruction(schema, output_model.__name__))
    return fields, messages


def _with_schema(messages: list[dict[str, Any]], instruction: str) -> list[dict[str, Any]]:
    out = [dict(m) for m in messages]
    if out and out[0].get("role") == "system":
        out[0]["content"] = f"{out[0]['content']}\n\n{instruction}"
    else:
        out.insert(0, {"role": "system", "content": instruction})
    return out


def _max_tokens(res: ModelResolution, output_model: type[BaseModel] | None, declared: int | None,
                call_schema: dict[str, Any] | None = None) -> int:
    """Every call is bounded: the config's override, else the agent's declared budget, else one sized to the
    output schema (bounded as the model will see it), else TEXT_BUDGET for free text; a small model's free text at
    most SMALL_MODEL_TEXT_BUDGET."""
    if res.max_tokens:
        return res.max_tokens
    if output_model is None:
        text_budget = declared or TEXT_BUDGET
        return min(text_budget, SMALL_MODEL_TEXT_BUDGET) if res.small_model else text_budget
    if declared:
        return declared
    if call_schema is None:
        return _schema_budget(output_model, res.small_model)
    return token_budget(cap_schema(call_schema, SMALL_MODEL_MAX_STRING, SMALL_MODEL_MAX_ITEMS)
                        if res.small_model else call_schema)


@lru_cache(maxsize=512)
def _schema_budget(output_model: type[BaseModel], small_model: bool) -> int:
    """The token budget of an output model's own schema: the same for every call (once per model and size)."""
    schema = shared_json_schema(output_model)
    return token_budget(cap_schema(schema, SMALL_MODEL_MAX_STRING, SMALL_MODEL_MAX_ITEMS) if small_model
                        else schema)


def _answer_text(response: Any, mode: str) -> str:
    message = response.choices[0].message
    if mode == "tools":
        calls = getattr(message, "tool_calls", None) or []
        if calls:
            return str(calls[0].function.arguments or "")
    return str(message.content or "")


def call_budget(res: ModelResolution, deadline: float | None, cfg: LLMConfig) -> float:
    """Seconds a call may take: the attempt's time left, at most the config's request timeout — except the
    in-process `local` model inside an attempt: it has no connection that could hang, and on a busy machine its
    essay needs the Writer's whole attempt (270 s), not the 120 s request timeout (issue 41)."""
    if res.provider == "local" and deadline is not None:
        return time_left(deadline, float("inf"))
    return time_left(deadline, cfg.request_timeout_s)


async def _acompletion(res: ModelResolution, messages: list[dict[str, Any]], fields: dict[str, Any],
                       cfg: LLMConfig, extra: dict[str, Any]) -> Any:
    kwargs: dict[str, Any] = {
        "model": res.litellm_model, "messages": messages, "num_retries": 0, "timeout": cfg.request_timeout_s,
        "metadata": {"agent": extra.get("caller") or res.agent,
                     "offline_context": extra.get("offline_context") or {},
                     FREE_OF_CHARGE: res.local},   # an in-process provider stamps its $0 (answers.free_of_charge)
        **fields,
    }
    if res.api_base:
        kwargs["api_base"] = res.api_base
    if res.api_version:
        kwargs["api_version"] = res.api_version
    if res.api_key_env:
        key = os.environ.get(res.api_key_env)
        if key:
            kwargs["api_key"] = key  # read in the worker, at call time; never part of any payload
        elif res.provider == "openai_compatible":
            kwargs["api_key"] = "not-needed"
    for name in ("temperature", "max_tokens"):
        if extra.get(name) is not None:
            kwargs[name] = extra[name]
    budget = call_budget(res, extra.get("deadline"), cfg)
    if budget <= 0:
        raise TimeoutError("no time left in this attempt for another call")
    # litellm keeps the constant request timeout (it keys cached HTTP clients on it: a per-call value would
    # build a new client, TLS context included, for every call); the attempt's budget is enforced here, which
    # also covers custom providers and hung connections that ignore litellm's timeout. Cancelling the call
    # (deadline, or the activity cancelled) closes its HTTP connection; streamed, the server sees the closed
    # connection at its next token and stops generating (llama.cpp's server finishes a non-streamed answer).
    try:
        if res.stream:
            return await asyncio.wait_for(_streamed(kwargs), timeout=budget)
        return await asyncio.wait_for(litellm.acompletion(**kwargs), timeout=budget)
    except TimeoutError as exc:
        raise TimeoutError(f"no answer within {budget:.3g} s") from exc


async def _streamed(kwargs: dict[str, Any]) -> Any:
    stream = await litellm.acompletion(**kwargs, stream=True, stream_options={"include_usage": True})
    chunks = []
    try:
        async for chunk in stream:
            chunks.append(chunk)
    finally:
        close = getattr(getattr(stream, "completion_stream", None), "close", None)
        if close is not None:  # the openai SDK stream: closes the HTTP response (and its connection if unread)
            try:
                await close()
            except Exception:
                pass
    if not chunks:
        raise litellm.APIConnectionError(message="the server closed the stream without an answer",
                                         llm_provider="openai", model=str(kwargs.get("model")))
    return litellm.stream_chunk_builder(chunks, messages=kwargs["messages"])


def _cost(response: Any, res: ModelResolution) -> float:
    if res.local:
        return 0.0
    cost = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
    if cost is None:
        try:
            cost = litellm.completion_cost(completion_response=response, model=res.litellm_model)
        except Exception:
            log.warning("llm.price_unknown", model=res.litellm_model)
            cost = 0.0
    return float(cost or 0.0)


def _mode_setting(res: ModelResolution) -> str:
    return (f"llm.providers.{res.provider}.structured_output (or structured_output_models.{res.model}, "
            f"or COLLOQUY_STRUCTURED_OUTPUT)")


async def _complete_with(res: ModelResolution, messages: list[dict[str, Any]], output_model: type[T] | None,
                         cfg: LLMConfig, extra: dict[str, Any]) -> tuple[T | str, LLMUsage]:
    started = time.perf_counter()
    mode = structured_mode(res) if output_model is not None else "text"
    usage = LLMUsage(agent=extra.get("caller") or res.agent, model=res.model, provider=res.provider,
                     offline=res.offline, attempt=attempt_number(), context_window=cfg.providers[res.provider].context_window)
    call_schema = extra.get("schema")
    extra = {**extra, "max_tokens": _max_tokens(res, output_model, extra.get("max_tokens"), call_schema)}
    fields, convo = (_mode_request(mode, output_model, res, messages, call_schema) if output_model is not None
                     else ({}, messages))
    reask = 0
    while True:
        try:
            response = await _acompletion(res, convo, fields, cfg, extra)
        except ApplicationError:
            raise
        except TimeoutError as exc:
            raise ApplicationError(f"{res.provider} model {res.model} (agent {res.agent}) unavailable (timeout): "
                                   f"{exc}", type=UNAVAILABLE) from None
        except Exception as exc:
            if output_model is None or not rejects_mode(exc, mode):
                raise classify(exc, res) from None
            detail = bounded(redact(str(exc)), 300)
            if not res.downgrade_structured_output or mode not in DOWNGRADE:
                raise ApplicationError(
                    f"{res.provider} model {res.model} rejected structured-output mode {mode} "
                    f"({exc.__class__.__name__}: {detail}); set {_mode_setting(res)} to a mode it takes "
                    f"({', '.join(m for m in STRUCTURED_MODES if m != mode)})", type=BAD_REQUEST,
                    non_retryable=True) from None
            new_mode = DOWNGRADE[mode]
            log.warning("llm.structured_output_downgraded", provider=res.provider, model=res.model,
                        rejected=mode, now=new_mode, setting=_mode_setting(res), error=detail)
            _MODE_DOWNGRADES[(res.provider, res.model)] = new_mode  # remembered for this model in this worker
            mode = new_mode
            fields, convo = _mode_request(mode, output_model, res, messages, call_schema)
            continue
        text = _answer_text(response, mode)
        u = getattr(response, "usage", None)
        usage.input_tokens += int(getattr(u, "prompt_tokens", 0) or 0)
        usage.output_tokens += int(getattr(u, "completion_tokens", 0) or 0)
        usage.cost_usd += _cost(response, res)
        try:
            parsed: Any = parse_output(text, output_model) if output_model is not None else check_prose(text)
        except ValueError as exc:
            finish = getattr(response.choices[0], "finish_reason", None)
            cut = f" (cut off at max_tokens={extra['max_tokens']})" if finish == "length" else ""
            if reask == 1:
                raise ApplicationError(
                    f"{res.agent}: {res.provider} model {res.model} returned invalid output twice "
                    f"(structured output {mode}){cut}: {exc}",
                    type=INVALID_OUTPUT,
                ) from None
            reask += 1
            usage.reasks += 1
            log.info("llm.reask", agent=res.agent, error=bounded(str(exc), 300), finish_reason=finish)
            again = (f"only a JSON object that matches the schema of {output_model.__name__}" if output_model
                     is not None else "the text itself (prose, not JSON)")
            convo = convo + [
                {"role": "assistant", "content": text[:4000]},
                {"role": "user", "content": f"Your previous answer was not valid: {exc}. Answer again with {again}."},
            ]
            continue
        usage.latency_ms = round((time.perf_counter() - started) * 1000, 2)
        return parsed, usage


async def _limited(res: ModelResolution, messages: list[dict[str, Any]], output_model: type[T] | None,
                   cfg: LLMConfig, extra: dict[str, Any]) -> tuple[T | str, LLMUsage]:
    """One model's call within its provider's concurrency (slots.py); the usage says how long it queued."""
    async with provider_slot(res.provider, provider_limit(cfg, res.provider)) as waited_ms:
        out, usage = await _complete_with(res, messages, output_model, cfg, extra)
    usage.queued_ms = round(task_queue_wait_ms() + waited_ms, 2)
    return out, usage


async def complete(agent: str, messages: list[dict[str, Any]], output_model: type[T] | None = None, *,
                   offline_context: dict[str, Any] | None = None, temperature: float | None = None,
                   max_tokens: int | None = None, config: LLMConfig | None = None,
                   model_of: str | None = None, schema: dict[str, Any] | None = None) -> tuple[T | str, LLMUsage]:
    """Call the model configured for `agent`. Returns (validated output or text, usage).

    `model_of`: use the model another agent resolves to (the model check does this), while the call is
    still labelled, logged and answered offline as `agent`. `schema`: this call's narrower JSON schema of
    `output_model` (sent to the model and sizing the budget; the answer is validated against `output_model`)."""
    _register_providers()
    target = model_of or agent
    try:
        cfg = config or current_config()
        register_local_prices(cfg)
        primary = resolve_model(target, cfg)
        fallback = resolve_model(target, cfg, use_fallback=True)
    except ConfigError as exc:
        raise ApplicationError(f"{agent}: configuration error: {exc}", type=CONFIG_ERROR, non_retryable=True) from None
    assert primary is not None
    extra = {"offline_context": offline_context, "temperature": temperature, "max_tokens": max_tokens,
             "caller": agent, "deadline": attempt_deadline(), "schema": schema}
    with structlog.contextvars.bound_contextvars(agent=agent), \
            tracer.start_as_current_span(f"llm {agent}") as span:
        span.set_attribute("colloquy.agent", agent)
        span.set_attribute("gen_ai.request.model", primary.litellm_model)
        try:
            out, usage = await _limited(primary, messages, output_model, cfg, extra)
        except ApplicationError as primary_err:
            if fallback is None or fallback.provider == primary.provider or primary_err.type == CONTEXT_WINDOW:
                span.set_attribute("colloquy.error", primary_err.type or "")
                log.warning("llm.failed", model=primary.litellm_model, error=bounded(str(primary_err), 600),
                            error_type=primary_err.type, retryable=not primary_err.non_retryable,
                            next=_next_step(primary_err))
                mark_logged(primary_err)
                raise
            log.warning("llm.fallback", primary=primary.litellm_model, to=fallback.litellm_model,
                        error=bounded(str(primary_err), 600))
            try:
                out, usage = await _limited(fallback, messages, output_model, cfg, extra)
            except ApplicationError as fallback_err:
                span.set_attribute("colloquy.error", fallback_err.type or "")
                raise _combined_failure(primary_err, fallback_err) from None
            usage.fallback_used = True
        span.set_attribute("llm.model", usage.model)
        span.set_attribute("llm.provider", usage.provider)
        span.set_attribute("llm.input_tokens", usage.input_tokens)
        span.set_attribute("llm.output_tokens", usage.output_tokens)
        span.set_attribute("llm.cost_usd", usage.cost_usd)
        span.set_attribute("llm.latency_ms", usage.latency_ms)
        span.set_attribute("llm.reasks", usage.reasks)
        span.set_attribute("llm.fallback_used", usage.fallback_used)
        span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
        log.info("llm.call", model=usage.model, provider=usage.provider, tokens_in=usage.input_tokens,
                 tokens_out=usage.output_tokens, cost_usd=usage.cost_usd, latency_ms=usage.latency_ms,
                 queued_ms=usage.queued_ms,
                 reasks=usage.reasks, fallback=usage.fallback_used, offline=usage.offline)
        return out, usage


def _next_step(err: ApplicationError) -> str:
    try:
        info = activity.info()
    except RuntimeError:
        return "not in an activity"
    return next_step(err, info)


def _combined_failure(primary: ApplicationError, fallback: ApplicationError) -> ApplicationError:
    """Both providers failed. Retry (with the retryable side's type, so the retry policy's non-retryable list
    does not stop it) when either failure is transient; give up only when both are permanent."""
    retryable = [e for e in (primary, fallback) if not e.non_retryable]
    chosen = retryable[0] if retryable else fallback
    return ApplicationError(
        f"primary and fallback failed — primary: {primary.message}; fallback: {fallback.message}",
        type=chosen.type, non_retryable=not retryable, next_retry_delay=chosen.next_retry_delay,
    )
