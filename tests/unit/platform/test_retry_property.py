"""Property: whatever a store or a provider throws, the activity's failure is retried by Temporal exactly when the
classification table (rules/retry_classes.py) calls it transient.

Errors are drawn from every source an activity talks to: obstore's exception classes (S3-compatible object
storage, with any HTTP status and S3 error code, refused connections, timeouts), OSError variants of the local
artifact folder and of the notes repository, the writing history DB's, litellm's exception classes (model providers, any status), pydantic's
ValidationError and the project's own (StorageError, SpeechError). Each goes through the code that turns it into an
activity failure; what Temporal does with that failure under the real retry policy of the activity's kind must be
what the table says: TRANSIENT → retried (a retryable ApplicationError of a transient type, or a plain exception),
FINAL → not retried."""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Any

import httpx
import litellm
import obstore
import obstore.exceptions as obx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from temporalio.exceptions import ApplicationError

from activities.artifact_store import ArtifactStore, LocalBackend, S3Backend
from activities.llm.config import load_config, resolve_model
from activities.llm.gateway import classify
from activities.query.notes_repository import StorageError, _os_error
from activities.query.storage import _application_error
from activities.voice import _classified
from activities.voice.backends import SpeechConfigError, SpeechError
from rules.retry_classes import (
    ERROR_TYPES,
    FINAL,
    LLM_EXCEPTIONS,
    TRANSIENT,
    ErrorClass,
    class_of,
    errno_class,
    http_status_class,
)
from workflows.activity_options import activity_options


@dataclass
class Drawn:
    source: str
    error: BaseException
    expected: ErrorClass
    kind: str           # the policy kind of the activities that meet it
    says: str = ""      # what the failure's message must keep whole (the server's status)


def temporal_retries(failure: BaseException, kind: str) -> bool:
    """Temporal's decision for an activity failure under the kind's retry policy (attempts left)."""
    policy = activity_options(kind)["retry_policy"]
    if isinstance(failure, ApplicationError):
        error_type, non_retryable = failure.type or "", failure.non_retryable
    else:  # a plain exception: its type is its class name, never flagged non-retryable
        error_type, non_retryable = type(failure).__name__, False
    return not non_retryable and error_type not in policy.non_retryable_error_types


STATUSES = st.sampled_from([400, 401, 403, 404, 405, 408, 409, 411, 412, 413, 416, 422, 425, 429,
                            500, 501, 502, 503, 504, 507, 599])
S3_CODES = st.sampled_from(["SlowDown", "InternalError", "ServiceUnavailable", "AccessDenied", "InvalidArgument",
                            "RequestTimeout", "NoSuchBucket", "EntityTooLarge", "ThrottlingException", ""])
WORDS = st.text(st.characters(min_codepoint=32, max_codepoint=0x2fff, exclude_characters="\x7f"), max_size=200)
ERRNOS = st.sampled_from([errno.EIO, errno.EAGAIN, errno.ETIMEDOUT, errno.ESTALE, errno.ECONNREFUSED,
                          errno.ECONNRESET, errno.EHOSTUNREACH, errno.EINTR, errno.ENOSPC, errno.EDQUOT, errno.EROFS,
                          errno.EACCES, errno.EPERM, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG, errno.EINVAL])
OS_KINDS = st.sampled_from([OSError, PermissionError, TimeoutError, ConnectionRefusedError, ConnectionResetError,
                            NotADirectoryError, IsADirectoryError])


def _os_error_of(cls: type[OSError], code: int, text: str) -> tuple[OSError, ErrorClass]:
    err = cls(code, text or "failure") if cls is OSError else cls(text)
    if cls is not OSError:
        err.errno = {PermissionError: errno.EACCES, TimeoutError: errno.ETIMEDOUT,
                     ConnectionRefusedError: errno.ECONNREFUSED, ConnectionResetError: errno.ECONNRESET,
                     NotADirectoryError: errno.ENOTDIR, IsADirectoryError: errno.EISDIR}[cls]
    return err, (FINAL if isinstance(err, PermissionError) else errno_class(err.errno))


@st.composite
def s3_errors(draw) -> Drawn:
    shape = draw(st.sampled_from(["status", "connection", "timeout", "join", "denied", "path", "config", "os"]))
    url = "http://127.0.0.1:9000/colloquy/" + "k/%20" * draw(st.integers(0, 200))  # any length of key
    head = f"Generic S3 error: Error performing PUT {url} in 212ms, after 2 retries, max_retries: 2 - "
    debug = "\n\nDebug source:\nGeneric {\n    store: \"S3\",\n" + "    inner: x,\n" * draw(st.integers(0, 40)) + "}"
    if shape == "status":
        status, code, text = draw(STATUSES), draw(S3_CODES), draw(WORDS)
        body = f"<Error><Code>{code}</Code><Message>{text}</Message></Error>" if code else text
        error: BaseException = obx.GenericError(
            f"{head}Server returned non-2xx status code: {status} Reason: {body}{debug}")
        return Drawn("s3", error, http_status_class(status), "artifact", says=f"status code: {status} Reason:")
    if shape == "connection":
        return Drawn("s3", obx.GenericError(f"{head}HTTP error: error sending request{debug}"), TRANSIENT, "artifact")
    if shape == "timeout":
        return Drawn("s3", obx.GenericError(f"{head}HTTP error: operation timed out{debug}"), TRANSIENT, "artifact")
    if shape == "join":
        return Drawn("s3", obx.JoinError(draw(WORDS)), TRANSIENT, "artifact")
    if shape == "denied":
        cls = draw(st.sampled_from([obx.PermissionDeniedError, obx.UnauthenticatedError]))
        return Drawn("s3", cls(f"{head}Server returned non-2xx status code: 403 Forbidden"), FINAL, "artifact")
    if shape == "path":
        return Drawn("s3", obx.InvalidPathError(draw(WORDS)), FINAL, "artifact")
    if shape == "config":
        cls = draw(st.sampled_from([obx.UnknownConfigurationKeyError, obx.NotSupportedError]))
        return Drawn("s3", cls(draw(WORDS)), FINAL, "artifact")
    error, expected = _os_error_of(draw(OS_KINDS), draw(ERRNOS), draw(WORDS))
    return Drawn("s3", error, expected, "artifact")


@st.composite
def local_errors(draw) -> Drawn:
    error, expected = _os_error_of(draw(OS_KINDS), draw(ERRNOS), draw(WORDS))
    return Drawn(draw(st.sampled_from(["local-write", "local-read"])), error, expected, "artifact")


@st.composite
def notes_errors(draw) -> Drawn:
    if draw(st.booleans()):
        retryable = draw(st.booleans())
        return Drawn("notes-own", StorageError(draw(WORDS) or "x", retryable=retryable),
                     TRANSIENT if retryable else FINAL, "storage")
    error, expected = _os_error_of(draw(OS_KINDS), draw(ERRNOS), draw(WORDS))
    return Drawn("notes", error, expected, "storage")


_STATUS_OF = {"RateLimitError": 429, "PermissionDeniedError": 403, "UnprocessableEntityError": 422,
              "AuthenticationError": 401, "NotFoundError": 404, "BadRequestError": 400, "InternalServerError": 500,
              "ServiceUnavailableError": 503, "BadGatewayError": 502, "ContextWindowExceededError": 400,
              "Timeout": 408, "APIConnectionError": 500}


@st.composite
def provider_errors(draw) -> Drawn:
    message = draw(WORDS) or "failed"
    req = httpx.Request("POST", "http://provider.invalid/v1/chat/completions")
    if draw(st.integers(0, 5)) == 0:  # another status, through the generic APIError
        status = draw(STATUSES)
        return Drawn("llm", litellm.APIError(status_code=status, message=message, llm_provider="openai", model="m",
                                             request=req), http_status_class(status), "agent")
    if draw(st.integers(0, 9)) == 0:
        return Drawn("llm", draw(st.sampled_from([RuntimeError, TimeoutError, ConnectionError]))(message),
                     TRANSIENT, "agent")
    name = draw(st.sampled_from(sorted(LLM_EXCEPTIONS)))
    cls = getattr(litellm, name)
    kwargs: dict[str, Any] = {"message": message, "llm_provider": "openai", "model": "m"}
    if name == "APIConnectionError":
        kwargs["request"] = req
    elif name != "Timeout" or draw(st.booleans()):
        kwargs["response"] = httpx.Response(_STATUS_OF[name], request=req,
                                            headers={"retry-after": str(draw(st.integers(0, 90)))})
    return Drawn("llm", cls(**kwargs), LLM_EXCEPTIONS[name], draw(st.sampled_from(["live_agent", "agent"])))


class _Strict(BaseModel):
    name: str = Field(min_length=1, max_length=8)
    count: int


@st.composite
def own_errors(draw) -> Drawn:
    which = draw(st.sampled_from(["pydantic", "speech", "speech-config"]))
    if which == "pydantic":
        try:
            _Strict.model_validate({"name": draw(st.text(min_size=9, max_size=20)), "count": draw(WORDS)})
        except ValueError as exc:  # pydantic's ValidationError, raised as it is out of an activity
            return Drawn("plain", exc, FINAL, "storage")
        raise AssertionError("the drawn input validated")
    cls = SpeechError if which == "speech" else SpeechConfigError
    return Drawn("speech", cls(draw(WORDS) or "x"), FINAL, "storage")


@st.composite
def history_errors(draw) -> Drawn:
    """The writing history DB (DuckDB or PostgreSQL): a lock, a full disk, an unreachable server."""
    cls = draw(st.sampled_from([OSError, RuntimeError, ConnectionError, TimeoutError, ValueError]))
    return Drawn("history", cls(draw(WORDS) or "database is locked"), TRANSIENT, "storage")


ANY_ERROR = st.one_of(s3_errors(), local_errors(), notes_errors(), provider_errors(), own_errors(), history_errors())


def _failure(drawn: Drawn, tmp_path, monkeypatch) -> BaseException:
    """The activity failure the drawn error becomes, through the code that classifies it."""
    err = drawn.error
    if drawn.source == "s3":
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "k")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")

        def raising(*args: Any, **kwargs: Any) -> Any:
            raise err

        monkeypatch.setattr(obstore, "put", raising)
        store = ArtifactStore(backend=S3Backend("colloquy", "http://127.0.0.1:9", prefix="p"))
        return _raised(lambda: store.put("interview-1", "transcript.md", "text"))
    if drawn.source.startswith("local"):
        backend = LocalBackend(tmp_path)
        store = ArtifactStore(backend=backend)
        ref = store.put("s", "n", "text")

        def failing(*args: Any, **kwargs: Any) -> Any:
            raise err

        if drawn.source == "local-write":
            monkeypatch.setattr("activities.artifact_store.os.replace", failing)
            return _raised(lambda: store.put("s", "n2", "text"))
        monkeypatch.setattr("pathlib.Path.read_bytes", failing)
        return _raised(lambda: store.get(ref))
    if drawn.source == "notes":
        assert isinstance(err, OSError)
        return _application_error(_os_error("write", tmp_path / "notes.md", err))
    if drawn.source == "notes-own":
        assert isinstance(err, Exception)
        return _application_error(err)
    if drawn.source == "llm":
        assert isinstance(err, Exception)
        res = resolve_model("unit", load_config(env={}))
        assert res is not None
        return classify(err, res)
    if drawn.source == "history":
        return _history_failure(err, tmp_path, monkeypatch)
    if drawn.source == "speech":
        assert isinstance(err, SpeechError)
        return _classified(err)
    return err  # a plain exception, raised as it is


def _history_failure(err: BaseException, tmp_path, monkeypatch) -> BaseException:
    import asyncio

    from activities.writing import history
    from tests.unit.writing.test_history_and_logs import T0, record

    class Failing:
        def __init__(self, location: str) -> None:
            pass

        def record_run(self, *args: Any) -> int:
            raise err

    monkeypatch.setenv("COLLOQUY_HISTORY_DB", str(tmp_path / "history.duckdb"))
    monkeypatch.setattr(history, "HistoryStore", Failing)
    inp = history.RecordHistoryInput(**record("r1", "s", T0, {"a": 1}, {"a": 0.01}).model_dump())
    with pytest.raises(ApplicationError) as caught:
        asyncio.run(history.writing_record_history(inp))
    return caught.value


def _raised(call: Any) -> BaseException:
    with pytest.raises(ApplicationError) as caught:
        call()
    return caught.value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=ANY_ERROR)
def test_an_error_from_any_store_or_provider_is_retried_exactly_when_the_table_says_transient(
        drawn, tmp_path_factory, monkeypatch):
    with monkeypatch.context() as patch:
        failure = _failure(drawn, tmp_path_factory.mktemp("store"), patch)
    retried = temporal_retries(failure, drawn.kind)
    assert retried == (drawn.expected == TRANSIENT), (drawn, failure)
    if isinstance(failure, ApplicationError):
        assert failure.type in ERROR_TYPES, failure.type  # every failure is a row of the table
        assert class_of(failure.type, failure.non_retryable) == drawn.expected
        assert failure.non_retryable == (drawn.expected == FINAL)  # the flag and the row agree
        assert len(failure.message) <= 1200
        if drawn.source == "s3":  # the S3 client's dump is cut; another error's own words are its own
            assert 'store: "S3"' not in failure.message, failure.message
        assert drawn.says in failure.message, failure.message  # a long key never pushes the status out


def test_regression_a_speech_error_whose_words_are_debug_source_keeps_them(tmp_path, monkeypatch):
    """Hypothesis drew a SpeechError saying "Debug source" (a literal it mined from this file): the check that the
    S3 client's dump is cut applied to every error, so an error's own words failed it (CI, stop 44)."""
    drawn = Drawn("speech", SpeechError("Debug source"), FINAL, "storage")
    with monkeypatch.context() as patch:
        failure = _failure(drawn, tmp_path, patch)
    assert not temporal_retries(failure, drawn.kind)
    if isinstance(failure, ApplicationError):
        assert failure.message == "Debug source" and failure.non_retryable


def test_regression_s3_outage_status_503_slowdown_is_transient(tmp_path, monkeypatch):
    """Issue 38: a 503 SlowDown from object storage was ArtifactError, never retried."""
    drawn = Drawn("s3", obx.GenericError("Generic S3 error: Error performing PUT http://h/b/k in 1s, after 2 "
                                         "retries - Server returned non-2xx status code: 503 Service Unavailable: "
                                         "<Error><Code>SlowDown</Code></Error>"), TRANSIENT, "artifact")
    failure = _failure(drawn, tmp_path, monkeypatch)
    assert isinstance(failure, ApplicationError) and failure.type == "ArtifactUnavailable"
    assert temporal_retries(failure, "artifact") and "503 Service Unavailable" in failure.message
