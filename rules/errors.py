"""One way to turn a Temporal error chain into the one line a person should read (pure; no I/O).

Activity, child-workflow and client errors wrap the error that matters (`ApplicationError` raised by an
activity, an update validator's own message, a timeout) in one or more layers; the message of those layers
("Activity task failed") says nothing. `error_message` walks to the innermost useful message.
"""

from __future__ import annotations


def error_message(err: BaseException | None, limit: int = 500) -> str:
    """The innermost useful message of `err` (its `.cause` chain, then `__cause__`), at most `limit` chars."""
    if err is None:
        return "unknown error"
    from temporalio.exceptions import ApplicationError, TimeoutError

    message = getattr(err, "message", None) or str(err) or err.__class__.__name__
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = getattr(current, "message", None) or str(current)
        if text:
            message = text
        if isinstance(current, ApplicationError):
            break
        if isinstance(current, TimeoutError):
            inner = current.cause
            if inner is not None and (getattr(inner, "message", None) or str(inner)):
                message = f"{message}: {getattr(inner, 'message', None) or inner}"
            break
        nxt = getattr(current, "cause", None)
        current = nxt if isinstance(nxt, BaseException) else current.__cause__
    return message[:limit]
