"""Which activity failures are retried: the one classification table (docs/operations.md "Which errors are retried").

An activity failure is TRANSIENT (the store, the network, a server or a model is unavailable for a while: Temporal
retries it under the activity's policy, rules/policies.py) or FINAL (the input, the configuration or the object is
wrong: retrying gives the same answer, so it is never retried). Activities raise an `ApplicationError` whose
`type` is a row of ERROR_TYPES, with `non_retryable=True` exactly for the FINAL rows; the retry policies list the
FINAL rows in `non_retryable_error_types` (FINAL_TYPES), so a type alone decides, even one raised without the flag.
An exception that is no ApplicationError is retried by Temporal (its type is its class name) unless its class name
is a FINAL row (pydantic's `ValidationError`).

Before a source's error becomes a type, it is classified by what it says:
  - an HTTP status (object storage, model providers): `http_status_class` — 408, 409, 425, 429 and 5xx are
    TRANSIENT (timeout, conflict, throttling, outage); another 4xx is FINAL (bad request, refused credentials);
  - an errno (the local artifact folder, the notes repository): `errno_class` — I/O, timeouts, a stale or
    unreachable network mount, EAGAIN are TRANSIENT; permissions, a read-only or full volume, a path that is not a
    directory are FINAL (a person must act; a retry within the policy's minutes would not help);
  - a missing object is FINAL (`ArtifactNotFound`; the notes repository answers "none" instead).

Type names that recorded histories hold keep their meaning: `ArtifactError` and `StorageError` stay FINAL; the
transient failures of the same stores have their own types, `ArtifactUnavailable` and `StorageUnavailable`.
"""

from __future__ import annotations

import errno
from typing import Literal

ErrorClass = Literal["transient", "final"]
TRANSIENT: ErrorClass = "transient"
FINAL: ErrorClass = "final"

#: ApplicationError.type → class, for every type an activity raises (a test checks every raise site of activities/).
ERROR_TYPES: dict[str, ErrorClass] = {
    # artifact store (activities/artifact_store.py; local folder or S3-compatible object storage)
    "ArtifactUnavailable": TRANSIENT,   # outage, 5xx, throttling (503 SlowDown, 429), timeout, connection, I/O
    "ArtifactError": FINAL,             # invalid name or path, too large, refused credentials, sha256 mismatch, config
    "ArtifactNotFound": FINAL,          # the object is not there
    # notes repository (activities/query/notes_repository.py) and the writing history DB
    "StorageUnavailable": TRANSIENT,    # I/O error, timeout, stale network mount
    "StorageRetry": TRANSIENT,          # the history DB: a lock, an unreachable server
    "StorageError": FINAL,              # permissions, disk full, read-only, corrupt layout
    # model providers (activities/llm/gateway.py `classify`)
    "LLMRateLimited": TRANSIENT,        # 429 (its retry-after is honoured)
    "LLMUnavailable": TRANSIENT,        # timeout, connection, 5xx
    "InvalidLLMOutput": TRANSIENT,      # the answer did not parse twice: another attempt samples again
    "LLMAuthError": FINAL,
    "LLMBadRequest": FINAL,
    "LLMModelNotFound": FINAL,
    "LLMContextWindowExceeded": FINAL,
    # speech (activities/voice): a backend's failure on a clip is the clip's, its config the operator's
    "SpeechError": FINAL,
    "SpeechConfigError": FINAL,
    # anywhere
    "ValidationError": FINAL,           # invalid input (also pydantic's ValidationError, by its class name)
    "ConfigError": FINAL,
}

#: What every retry policy lists as `non_retryable_error_types`.
FINAL_TYPES: tuple[str, ...] = tuple(sorted(t for t, c in ERROR_TYPES.items() if c == FINAL))
TRANSIENT_TYPES: tuple[str, ...] = tuple(sorted(t for t, c in ERROR_TYPES.items() if c == TRANSIENT))

#: Which types the activities of each policy kind (rules/policies.py) raise, for docs/operations.md and its test.
KIND_ERRORS: dict[str, tuple[str, ...]] = {
    **{kind: ("LLMRateLimited", "LLMUnavailable", "InvalidLLMOutput", "LLMAuthError", "LLMBadRequest",
              "LLMModelNotFound", "LLMContextWindowExceeded", "ConfigError", "ValidationError",
              "ArtifactUnavailable", "ArtifactError", "ArtifactNotFound")
       for kind in ("live_agent", "fast_agent", "agent", "long_agent")},
    "storage": ("StorageUnavailable", "StorageRetry", "StorageError", "ValidationError", "ConfigError",
                "ArtifactUnavailable", "ArtifactError", "ArtifactNotFound"),
    "artifact": ("ArtifactUnavailable", "ArtifactError", "ArtifactNotFound", "ValidationError"),
}

#: A model provider's exception (litellm's classes, by name; activities/llm/gateway.py `classify`) → class. An
#: exception not named here is classified by its HTTP status (`http_status_class`), else TRANSIENT.
LLM_EXCEPTIONS: dict[str, ErrorClass] = {
    "RateLimitError": TRANSIENT, "Timeout": TRANSIENT, "APIConnectionError": TRANSIENT,
    "InternalServerError": TRANSIENT, "ServiceUnavailableError": TRANSIENT, "BadGatewayError": TRANSIENT,
    "AuthenticationError": FINAL, "PermissionDeniedError": FINAL, "NotFoundError": FINAL,
    "ContextWindowExceededError": FINAL, "BadRequestError": FINAL, "UnprocessableEntityError": FINAL,
}

_TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
_TRANSIENT_ERRNO = frozenset(getattr(errno, name) for name in (
    "EIO", "EAGAIN", "EWOULDBLOCK", "EINTR", "EBUSY", "ETIMEDOUT", "ESTALE", "ENOLCK", "ECONNREFUSED",
    "ECONNRESET", "ECONNABORTED", "EHOSTUNREACH", "EHOSTDOWN", "ENETUNREACH", "ENETDOWN", "ENETRESET", "EPIPE",
    "ENOTCONN", "EREMOTEIO", "ENOMEM", "ENFILE", "EMFILE", "ETXTBSY") if hasattr(errno, name))


def class_of(error_type: str | None, non_retryable: bool = False) -> ErrorClass:
    """What Temporal does with a failure of this type and flag under Colloquy's retry policies: FINAL when the flag
    says so or the type is a FINAL row; TRANSIENT otherwise (an unknown type is a plain exception: retried)."""
    if non_retryable or ERROR_TYPES.get(error_type or "") == FINAL:
        return FINAL
    return TRANSIENT


def http_status_class(status: int) -> ErrorClass:
    """An HTTP status of a store or provider: throttling, timeouts, conflicts and server errors pass; other 4xx
    do not. (2xx/3xx never reach here; an unexpected one is taken as a server's fault.)"""
    if status in _TRANSIENT_STATUS or status >= 500 or status < 400:
        return TRANSIENT
    return FINAL


def errno_class(code: int | None) -> ErrorClass:
    """An OSError's errno: a passing I/O or network failure is TRANSIENT; anything a person must fix is FINAL.
    None (an OSError without errno, e.g. a socket timeout) is TRANSIENT."""
    if code is None or code in _TRANSIENT_ERRNO:
        return TRANSIENT
    return FINAL

