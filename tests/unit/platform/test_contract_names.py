"""Every workflow's public names (type, signals, updates, queries) are constants in its contract module
(models/<pipeline>.py), the workflow's decorators use them, and their values never change: running workflows,
clients and the recorded histories in tests/histories depend on these exact strings."""

from __future__ import annotations

import pytest
from temporalio import workflow

from models.discussion import workflow as discussion
from models.interview import names as interview
from models.platform import workflow as platform
from models.query import workflow as query
from models.rehearsal import workflow as rehearsal
from models.study import workflow as study
from models.writing import workflow as writing
from workflows.discussion.workflow import DiscussionWorkflow
from workflows.interview.workflow import InterviewWorkflow
from workflows.platform.model_check import ModelCheckWorkflow
from workflows.query.workflow import ImportNotesWorkflow, QueryWorkflow
from workflows.rehearsal.workflow import SimulatedAnswerWorkflow
from workflows.study.workflow import StudyWorkflow
from workflows.writing.workflow import WritingWorkflow

# class -> (workflow type, signals, updates, queries): the constant and the literal it must keep.
CONTRACTS: dict[type, tuple[tuple[str, str], dict[str, str], dict[str, str], dict[str, str]]] = {
    InterviewWorkflow: (
        (interview.WORKFLOW_TYPE, "InterviewWorkflow"),
        {interview.SIGNAL_TRANSCRIPT_ENTRY: "transcript_entry", interview.SIGNAL_SESSION_CONTROL: "session_control"},
        {interview.UPDATE_SUBMIT_ENTRY: "submit_entry", interview.UPDATE_SESSION_CONTROL: "control_session",
         interview.UPDATE_ASSISTANT_QUERY: "assistant_query", interview.UPDATE_HEARTBEAT: "heartbeat"},
        {interview.QUERY_SESSION_STATE: "session_state", interview.QUERY_EVENT_LOG: "event_log",
         interview.QUERY_TRANSCRIPT: "transcript", interview.QUERY_NOTES: "notes", interview.QUERY_PLAN: "plan"},
    ),
    QueryWorkflow: (
        (query.WORKFLOW_TYPE, "QueryWorkflow"),
        {},
        {query.UPDATE_CLARIFY: "clarify"},
        {query.QUERY_PENDING_CLARIFICATION: "pending_clarification", query.QUERY_SESSION_STATE: "session_state"},
    ),
    ImportNotesWorkflow: (
        (query.IMPORT_WORKFLOW_TYPE, "ImportNotesWorkflow"),
        {},
        {},
        {query.QUERY_IMPORT_PROGRESS: "import_progress"},
    ),
    WritingWorkflow: (
        (writing.WORKFLOW_TYPE, "WritingWorkflow"),
        {writing.SIGNAL_APPROVAL: "approval"},
        {writing.UPDATE_SUBMIT_APPROVAL: "submit_approval",
         writing.UPDATE_AWAIT_APPROVAL_REQUEST: "await_approval_request"},
        {writing.QUERY_RUN_STATUS: "run_status", writing.QUERY_OUTPUTS: "outputs"},
    ),
    DiscussionWorkflow: (
        (discussion.WORKFLOW_TYPE, "DiscussionWorkflow"),
        {},
        {},
        {discussion.QUERY_PROGRESS: "progress"},
    ),
    SimulatedAnswerWorkflow: ((rehearsal.WORKFLOW_TYPE, "SimulatedAnswerWorkflow"), {}, {}, {}),
    ModelCheckWorkflow: (
        (platform.MODEL_CHECK_WORKFLOW_TYPE, "ModelCheckWorkflow"),
        {},
        {},
        {platform.QUERY_MODEL_CHECK_ROWS: "rows"},
    ),
    StudyWorkflow: (
        (study.WORKFLOW_TYPE, "StudyWorkflow"),
        {},
        {study.UPDATE_ADD_PARTICIPANTS: "add_participants", study.UPDATE_REVOKE_PARTICIPANT: "revoke_participant",
         study.UPDATE_OPEN_LINK: "open_link", study.UPDATE_CLOSE: "close_study",
         study.UPDATE_REVIEW_PLAN: "review_plan", study.UPDATE_MEMBER_CHECK: "member_check",
         study.UPDATE_ERASE_PARTICIPANT: "erase_participant"},
        {study.QUERY_PROGRESS: "progress", study.QUERY_FINDINGS_DRAFT: "findings_draft",
         study.QUERY_PARTICIPANTS: "participants", study.QUERY_LINK: "link",
         study.QUERY_PLAN_REVIEW: "plan_review", study.QUERY_MEMBER_CHECK: "member_check_view",
         study.QUERY_EXPORT: "export"},
    ),
}


@pytest.mark.parametrize("cls", list(CONTRACTS), ids=lambda c: c.__name__)
def test_the_constants_keep_their_values_and_name_every_handler(cls: type) -> None:
    (type_constant, type_literal), signals, updates, queries = CONTRACTS[cls]
    assert type_constant == type_literal
    for table in (signals, updates, queries):
        assert all(constant == literal for constant, literal in table.items()), table
    defn = workflow._Definition.must_from_class(cls)
    assert defn.name == type_literal
    assert set(defn.signals) == set(signals)
    assert set(defn.updates) == set(updates)
    assert set(defn.queries) == set(queries)


def test_the_rehearsal_answer_id_is_stable() -> None:
    assert rehearsal.answer_workflow_id("interview-x", 3) == "rehearsal-interview-x-turn-3"
