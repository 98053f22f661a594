"""Once the study workflow has ended (analysed: completed; or failed, terminated), its doors say what is true
(issue 36, item 5): a participant's link page posts answer "this study is closed" / "this link has been revoked",
not 404 "not valid"; the read-back door answers a clear 409, not 503; `study invite|revoke|close` print one line
("study X has ended (completed): nothing to revoke") with exit code 4, never "workflow execution already
completed"; a plan saved from the `plan_review` query is taken by `study review --plan-file`."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from temporalio.client import WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from client.errors import CliError, ExitCode
from client.study.connect import study_update
from client.study.review import load_plan
from models.interview.plan import PlanSnapshot, QuestionSnapshot, SectionSnapshot
from models.study.workflow import (
    QUERY_LINK,
    QUERY_MEMBER_CHECK,
    UPDATE_REVOKE_PARTICIPANT,
    LinkView,
    MemberCheckView,
    ParticipantView,
    PlanReview,
    RevokeParticipant,
)
from rules.study import consent
from tests.unit.study.test_participant_pages import TOKEN, _client

COMPLETED = "workflow execution already completed"


class EndedStudy:
    """A study whose workflow has ended: queries still answer (a worker replays it), updates do not."""

    id = "study-x"

    def __init__(self, link: LinkView, member: MemberCheckView | None = None,
                 status: WorkflowExecutionStatus = WorkflowExecutionStatus.COMPLETED) -> None:
        self.link, self.member, self.status = link, member, status

    async def query(self, name: str, arg: Any = None, result_type: Any = None) -> Any:
        return {QUERY_LINK: self.link, QUERY_MEMBER_CHECK: self.member}[name]

    async def execute_update(self, name: str, arg: Any, result_type: Any = None) -> Any:
        raise RPCError(COMPLETED, RPCStatusCode.NOT_FOUND, b"")

    async def describe(self) -> Any:
        return SimpleNamespace(status=self.status, task_queue="colloquy")




def _consented() -> dict[str, str]:
    return {"language": "en", "consent": "yes", "consent_language": "en",
            "consent_sha256": consent.sha256(consent.BUILT_IN["en"])}


@pytest.mark.parametrize(("status", "code", "says"), [("closed", 410, "This study is closed."),
                                                      ("revoked", 403, "This link has been revoked.")])
async def test_a_link_posted_after_the_study_ended_says_what_is_true(status: str, code: int, says: str):
    http = await _client(EndedStudy(LinkView(status=status, participant_id="P001")))  # type: ignore[arg-type]
    try:
        r = await http.post("/study/s/join/tok", data=_consented(), allow_redirects=False)
        page = await r.text()
        assert r.status == code and says in page and "not valid" not in page
    finally:
        await http.close()


async def test_an_unknown_link_of_an_ended_study_is_still_not_valid():
    http = await _client(EndedStudy(LinkView(status="unknown")))
    try:
        r = await http.post("/study/s/join/tok", data=_consented(), allow_redirects=False)
        assert r.status == 404 and "This study link is not valid." in await r.text()
    finally:
        await http.close()


async def test_the_read_back_door_after_the_study_ended_answers_409_not_503():
    http = await _client(EndedStudy(LinkView(status="completed"), MemberCheckView(status="completed",
                                                                                  participant_id="P001")))
    try:
        r = await http.post("/study/s/check/tok", json={"action": "checked"}, headers={"X-Colloquy-CSRF": "page"})
        body = await r.json()
        assert r.status == 409 and body["error"] == ("the study has closed: answers can no longer be corrected or "
                                                     "withdrawn")
    finally:
        await http.close()


async def test_the_plan_door_after_the_study_ended_answers_409_not_503():
    http = await _client(EndedStudy(LinkView(status="unknown")))
    try:
        r = await http.post("/api/studies/s/plan", json={"action": "approve"}, headers={
            "Authorization": f"Bearer {TOKEN}", "X-Colloquy-CSRF": "x"})
        assert r.status == 409 and "has ended (completed)" in (await r.json())["error"]
    finally:
        await http.close()


@pytest.mark.parametrize(("status", "word"), [(WorkflowExecutionStatus.COMPLETED, "completed"),
                                              (WorkflowExecutionStatus.TERMINATED, "terminated")])
async def test_an_update_to_an_ended_study_is_one_clear_line_with_exit_code_4(status, word):
    study = EndedStudy(LinkView(status="unknown"), status=status)
    with pytest.raises(CliError) as err:
        await study_update(study, UPDATE_REVOKE_PARTICIPANT, RevokeParticipant(participant_id="P001"),  # type: ignore[arg-type]
                           ParticipantView, "nothing to revoke")
    assert err.value.message == f"study study-x has ended ({word}): nothing to revoke"
    assert err.value.code == ExitCode.REFUSED and COMPLETED not in err.value.message


async def test_an_update_to_an_unknown_study_stays_not_found():
    class Unknown(EndedStudy):
        async def describe(self) -> Any:
            raise RPCError("workflow not found", RPCStatusCode.NOT_FOUND, b"")

    with pytest.raises(RPCError):
        await study_update(Unknown(LinkView(status="unknown")), UPDATE_REVOKE_PARTICIPANT,  # type: ignore[arg-type]
                           RevokeParticipant(participant_id="P001"), ParticipantView, "nothing to revoke")


PLAN = PlanSnapshot(topic="On-call", research_goal="g", angle="a", sections=[
    SectionSnapshot(id="s1", title="Origins", questions=[QuestionSnapshot(id="q1", text="How did you start?")])])


@pytest.mark.parametrize("shape", ["plan", "nulls", "review", "cli"])
def test_the_plan_from_the_plan_review_query_is_taken_by_review_plan_file(tmp_path, shape: str):
    """What `plan_review` answers (a PlanReview; the Temporal CLI prints it in a list under queryResult; absent
    values as null, e.g. `required_dimensions: null`) is a plan file `study review --plan-file` takes."""
    plan = json.loads(PLAN.model_dump_json())
    plan["sections"][0].update(required_dimensions=None, followup_pool=None, allowed_actions=None,
                               primary_prompt=None, duration_seconds=None)
    review = json.loads(PlanReview(review=True, approved=False, plan=PLAN, edits=0).model_dump_json())
    review["plan"] = plan
    data = {"plan": json.loads(PLAN.model_dump_json()), "nulls": plan, "review": review,
            "cli": {"queryResult": [review]}}[shape]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_plan(path)
    assert loaded.sections[0].questions[0].text == "How did you start?"
    assert loaded.sections[0].required_dimensions == [] and loaded.sections[0].allowed_actions
