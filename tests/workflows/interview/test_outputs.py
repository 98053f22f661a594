"""What an interview leaves behind: grounded section summaries (003 §7), code history and export bundles
(003 §2.2), the writer's three styles, search attributes and current details for the Web UI."""

from __future__ import annotations

import json

import pytest

from activities.artifacts import store
from core import search_attributes as sa
from models.interview.workflow import InterviewResult
from tests.workflows.interview.helpers import (
    assessment,
    control,
    events,
    of_type,
    say,
    start,
    structured_sections,
)

CODE = "def allow(bucket):\n    bucket.refill()\n    return bucket.take()"


async def test_section_summaries_code_history_and_bundles(ts_env, worker, offline):
    offline.script("interview_orchestrator", assessment(metrics="partially_covered"), assessment(correctness="covered"))
    offline.script("interview_section_summary",
                   {"section_id": "design", "key_points": ["a counter per api key in a shared cache",
                                                           "they migrated to Cassandra in 2019"],
                    "quotes": ["a counter per API key in a shared cache", "we never lose a request"],
                    "open_threads": ["what happens when the cache is down"]})
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, mode="structured", sections=structured_sections(), write_essay=False)
        await say(h, "candidate", "I would keep a counter per API key in a shared cache, when the cache is down we "
                                  "serve a local estimate.")
        await ts_env.sleep(10)
        await control(h, "candidate_done")
        code = await say(h, "candidate", CODE, kind="code")
        await ts_env.sleep(10)
        await control(h, "end")
        result: InterviewResult = await h.result()
        evts = await events(h)
        desc = await h.describe()
    assert code.entry.kind == "code" and code.entry.section_id == "coding"
    assert [e.payload["text"] for e in of_type(evts, "CANDIDATE_CODE_SUBMISSION")] == [CODE]
    summaries = json.loads(store().get(result.section_summaries))
    design = summaries[0]
    assert design["section_id"] == "design"
    assert design["key_points"] == ["a counter per api key in a shared cache"]          # invented fact dropped
    assert design["quotes"] == ["a counter per API key in a shared cache"]              # invented quote dropped
    assert design["open_threads"] == ["what happens when the cache is down"]
    replay_bundle = json.loads(store().get(result.replay_bundle))
    assert [c["text"] for c in replay_bundle["code_history"]] == [CODE]
    assert [e["event_id"] for e in replay_bundle["timeline"]] == [e.event_id for e in evts]
    evaluation = json.loads(store().get(result.evaluation_bundle))
    assert [s["exit_reason"] for s in evaluation["sections"]] == ["candidate_done", "coverage_satisfied", "interview_ended"]
    assert evaluation["sections"][0]["coverage_flags"]["metrics"] == "partially_covered"
    assert evaluation["plan"]["sections"][0]["followup_pool"]
    # the Web UI: search attributes
    attrs = desc.typed_search_attributes
    assert attrs.get(sa.PIPELINE) == "interview" and attrs.get(sa.TOPIC) == "Running on-call for a payments team"
    assert attrs.get(sa.STATUS) == "completed" and attrs.get(sa.PHASE) == "done"  # a finished interview leaves its phase


@pytest.mark.parametrize(("style", "marker"), [("standard", "Clean, balanced narrative"),
                                               ("punchy", "Twitter-thread energy"),
                                               ("reflective", "philosophical, more introspective")])
async def test_writer_styles_reach_the_prompt_and_the_essay_is_first_person_ghostwriting(ts_env, worker, offline,
                                                                                        style, marker):
    offline.script("interview_writer", f"# The hardest part ({style})\n\nThe hardest part wasn't the pager.")
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, style=style, duration_seconds=60)
        await say(h, "interviewee", "the hardest part was never the pager itself, it was the silence after.")
        result = await h.result()
    system = offline.calls("interview_writer")[-1].messages[0]["content"]
    assert marker in system and "first-person essay AS the interviewee" in system
    assert result.title == f"The hardest part ({style})"
