"""Workflow side of input validation (rules/inputs.py): a bad start fails the run at once, non-retryably, with its
search attributes set; a bad signal is recorded as a rejection and changes nothing else; a bad update is rejected.

    @workflow.run
    async def run(self, raw: Any = None) -> Result:
        inp = start_input(Request, raw, pipeline="query", workflow_type=WORKFLOW_TYPE)

Workflow arguments are typed `Any` so that the SDK decodes any JSON (a wrong type can no longer fail the workflow
task forever); pydantic-model callers are unaffected (the payload is the same JSON). For valid input nothing here
adds a command: the invalid paths are the only ones with new commands.
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel
from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from core import search_attributes as sa
    from models.status import FAILED, PHASE_DONE
    from rules.inputs import InvalidInput, parse_input

M = TypeVar("M", bound=BaseModel)
ERROR_TYPE = "InvalidInput"
REJECTED_MARK = "\n⚠️ rejected "


def invalid(message: str, *details: Any) -> ApplicationError:
    """The non-retryable error for input a person must fix (validators raise it; the CLI shows its message).
    `details`: what a caller may read besides the message (the interview's refusal code, rules/interview/entries.py)."""
    return ApplicationError(message, *details, type=ERROR_TYPE, non_retryable=True)


def fail_start(pipeline: str, message: str, topic: str | None = None) -> NoReturn:
    """End the run now as FAILED (search attributes and details set first): its input cannot be used."""
    sa.upsert(pipeline=pipeline, topic=topic, phase=PHASE_DONE, status=FAILED)
    workflow.set_current_details(f"failed: {message}")
    workflow.logger.warning("run refused: %s", message)
    raise invalid(message) from None


def start_input(model: type[M], raw: Any, *, pipeline: str, workflow_type: str) -> M:
    """The run's input as `model`, or the run fails now (see `fail_start`)."""
    parsed, error = check_start_input(model, raw, workflow_type)
    if parsed is None:
        fail_start(pipeline, error or "invalid input")
    return parsed


def check_start_input(model: type[M], raw: Any, workflow_type: str) -> tuple[M | None, str | None]:
    """For `@workflow.init`, which must not fail: (the model, None) or (None, the message for `fail_start`)."""
    try:
        return parse_input(model, raw, f"{workflow_type} input"), None
    except InvalidInput as err:
        return None, str(err)


def update_input(model: type[M], raw: Any, name: str) -> M:
    """An update's argument as `model`, or the update is rejected (call it from the validator)."""
    try:
        return parse_input(model, raw, f"{name!r} update")
    except InvalidInput as err:
        raise invalid(str(err)) from None


def signal_input(model: type[M], raw: Any, name: str) -> tuple[M | None, str]:
    """(a signal's argument as `model`, "") or (None, why) after showing the rejection (`note_rejection`);
    the workflow records it in its own query view too."""
    try:
        return parse_input(model, raw, f"{name!r} signal"), ""
    except InvalidInput as err:
        note_rejection(str(err))
        return None, str(err)


def note_rejection(message: str) -> None:
    """Show a rejected signal in the Web UI (current details: the last rejection under the current line) and the
    worker log. No command: the workflow's history and state are untouched."""
    workflow.logger.warning("signal rejected: %s", message)
    details = workflow.get_current_details().split(REJECTED_MARK)[0]
    workflow.set_current_details(f"{details}{REJECTED_MARK}{message}")
