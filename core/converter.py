"""The data converter of every client and worker: pydantic's JSON converter (temporalio.contrib.pydantic) made
safe at the door, plus failures without Python stack traces for input a person must fix.

- A payload that cannot be decoded (a lone surrogate in a text, JSON nested past the parser's limit, bytes that
  are not UTF-8) would make the SDK fail the workflow task — retried forever, the run stuck without a status.
  For the untyped arguments workflows take (`raw: Any`, see workflows/inputs.py) the converter hands over an
  `Undecodable` instead, which `rules.inputs.parse_input` refuses like any other bad input: the run fails at once
  with ColloquyStatus=failed, a signal is recorded as a rejection, an update is rejected. Typed decoding (activity
  arguments and results, queries) keeps raising as before.
- `InvalidInput` application errors carry no stack trace (the message is the whole story; `temporal workflow
  result` and the Web UI show it alone).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import ValidationError
from temporalio.api.common.v1 import Payload
from temporalio.api.failure.v1 import Failure
from temporalio.contrib.pydantic import PydanticJSONPlainPayloadConverter, PydanticPayloadConverter
from temporalio.converter import (
    CompositePayloadConverter,
    DataConverter,
    DefaultFailureConverter,
    DefaultFailureConverterWithEncodedAttributes,
    EncodingPayloadConverter,
    PayloadConverter,
)
from temporalio.exceptions import ApplicationError

from models.common import Undecodable

ERROR_TYPE = "InvalidInput"


class SafeJSONPayloadConverter(PydanticJSONPlainPayloadConverter):
    """pydantic's JSON converter; an undecodable payload for an untyped argument becomes an `Undecodable`."""

    def from_payload(self, payload: Payload, type_hint: type | None = None) -> Any:
        try:
            return super().from_payload(payload, type_hint)
        except (ValidationError, ValueError, UnicodeDecodeError) as err:
            if type_hint is not None and type_hint is not Any:
                raise
            return Undecodable(_reason(err))


def _reason(err: Exception) -> str:
    text = str(err)
    if isinstance(err, ValidationError):
        text = str(err.errors(include_url=False)[0].get("msg", "invalid JSON")).removeprefix("Invalid JSON: ")
    if "escape" in text or "code point" in text or "unicode" in text.lower() or isinstance(err, UnicodeError):
        return f"text with an invalid character (a lone UTF-16 surrogate or bytes that are not UTF-8): {text[:120]}"
    if "recursion" in text:
        return "nested too deep"
    return text[:200]


@cache
def _converters() -> tuple[EncodingPayloadConverter, ...]:
    base = PydanticPayloadConverter()
    return tuple(SafeJSONPayloadConverter() if isinstance(c, PydanticJSONPlainPayloadConverter) else c
                 for c in base.converters.values())


class SafePayloadConverter(CompositePayloadConverter):
    """PydanticPayloadConverter with `SafeJSONPayloadConverter` for JSON.

    The encoding converters are built once and shared (they hold no state): the worker makes a new data
    converter, and so a new one of these, for every payload it encodes for an activity or a child workflow
    (the SDK's serialization context), and building pydantic's converters each time cost ~1.5 % of a busy
    worker's CPU (docs/performance.md)."""

    def __init__(self) -> None:
        super().__init__(*_converters())


def _without_trace(exception: BaseException) -> None:
    if isinstance(exception, ApplicationError) and exception.type == ERROR_TYPE:
        exception.__traceback__ = None


class FailureConverter(DefaultFailureConverter):
    """The default failure converter; InvalidInput errors without a stack trace."""

    def to_failure(self, exception: BaseException, payload_converter: PayloadConverter, failure: Failure) -> None:
        _without_trace(exception)
        super().to_failure(exception, payload_converter, failure)


class EncodedFailureConverter(DefaultFailureConverterWithEncodedAttributes):
    """Failure messages and traces in (encrypted) attributes; InvalidInput errors without a stack trace.

    One exception: a query asked of a workflow that has no such query. A query's failure reaches the caller only
    as its `message` string (the SDK sends no attributes with it, so no codec endpoint can decode it), and every
    client, the Web UI's Queries tab included, showed "Encoded failure" (temporalio/sdk-python#641). That error
    is the SDK's own text (the query's name and the workflow's query names, no user data): it stays readable. A
    query handler's own error stays encrypted, as every other failure."""

    def to_failure(self, exception: BaseException, payload_converter: PayloadConverter, failure: Failure) -> None:
        _without_trace(exception)
        super().to_failure(exception, payload_converter, failure)
        if _no_such_query(exception):
            failure.message = str(exception)[:1000]


def _no_such_query(exception: BaseException) -> bool:
    """True for the SDK's "Query handler for 'X' expected but not found" raised while answering a query."""
    tb = exception.__traceback__
    return (type(exception) is RuntimeError and str(exception).startswith("Query handler for '")
            and tb is not None and tb.tb_frame.f_code.co_name == "run_query"
            and tb.tb_frame.f_code.co_filename.replace("\\", "/").endswith("temporalio/worker/_workflow_instance.py"))


colloquy_data_converter = DataConverter(payload_converter_class=SafePayloadConverter,
                                        failure_converter_class=FailureConverter)
