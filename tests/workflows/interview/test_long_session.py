"""A 3-hour session: continue-as-new carries the state; old entries, events and log lines move to artifacts;
nothing is lost or duplicated; ids stay monotonic across runs; a replayed entry id is still recognised."""

from __future__ import annotations

import json

from activities.artifacts import store
from models.interview.names import QUERY_EVENT_LOG
from models.interview.workflow import EventLogPage, InterviewResult
from tests.workflows.interview.helpers import adaptive_plan, decision, say, state
from tests.workflows.interview.test_generated_scenarios import delivered

HOURS = 3
EXCHANGES = 33      # one every 5 minutes, into the wrap-up (85 % of 3 hours)


async def test_three_hour_session_continues_as_new_without_losing_anything(ts_env, worker, offline):
    # a new question after each answer (the offline double's plan would be used up within the session: it would end)
    offline.script("interview_orchestrator", *[decision(f"What happened in week {n}?", source="gap") for n in range(200)])
    async with worker(ts_env.client) as queue:
        from tests.workflows.interview.helpers import start

        h = await start(ts_env, queue, plan=adaptive_plan(), duration_seconds=HOURS * 3600, cycle_seconds=60,
                        continue_as_new_after_events=150, write_essay=False)
        first = await say(h, "interviewer", "Question 0: how did it start?", entry_id="q-0")
        first_run = first.entry.session_id
        for i in range(EXCHANGES):    # (sent as the clients' outboxes do: again if the run was continuing as new)
            await delivered(h, lambda i=i: say(h, "interviewee", f"answer {i}: we kept a paper log of every page "
                                               f"for a year.", entry_id=f"a-{i}"))
            await ts_env.sleep(5 * 60)
            await delivered(h, lambda i=i: say(h, "interviewer", f"Question {i + 1}: what happened next?",
                                               entry_id=f"q-{i + 1}"))
        dup = await delivered(h, lambda: say(h, "interviewee", "answer 0 again", entry_id="a-0"))  # from run 1
        mid = await state(h)
        result: InterviewResult = await h.result()
        page = await h.query(QUERY_EVENT_LOG, 0, result_type=EventLogPage)
    assert dup.duplicate
    assert mid.status == "IN_PROGRESS" and mid.phase == "wrap_up"
    assert result.status == "COMPLETED" and result.exit_reason == "time_expired"
    transcript = json.loads(store().get(result.transcript))
    sent = [e["entry_id"] for e in transcript if e["client_id"] != "engine"]      # (and the engine's own questions)
    assert sent == ["q-0"] + [x for i in range(EXCHANGES) for x in (f"a-{i}", f"q-{i + 1}")]
    assert [e["seq"] for e in transcript] == list(range(1, len(transcript) + 1)) and result.entries == len(transcript)
    assert {e["session_id"] for e in transcript} == {first_run}        # the workflow id, stable across runs
    exported = [json.loads(line) for line in store().get(result.event_log).splitlines()]
    assert [e["event_id"] for e in exported] == list(range(1, len(exported) + 1))
    runs = [e for e in exported if e["type"] == "CONTINUED_AS_NEW"]
    assert len(runs) >= 2 and [e["payload"]["run"] for e in runs] == list(range(1, len(runs) + 1))
    assert [e["type"] for e in exported].count("INTERVIEW_STARTED") == 1
    assert len([e for e in exported if e["type"] == "SECTION_ENDED"]) == 2
    # the live query keeps a bounded tail and points at the archived segments
    assert page.archived and page.first_event_id_in_memory > 1 and page.last_event_id == exported[-1]["event_id"]
    archived_ids = [json.loads(line)["event_id"] for ref in page.archived for line in store().get(ref).splitlines()]
    assert archived_ids == list(range(1, page.first_event_id_in_memory))
    started = next(e for e in exported if e["type"] == "INTERVIEW_STARTED")
    assert started["payload"]["duration_seconds"] == HOURS * 3600
