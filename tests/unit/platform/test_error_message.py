"""rules/errors.py `error_message`: the innermost useful line of a Temporal error chain — now told without
importing temporalio (rules/ is the pure layer), so these pin what it said before."""

from __future__ import annotations

from temporalio.exceptions import ActivityError, ApplicationError, RetryState, TimeoutError, TimeoutType

from rules.errors import error_message


def _activity_error(cause: BaseException) -> ActivityError:
    err = ActivityError("Activity task failed", scheduled_event_id=1, started_event_id=2, identity="w",
                        activity_type="a", activity_id="1", retry_state=RetryState.NON_RETRYABLE_FAILURE)
    err.__cause__ = cause
    return err


def test_the_application_error_inside_an_activity_error_is_the_message():
    inner = ApplicationError("disk full — free space", type="StorageError", non_retryable=True)
    assert error_message(_activity_error(inner)) == "disk full — free space"


def test_the_walk_stops_at_the_application_error():
    app = ApplicationError("the one that matters")
    app.__cause__ = ValueError("a detail below it")
    assert error_message(_activity_error(app)) == "the one that matters"


def test_a_timeout_says_what_timed_out_and_why():
    timeout = TimeoutError("activity Heartbeat timeout", type=TimeoutType.HEARTBEAT, last_heartbeat_details=[])
    timeout.__cause__ = ApplicationError("worker gone")
    assert error_message(_activity_error(timeout)) == "activity Heartbeat timeout: worker gone"


def test_plain_errors_none_and_the_limit():
    assert error_message(None) == "unknown error"
    assert error_message(ValueError("bad input")) == "bad input"
    assert error_message(ValueError("x" * 900), limit=10) == "x" * 10
