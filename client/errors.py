"""What a person sees when a `colloquy` command cannot do its job: one line on stderr and a documented exit code,
never a traceback for an expected error (unknown workflow id, bad argument, unreachable server, no worker,
artifact not found, a rejected update). Tracebacks stay for bugs.

`run()` (client/common.py) and `client.cli.main` turn every exception `classify` knows into that line; commands
raise `CliError(message, code)` for their own checks.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FAILED = 1       # the run failed or ended without its result; a check found a problem
    USAGE = 2        # bad usage or settings (argument, config, TLS/profile); the Temporal server cannot be reached
    NO_WORKER = 3    # no worker polls the task queue the command needs
    REFUSED = 4      # not found or refused: unknown workflow id, artifact not found, a request the workflow rejected
    INTERRUPTED = 130  # Ctrl-C


#: The one table, in `colloquy --help` and every command's --help (epilog), and in the README.
EXIT_CODES = (
    (ExitCode.OK, "ok"),
    (ExitCode.FAILED, "the run failed, or a check found a problem (a model check row, an ended run without "
                      "its result)"),
    (ExitCode.USAGE, "bad usage or settings (an argument, the config, TLS or profile), or the Temporal server "
                     "cannot be reached"),
    (ExitCode.NO_WORKER, "no worker polls the task queue (the message names the command that starts one)"),
    (ExitCode.REFUSED, "not found or refused: an unknown workflow id, an artifact not found, a request the "
                       "workflow rejected"),
    (ExitCode.INTERRUPTED, "interrupted (Ctrl-C)"),
)
EXIT_CODES_HELP = "Exit codes (the same for every command):\n\n" + "\n\n".join(
    f"{int(code):>3}  {meaning}" for code, meaning in EXIT_CODES)


class CliError(Exception):
    """An error a person can act on: printed as one line, exits with `code`."""

    def __init__(self, message: str, code: ExitCode = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class NoWorkerError(CliError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.NO_WORKER)


def one_line(text: object) -> str:
    """Collapse a message to one line (server and validation messages sometimes span several)."""
    return " ".join(str(text).split())


def _cause_message(exc: BaseException) -> str:
    from temporalio.exceptions import ApplicationError, FailureError

    cause = getattr(exc, "cause", None)
    # The innermost ApplicationError says what went wrong (an activity error wraps it in ActivityError).
    while isinstance(cause, FailureError) and not isinstance(cause, ApplicationError) and cause.cause is not None:
        cause = cause.cause
    if cause is None:
        return str(exc)
    return getattr(cause, "message", None) or str(cause)


def classify(exc: BaseException) -> CliError | None:
    """The one-line error and exit code for an expected exception; None for a bug (keep the traceback)."""
    from pydantic import ValidationError
    from temporalio.client import (
        WorkflowFailureError,
        WorkflowQueryFailedError,
        WorkflowQueryRejectedError,
        WorkflowUpdateFailedError,
    )
    from temporalio.exceptions import ApplicationError, WorkflowAlreadyStartedError
    from temporalio.service import RPCError, RPCStatusCode

    from core.temporal import TemporalConfigError

    if isinstance(exc, CliError):
        return exc
    if isinstance(exc, KeyboardInterrupt):
        return CliError("interrupted", ExitCode.INTERRUPTED)
    if isinstance(exc, (ConnectionError, TemporalConfigError)):
        return CliError(one_line(exc), ExitCode.USAGE)
    if isinstance(exc, WorkflowAlreadyStartedError):
        return CliError(f"workflow id {exc.workflow_id!r} is already taken: choose another --id", ExitCode.USAGE)
    if isinstance(exc, WorkflowUpdateFailedError):
        return CliError(f"refused: {one_line(_cause_message(exc))}", ExitCode.REFUSED)
    if isinstance(exc, WorkflowFailureError):
        # the shared status word (models/status.py), then the workflow's own words
        from temporalio.exceptions import CancelledError

        word = "was cancelled" if isinstance(exc.cause, CancelledError) else "failed"
        return CliError(f"the run {word}: {one_line(_cause_message(exc))}", ExitCode.FAILED)
    if isinstance(exc, (WorkflowQueryFailedError, WorkflowQueryRejectedError)):
        return CliError(f"query failed: {one_line(exc)}", ExitCode.FAILED)
    if isinstance(exc, ApplicationError):
        code = ExitCode.REFUSED if exc.type in ("ArtifactNotFound", "ArtifactError") else ExitCode.FAILED
        return CliError(one_line(exc.message), code)
    if isinstance(exc, RPCError):
        if exc.status == RPCStatusCode.NOT_FOUND:
            return CliError(f"not found: {one_line(exc.message)}", ExitCode.REFUSED)
        if exc.status in (RPCStatusCode.UNAVAILABLE, RPCStatusCode.UNAUTHENTICATED, RPCStatusCode.PERMISSION_DENIED):
            return CliError(f"the Temporal server refused or did not answer: {one_line(exc.message)}",
                            ExitCode.USAGE)
        if exc.status in (RPCStatusCode.INVALID_ARGUMENT, RPCStatusCode.ALREADY_EXISTS):
            return CliError(one_line(exc.message), ExitCode.USAGE)
        return CliError(f"Temporal: {one_line(exc.message)}", ExitCode.FAILED)
    if isinstance(exc, ValidationError):  # pydantic, on what the user typed (topic too long, bad mode, ...)
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return CliError(f"invalid input{' ' + where if where else ''}: {one_line(first['msg'])}", ExitCode.USAGE)
    if isinstance(exc, TimeoutError):
        return CliError("timed out waiting for the Temporal server", ExitCode.FAILED)
    return None
