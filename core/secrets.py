"""Secret values are redacted by VALUE, whatever their variable is called.

The values redacted: every variable registered as holding a secret (each provider's `api_key_env` of the LLM
config registers itself, whatever its name: `MYLLM_PASSWORD` too), the standard provider variables, and any
variable whose name says it holds one (KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL). `redact()` replaces
each such value in a text by `***`, in any letter case and in its common encodings (base64, URL-safe base64,
URL-encoded, hex: `encodings()`); `install_log_redaction()` applies it to every stdlib log record (the
worker's log, litellm's and the SDK's included); core/logging.py applies it to structlog events. Errors that
reach a workflow history go through `redact()` in the LLM gateway.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import threading
from collections.abc import Mapping, MutableMapping
from typing import Any

#: Variables the LLM providers read their keys from (litellm's own names), redacted even if no config names them.
STANDARD_SECRET_ENVS = (
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AZURE_API_KEY", "AZURE_OPENAI_API_KEY", "OPENROUTER_API_KEY",
    "OPENAI_COMPATIBLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY",
    "COHERE_API_KEY", "DEEPSEEK_API_KEY", "TOGETHERAI_API_KEY", "HUGGINGFACE_API_KEY", "HF_TOKEN",
    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "COLLOQUY_SERVE_TOKEN",
)
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
#: Shorter values are not redacted (they would blank ordinary words); no real key is this short.
MIN_SECRET_CHARS = 6
#: Anything shaped like a credential, whatever variable (if any) held it.
SECRET_SHAPES = re.compile(r"(sk-[A-Za-z0-9_\-]{8,}|Bearer\s+[A-Za-z0-9._\-]{8,})")

_registered: set[str] = set()
_lock = threading.Lock()


def register_secret_env(*names: str | None) -> None:
    """Mark environment variables as holding secrets: their values are redacted everywhere from now on."""
    with _lock:
        _registered.update(n for n in names if n)


def secret_env_names(env: Mapping[str, str] | None = None) -> set[str]:
    names: Mapping[str, str] = os.environ if env is None else env
    return {*_registered, *STANDARD_SECRET_ENVS} | {n for n in names if _SECRET_NAME.search(n)}


def secret_values(env: dict[str, str] | None = None) -> list[str]:
    """The values to redact, longest first (a key that contains another is replaced whole)."""
    env = dict(os.environ) if env is None else env
    values = {env[n] for n in secret_env_names(env) if len(env.get(n) or "") >= MIN_SECRET_CHARS}
    return sorted(values, key=len, reverse=True)


def redact(text: str) -> str:
    """`text` with every secret value — also in its common encodings (any letter case, base64 and URL-safe base64
    at any alignment, URL-encoded, hex) — and anything shaped like a credential, replaced by ***."""
    values = tuple(secret_values())
    if values:
        text = _pattern(values).sub("***", text)
    return SECRET_SHAPES.sub("***", text)


#: base64 fragments shorter than this are not redacted (a short run of base64 letters is an ordinary word).
MIN_ENCODED_CHARS = 8


def encodings(value: str) -> set[str]:
    """The forms a secret is commonly echoed in (matched case-insensitively, so upper/lower-case are covered)."""
    from urllib.parse import quote, quote_plus

    raw = value.encode("utf-8")
    forms = {value, quote(value, safe=""), quote_plus(value), raw.hex()}
    forms |= {f for f in _base64_cores(raw) if len(f) >= MIN_ENCODED_CHARS}
    return {f for f in forms if f}


def _base64_cores(raw: bytes) -> set[str]:
    """The base64 (standard and URL-safe) characters that depend on `raw` alone, at each of the three alignments
    it can have inside a longer encoded string (`Basic base64(user:secret)` included)."""
    import base64

    out: set[str] = set()
    n = len(raw)
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw + b"\0\0").decode("ascii")
        chars = [i for i in range(len(encoded)) if 6 * i // 8 >= shift and (6 * i + 5) // 8 <= shift + n - 1]
        if chars:
            core = encoded[chars[0]:chars[-1] + 1]
            out |= {core, core.replace("+", "-").replace("/", "_")}
    return out


@functools.lru_cache(maxsize=32)
def _pattern(values: tuple[str, ...]) -> re.Pattern[str]:
    forms = sorted({f for v in values for f in encodings(v)}, key=len, reverse=True)
    return re.compile("|".join(re.escape(f) for f in forms), re.IGNORECASE)


def redact_value(value: Any) -> Any:
    """Strings redacted; lists, tuples and dicts walked; anything else as it is."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_value(v) for v in value)
    return value


def redact_event(_: Any, __: str, event: MutableMapping[str, Any]) -> Mapping[str, Any]:
    """structlog processor: every string of the event redacted."""
    return {k: redact_value(v) if isinstance(v, (str, list, tuple, dict)) else v for k, v in event.items()}


_installed = False


def install_log_redaction() -> None:
    """Every stdlib log record's message (and its exception text) is redacted when the record is made."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a malformed format string: leave the record to logging's own error path
            return record
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            import traceback

            text = "".join(traceback.format_exception(*record.exc_info))
            if redact(text) != text:
                record.exc_text = redact(text).rstrip("\n")
                record.exc_info = None
        return record

    logging.setLogRecordFactory(factory)
