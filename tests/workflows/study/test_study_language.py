"""A study whose default language is not English (issue 37, item 3), on the time-skipping server: the study's
Planner is asked for the plan in that language, and the participant's interview is started in it, so the
Orchestrator is told the language. The offline double's plan is English and claims no language: the study's
Japanese participants get it through the Translator like any other language's (offline: labelled as not
translated) — before, they got the English plan unlabelled. The run's history is recorded (tests/histories/
study_default_language.json, the patch `study-plan-language`) and replays.

Re-record after an intended workflow change (and say so in the commit):
    COLLOQUY_RECORD_HISTORIES=1 .venv/bin/pytest -q tests/workflows/study/test_study_language.py
"""

from __future__ import annotations

import os

import pytest

from models.interview.names import QUERY_PLAN
from models.interview.plan import PlanSnapshot
from models.study.workflow import UPDATE_OPEN_LINK, UPDATE_REVOKE_PARTICIPANT, OpenedLink, RevokeParticipant
from tests.conftest import HISTORIES, replay
from tests.workflows.study.helpers import invite, opening, sha, start_study

JA = "Japanese (日本語, ja)"
RECORD = os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1"
NAME = "study_default_language"
STUDY_ID = "study-default-language"


async def test_a_japanese_study_asks_its_planner_and_its_interviewer_in_japanese(ts_env, worker, offline):
    client = ts_env.client
    async with worker(client) as queue:
        h = await start_study(client, queue, STUDY_ID, plan=None, default_language="ja", quota=1)
        people = await invite(h, 1)
        opened = await h.execute_update(UPDATE_OPEN_LINK, opening(sha(people[0][1]), "ja"), result_type=OpenedLink)
        assert opened.language == "ja"
        child = client.get_workflow_handle(opened.interview_id)
        plan = None
        while plan is None:
            plan = await child.query(QUERY_PLAN, result_type=PlanSnapshot)
        await ts_env.sleep(11)                                  # the interview's first live cycle
        planner = offline.calls("interview_planner")
        translator = offline.calls("study_translate")
        orchestrator = offline.calls("interview_orchestrator")
        await h.execute_update(UPDATE_REVOKE_PARTICIPANT, RevokeParticipant(participant_id=people[0][0]))
        await child.result()
        await h.terminate("test over")
        await replay(h, record_as=NAME if RECORD else None)
    assert planner and f"The interview is held in {JA}" in planner[0].messages[0]["content"]
    # the double's plan is English: translated for the Japanese participant (the double: labelled, not translated)
    assert len(translator) == 1 and plan.language is None
    assert all(q.text.startswith("[ja — not translated: offline test double] ")
               for sec in plan.sections for q in sec.questions)
    assert orchestrator and all(f"The interview is held in {JA}" in c.messages[0]["content"] for c in orchestrator)


@pytest.mark.skipif(not (HISTORIES / f"{NAME}.json").exists(), reason="no recorded history yet")
async def test_the_recorded_default_language_study_replays():
    from temporalio.client import WorkflowHistory
    from temporalio.contrib.pydantic import pydantic_data_converter
    from temporalio.worker import Replayer

    from workers import registry

    history = WorkflowHistory.from_json(STUDY_ID, (HISTORIES / f"{NAME}.json").read_text())
    await Replayer(workflows=registry.workflows(), data_converter=pydantic_data_converter).replay_workflow(history)
