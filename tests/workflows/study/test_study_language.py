"""A study whose default language is not English (issue 37, item 3), on the time-skipping server: the study's
Planner is asked for the plan in that language, and the participant's interview is started in it, so the
Orchestrator is told the language even when the plan says none (the offline double's plan is English and claims no
language: its closing question stays English, honestly)."""

from __future__ import annotations

from models.interview.names import QUERY_PLAN
from models.interview.plan import PlanSnapshot
from models.study.workflow import UPDATE_OPEN_LINK, UPDATE_REVOKE_PARTICIPANT, OpenedLink, RevokeParticipant
from tests.workflows.study.helpers import invite, opening, sha, start_study

JA = "Japanese (日本語, ja)"


async def test_a_japanese_study_asks_its_planner_and_its_interviewer_in_japanese(ts_env, worker, offline):
    client = ts_env.client
    async with worker(client) as queue:
        h = await start_study(client, queue, "study-ja", plan=None, default_language="ja", quota=1)
        people = await invite(h, 1)
        opened = await h.execute_update(UPDATE_OPEN_LINK, opening(sha(people[0][1]), "ja"), result_type=OpenedLink)
        assert opened.language == "ja"
        child = client.get_workflow_handle(opened.interview_id)
        plan = None
        while plan is None:
            plan = await child.query(QUERY_PLAN, result_type=PlanSnapshot)
        await ts_env.sleep(11)                                  # the interview's first live cycle
        planner = offline.calls("interview_planner")
        orchestrator = offline.calls("interview_orchestrator")
        await h.execute_update(UPDATE_REVOKE_PARTICIPANT, RevokeParticipant(participant_id=people[0][0]))
        await child.result()
        await h.terminate("test over")
    assert planner and f"The interview is held in {JA}" in planner[0].messages[0]["content"]
    assert plan.language is None                    # the offline double wrote it: English, and it says no other
    assert orchestrator and all(f"The interview is held in {JA}" in c.messages[0]["content"] for c in orchestrator)
