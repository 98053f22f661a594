"""An outage or throttling of the S3-compatible store is a transient failure: the activity's retry policy retries it
and the retry succeeds once the store is back (issue 38: the interview failed for good on one refused PUT, its log
line cut at "Server returned non-"). Against a real SeaweedFS (tests/seaweedfs.py) that is stopped and started
again, and a 127.0.0.1 server that answers like a throttling or refusing S3."""

from __future__ import annotations

import contextlib
import http.server
import threading
import uuid
from collections.abc import Iterator

import pytest
from temporalio.exceptions import ApplicationError

from activities.artifact_store import ArtifactStore, S3Backend
from rules.retry_classes import FINAL, TRANSIENT, class_of
from tests.seaweedfs import seaweedfs
from workflows.activity_options import activity_options


def _retried(err: ApplicationError, kind: str = "artifact") -> bool:
    """What Temporal does with this failure under the kind's real retry policy."""
    policy = activity_options(kind)["retry_policy"]
    return not err.non_retryable and (err.type or "") not in policy.non_retryable_error_types


def _s3_store(endpoint: str, monkeypatch, key: str = "k", secret: str = "s") -> ArtifactStore:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    return ArtifactStore(backend=S3Backend("colloquy", endpoint, prefix=f"outage-{uuid.uuid4().hex[:8]}"))


def test_a_stopped_s3_server_is_transient_and_the_retry_succeeds_when_it_is_back(monkeypatch):
    with seaweedfs() as s3:
        store = _s3_store(s3.endpoint, monkeypatch, s3.access_key, s3.secret_key)
        before = store.put("interview-1", "session.json", "{}")
        s3.stop()
        with pytest.raises(ApplicationError) as put_err:
            store.put("interview-1", "transcript.md", "# the transcript")
        with pytest.raises(ApplicationError) as get_err:
            store.get(before)
        for err in (put_err.value, get_err.value):
            assert err.type == "ArtifactUnavailable" and class_of(err.type, err.non_retryable) == TRANSIENT
            assert _retried(err), err
            assert "error sending request" in err.message and "Debug source" not in err.message
        s3.start()
        ref = store.put("interview-1", "transcript.md", "# the transcript")  # the retry
        assert store.get(ref) == "# the transcript" and store.get(before) == "{}"


class _S3Answering(http.server.BaseHTTPRequestHandler):
    status = 503
    code, text = "SlowDown", "Please reduce your request rate."

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{self.code}</Code><Message>{self.text}'
                f"</Message><RequestId>{'7' * 16}</RequestId></Error>").encode()
        self.send_response(self.status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_PUT = do_GET = do_HEAD = _answer

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def _answering(status: int, code: str, text: str) -> Iterator[str]:
    handler = type("Handler", (_S3Answering,), {"status": status, "code": code, "text": text})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("status", "code", "text", "expected"), [
    (503, "SlowDown", "Please reduce your request rate.", TRANSIENT),
    (429, "TooManyRequests", "Too many requests.", TRANSIENT),
    (500, "InternalError", "We encountered an internal error. Please try again.", TRANSIENT),
    (400, "InvalidArgument", "Invalid Argument.", FINAL),
])
def test_throttling_and_server_errors_pass_a_bad_request_does_not_and_the_status_is_logged_whole(
        monkeypatch, status, code, text, expected):
    with _answering(status, code, text) as endpoint:
        store = _s3_store(endpoint, monkeypatch)
        with pytest.raises(ApplicationError) as caught:
            store.put("interview-1", "transcript.md", "text")
    err = caught.value
    assert class_of(err.type, err.non_retryable) == expected and _retried(err) == (expected == TRANSIENT)
    assert err.type == ("ArtifactUnavailable" if expected == TRANSIENT else "ArtifactError")
    # the status and the S3 error code are whole (the log line was cut at "Server returned non-")
    assert f"Server returned non-2xx status code: {status}" in err.message, err.message
    assert f"<Code>{code}</Code>" in err.message and "Debug source" not in err.message
    assert len(err.message) < 900
    line = _worker_log_line(err, attempt=1)
    assert f"{status} " in line and code in line, line
    assert line.endswith("retry 2 of 10 in 0.2s" if expected == TRANSIENT else "not retried (non-retryable)"), line


def _worker_log_line(err: ApplicationError, attempt: int) -> str:
    """The one line the worker logs for a failed attempt (core/logging.py ExpectedFailureFilter)."""
    import logging
    import sys
    from types import SimpleNamespace

    from core.logging import ExpectedFailureFilter

    try:
        raise err
    except ApplicationError:
        record = logging.LogRecord("temporalio.activity", logging.WARNING, __file__, 1,
                                   "Completing activity as failed", (), sys.exc_info())
    record.__dict__["__temporal_error_identifier"] = "ActivityFailure"
    record.__dict__["temporal_activity"] = {"activity_type": "interview_save_transcript", "attempt": attempt}
    record.__dict__["activity_info"] = SimpleNamespace(attempt=attempt,
                                                       retry_policy=activity_options("artifact")["retry_policy"])
    assert ExpectedFailureFilter().filter(record)
    return record.getMessage()
