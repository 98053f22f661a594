"""The test-server wedge guard (tests/wedge_guard.py) recognises only the server's own inconsistency: a workflow
task started while the previous one was never completed. Generated task-event sequences of healthy runs (every
started task closes before the next starts) are never taken for a wedge."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

from tests.wedge_guard import children, wedged

E = EventType
SCHEDULED, STARTED, COMPLETED = (E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, E.EVENT_TYPE_WORKFLOW_TASK_STARTED,
                                 E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
CLOSES = [COMPLETED, E.EVENT_TYPE_WORKFLOW_TASK_FAILED, E.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT]
OTHERS = [E.EVENT_TYPE_TIMER_STARTED, E.EVENT_TYPE_TIMER_FIRED, E.EVENT_TYPE_TIMER_CANCELED,
          E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
          E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES]


def history(*types: int) -> list[HistoryEvent]:
    return [HistoryEvent(event_id=i + 1, event_type=t) for i, t in enumerate(types)]  # type: ignore[arg-type]


def test_the_wedge_seen_in_ci_is_recognised():
    # ... a task started, a timer fired under it, a second task scheduled and started, the first never completed
    assert wedged(history(E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, SCHEDULED, STARTED, COMPLETED,
                          E.EVENT_TYPE_TIMER_STARTED, E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
                          E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, SCHEDULED, STARTED, E.EVENT_TYPE_TIMER_FIRED,
                          SCHEDULED, STARTED))


def test_a_task_in_flight_is_not_a_wedge():
    assert not wedged(history(E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, SCHEDULED, STARTED))
    assert not wedged(history(SCHEDULED, STARTED, COMPLETED, E.EVENT_TYPE_TIMER_FIRED, SCHEDULED, STARTED))
    assert not wedged(history(SCHEDULED, STARTED, E.EVENT_TYPE_WORKFLOW_TASK_FAILED, SCHEDULED, STARTED))


@given(st.lists(st.tuples(st.lists(st.sampled_from(OTHERS), max_size=4), st.sampled_from(CLOSES)), max_size=12),
       st.booleans())
def test_healthy_histories_are_never_taken_for_a_wedge(steps, in_flight):
    types = [E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED]
    for others, close in steps:
        types += [SCHEDULED, STARTED, close, *others]
    if in_flight:
        types += [SCHEDULED, STARTED]
    assert not wedged(history(*types))


def test_children_are_watched_too():
    event = HistoryEvent(event_id=7, event_type=E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED)
    event.child_workflow_execution_started_event_attributes.workflow_execution.workflow_id = "interview-abc"
    assert children([event]) == {"interview-abc"}
