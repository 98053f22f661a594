"""One way to turn a Temporal error chain into the one line a person should read (pure; no I/O).

Activity, child-workflow and client errors wrap the error that matters (`ApplicationError` raised by an
activity, an update validator's own message, a timeout) in one or more layers; the message of those layers
("Activity task failed") says nothing. `error_message` walks to the innermost useful message.
"""

from __future__ import annotations

_TEMPORAL_EXCEPTIONS = "temporalio.exceptions"


def _temporal_kind(err: BaseException) -> str | None:
    """"ApplicationError" / "TimeoutError" when `err` is (a subclass of) that Temporal exception, else None — told by
    its classes, so that rules/ never imports temporalio (the pure layer)."""
    for cls in type(err).__mro__:
        if cls.__module__ == _TEMPORAL_EXCEPTIONS and cls.__name__ in ("ApplicationError", "TimeoutError"):
            return cls.__name__
    return None


def error_message(err: BaseException | None, limit: int = 500) -> str:
    """The innermost useful message of `err` (its `.cause` chain, then `__cause__`), at most `limit` chars."""
    if err is None:
        return "unknown error"
    message = getattr(err, "message", None) or str(err) or err.__class__.__name__
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = getattr(current, "message", None) or str(current)
        if text:
            message = text
        kind = _temporal_kind(current)
        if kind == "ApplicationError":
            break
        if kind == "TimeoutError":
            inner = getattr(current, "cause", None)
            if inner is not None and (getattr(inner, "message", None) or str(inner)):
                message = f"{message}: {getattr(inner, 'message', None) or inner}"
            break
        nxt = getattr(current, "cause", None)
        current = nxt if isinstance(nxt, BaseException) else current.__cause__
    return message[:limit]
