"""StudyWorkflow on the time-skipping server: the close-date timer, update validators (revoked, unknown, closed),
the link query, a bounded history (continue-as-new with the ledger carried), replay."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.service import RPCError

from models.interview.names import QUERY_PLAN
from models.interview.plan import PlanSnapshot
from models.interview.workflow import InterviewResult
from models.study.workflow import (
    QUERY_FINDINGS_DRAFT,
    QUERY_LINK,
    QUERY_PROGRESS,
    UPDATE_ADD_PARTICIPANTS,
    UPDATE_OPEN_LINK,
    UPDATE_REVOKE_PARTICIPANT,
    AddParticipants,
    Findings,
    Invitation,
    LinkView,
    OpenedLink,
    OpenLink,
    RevokeParticipant,
    StudyProgress,
)
from tests.conftest import replay
from tests.workflows.study.helpers import invite, opening, sha, start_study, token


async def test_close_date_timer_revoked_and_unknown_links(ts_env, worker):
    client = ts_env.client
    async with worker(client) as queue:
        now = await _now(ts_env)
        h = await start_study(client, queue, "study-close-date", close_at=now + timedelta(days=3))
        people = await invite(h, 3, language="de")
        assert [p for p, _ in people] == ["P001", "P002", "P003"]
        revoked = await h.execute_update(UPDATE_REVOKE_PARTICIPANT, RevokeParticipant(participant_id="P002"))
        assert revoked["status"] == "revoked"
        _, t2 = people[1]
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await h.execute_update(UPDATE_OPEN_LINK, OpenLink(token_sha256=hashlib.sha256(t2.encode()).hexdigest()))
        assert "this link has been revoked" in str(err.value.cause)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await h.execute_update(UPDATE_OPEN_LINK, OpenLink(token_sha256=token()[1]))
        assert "no such study link" in str(err.value.cause)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await h.execute_update(UPDATE_REVOKE_PARTICIPANT, RevokeParticipant(participant_id="P009"))
        assert "no participant 'P009'" in str(err.value.cause)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await h.execute_update(UPDATE_ADD_PARTICIPANTS, {"invitations": [{"token_sha256": "nope"}]})
        assert "token_sha256" in str(err.value.cause)
        link = await h.query(QUERY_LINK, hashlib.sha256(people[0][1].encode()).hexdigest(), result_type=LinkView)
        assert link.status == "invited" and link.participant_id == "P001" and link.language == "de"

        # revoking a participant whose interview runs ends it (withdrawn: not analysed)
        with pytest.raises(WorkflowUpdateFailedError) as err:          # no consent: refused, nothing started
            await h.execute_update(UPDATE_OPEN_LINK, OpenLink(token_sha256=sha(people[2][1])))
        assert "consent is required" in str(err.value.cause)
        assert (await h.query(QUERY_LINK, sha(people[2][1]), result_type=LinkView)).status == "invited"
        opened = await h.execute_update(UPDATE_OPEN_LINK, opening(sha(people[2][1]), "de"), result_type=OpenedLink)
        assert opened.interview_id == "study-close-date--P003" and opened.language == "de" and opened.new
        again = await h.execute_update(UPDATE_OPEN_LINK, OpenLink(token_sha256=sha(people[2][1])),
                                       result_type=OpenedLink)
        assert again.interview_id == opened.interview_id and not again.new
        child = client.get_workflow_handle(opened.interview_id, result_type=InterviewResult)
        plan = await child.query(QUERY_PLAN, result_type=PlanSnapshot)
        assert all(q.text.startswith("[de — not translated: offline test double] ")
                   for sec in plan.sections for q in sec.questions)
        await h.execute_update(UPDATE_REVOKE_PARTICIPANT, RevokeParticipant(participant_id="P003"))
        withdrawn = await child.result()
        assert withdrawn.exit_reason == "ended_by_client"

        await ts_env.sleep(timedelta(days=3, minutes=1))
        result = await h.result()
        progress = await h.query(QUERY_PROGRESS, result_type=StudyProgress)
        findings = await h.query(QUERY_FINDINGS_DRAFT, result_type=Findings)
        # finished: nothing more is taken
        with pytest.raises((WorkflowUpdateFailedError, RPCError)):
            await h.execute_update(UPDATE_ADD_PARTICIPANTS, AddParticipants(invitations=[Invitation(
                token_sha256=token()[1])]))
        await replay(h)
    assert result.closed_reason.startswith("close date reached") and result.completed == 0 and result.revoked == 2
    assert result.outputs is not None and result.outputs.report_html.name == "report.html"
    assert progress.phase == "done" and progress.invited == 3 and progress.revoked == 2
    assert findings.status == "final" and findings.completed == 0


async def test_the_ledger_survives_continue_as_new(ts_env, worker):
    client = ts_env.client
    async with worker(client) as queue:
        h = await start_study(client, queue, "study-can", quota=5, continue_as_new_after_events=100)
        people = []
        for _ in range(40):
            people += await invite(h, 2)
        progress = await h.query(QUERY_PROGRESS, result_type=StudyProgress)
        last = hashlib.sha256(people[-1][1].encode()).hexdigest()
        link = await h.query(QUERY_LINK, last, result_type=LinkView)
        desc = await h.describe()
    assert progress.invited == 80 and progress.continued >= 1, progress
    assert link.participant_id == "P080" and link.status == "invited"
    assert desc.run_id != h.result_run_id    # a later run of the same study


async def _now(env):
    from datetime import UTC, datetime

    return datetime.now(UTC)


async def test_plan_review_consent_recorded_and_the_export_ledger(ts_env, worker):
    """`review=True`: the links stay shut (the page says so) until the researcher approves; an edit is validated
    and kept; the consent (language, SHA-256 of the text shown, when) is in the ledger and the export."""
    from models.study.workflow import (
        QUERY_EXPORT,
        QUERY_PLAN_REVIEW,
        UPDATE_REVIEW_PLAN,
        ConsentGiven,
        PlanReview,
        ReviewPlan,
        StudyExport,
    )
    from rules.study import consent
    from tests.workflows.study.helpers import short_plan

    client = ts_env.client
    async with worker(client) as queue:
        h = await start_study(client, queue, "study-review", quota=3, review=True,
                              consent={"en": "I agree (en v1).", "de": "Ich stimme zu (de v1)."})
        people = await invite(h, 2)
        review = await h.query(QUERY_PLAN_REVIEW, result_type=PlanReview)
        assert review.review and not review.approved and review.plan is not None
        assert (await h.query(QUERY_PROGRESS, result_type=StudyProgress)).phase == "reviewing"
        assert (await h.query(QUERY_LINK, sha(people[0][1]), result_type=LinkView)).status == "not_open"
        given = ConsentGiven(language="de", sha256=consent.sha256("Ich stimme zu (de v1)."))
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await h.execute_update(UPDATE_OPEN_LINK, OpenLink(token_sha256=sha(people[0][1]), language="de",
                                                              consent=given))
        assert "still being reviewed" in str(err.value.cause)
        bad = short_plan()
        bad.sections[1].questions[0].id = bad.sections[0].questions[0].id
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await h.execute_update(UPDATE_REVIEW_PLAN, ReviewPlan(action="edit", plan=bad))
        assert "used twice" in str(err.value.cause)
        edited = short_plan()
        edited.sections[0].questions[0].text = "How did you first come to carry the pager?"
        review = await h.execute_update(UPDATE_REVIEW_PLAN, ReviewPlan(action="edit", plan=edited),
                                        result_type=PlanReview)
        assert review.edits == 1 and review.plan is not None
        assert review.plan.sections[0].questions[0].text == "How did you first come to carry the pager?"
        await h.execute_update(UPDATE_REVIEW_PLAN, ReviewPlan(action="approve"), result_type=PlanReview)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await h.execute_update(UPDATE_REVIEW_PLAN, ReviewPlan(action="edit", plan=edited))
        assert "already approved" in str(err.value.cause)
        stale = ConsentGiven(language="de", sha256=consent.sha256("an older text"))
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await h.execute_update(UPDATE_OPEN_LINK, OpenLink(token_sha256=sha(people[0][1]), language="de",
                                                              consent=stale))
        assert "consent text has changed" in str(err.value.cause)
        opened = await h.execute_update(UPDATE_OPEN_LINK, OpenLink(token_sha256=sha(people[0][1]), language="de",
                                                                   consent=given), result_type=OpenedLink)
        child = client.get_workflow_handle(opened.interview_id, result_type=InterviewResult)
        plan = await child.query(QUERY_PLAN, result_type=PlanSnapshot)
        exported = await h.query(QUERY_EXPORT, result_type=StudyExport)
        await h.execute_update(UPDATE_REVOKE_PARTICIPANT, RevokeParticipant(participant_id="P001"))
        await replay(h)
    assert any("How did you first come to carry the pager?" in q.text for s in plan.sections for q in s.questions)
    record = exported.participants[0].consent
    assert record is not None and record.language == "de" and record.sha256 == given.sha256 and record.at
    assert exported.consent["de"] == "Ich stimme zu (de v1)."
