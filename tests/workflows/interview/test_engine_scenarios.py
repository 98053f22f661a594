"""003 §13's eight required scenarios, in structured mode, on the time-skipping server."""

from __future__ import annotations

import json

import pytest

from activities.artifacts import store
from activities.llm.offline import Fault
from models.interview.workflow import InterviewResult
from tests.workflows.interview.helpers import (
    assessment,
    control,
    events,
    of_type,
    say,
    start,
    state,
    structured_sections,
)

NO_ESSAY = {"write_essay": False}


async def run_structured(env, queue, **fields):
    return await start(env, queue, mode="structured", sections=structured_sections(), **fields)


async def test_normal_flow_completes_all_sections_by_coverage(ts_env, worker, offline):
    offline.script("interview_orchestrator",
                   assessment(metrics="covered", failure_modes="partially_covered"),
                   assessment(failure_modes="covered"),
                   assessment(correctness="covered"),
                   assessment(reflection="covered"))
    async with worker(ts_env.client) as queue:
        h = await run_structured(ts_env, queue, **NO_ESSAY)
        first = await say(h, "candidate", "I would use a sliding window and watch p99 numbers closely.")
        assert first.section_id == "design" and first.status == "IN_PROGRESS"
        await ts_env.sleep(20)
        await say(h, "candidate", "If the store has problems we serve from a local copy for a while.")
        await ts_env.sleep(20)
        await say(h, "candidate", "Each request takes one token and a timer tops the bucket up.")
        await ts_env.sleep(20)
        await say(h, "candidate", "Next time I would start with the simplest thing that could work.")
        result: InterviewResult = await h.result()
        evts = await events(h)
    ended = of_type(evts, "SECTION_ENDED")
    assert [(e.section_id, e.payload["reason"]) for e in ended] == [
        ("design", "coverage_satisfied"), ("coding", "coverage_satisfied"), ("wrap", "coverage_satisfied")]
    started = of_type(evts, "SECTION_STARTED")
    assert [e.section_id for e in started] == ["design", "coding", "wrap"]
    # every boundary is explicit: SECTION_ENDED(previous) comes right before SECTION_STARTED(next)
    ids = [e.event_id for e in evts]
    for end_evt, start_evt in zip(ended[:-1], started[1:], strict=True):
        assert ids.index(start_evt.event_id) > ids.index(end_evt.event_id)
    follow = of_type(evts, "FOLLOWUP_PRESENTED")
    assert [e.payload["dimension"] for e in follow] == ["failure_modes"]
    assert result.status == "COMPLETED" and result.exit_reason == "coverage_satisfied"
    assert [e.type for e in evts][:3] == ["INTERVIEW_CREATED", "PLAN_READY", "INTERVIEW_STARTED"]
    assert [e.event_id for e in evts] == list(range(1, len(evts) + 1))
    assert all(a.timestamp <= b.timestamp for a, b in zip(evts, evts[1:], strict=False))


async def test_candidate_never_responds_every_section_times_out(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await run_structured(ts_env, queue)
        result = await h.result()
        evts = await events(h)
    assert [(e.section_id, e.payload["reason"]) for e in of_type(evts, "SECTION_ENDED")] == [
        ("design", "time_expired"), ("coding", "time_expired"), ("wrap", "time_expired")]
    warnings = [(e.section_id, e.payload["seconds_left"]) for e in of_type(evts, "SECTION_TIME_WARNING")]
    assert warnings == [("design", 120), ("design", 30), ("coding", 120), ("coding", 30), ("wrap", 30)]
    prompts = [e.payload["text"] for e in of_type(evts, "PROMPT_PRESENTED")]
    assert prompts == ["Design a rate limiter for our public API.", "Implement a token bucket.",
                       "What would you improve with more time?"]
    assert result.status == "COMPLETED" and result.exit_reason == "time_expired"
    assert result.essay is None and offline.calls() == []          # silence costs no LLM call at all
    start_evt = of_type(evts, "INTERVIEW_STARTED")[0]
    done = of_type(evts, "INTERVIEW_COMPLETED")[0]
    assert (done.timestamp - start_evt.timestamp).total_seconds() == pytest.approx(720 + 15, abs=0.5)  # + grace


async def test_late_answer_within_grace_goes_to_previous_section_then_next(ts_env, worker, offline):
    offline.script("interview_orchestrator", assessment(), assessment(), assessment())
    async with worker(ts_env.client) as queue:
        h = await run_structured(ts_env, queue, **NO_ESSAY)
        await say(h, "candidate", "Starting: a token bucket per API key.")
        await ts_env.sleep(305)
        late = await say(h, "candidate", "And one more thing about the design.")
        await ts_env.sleep(15)
        on_time = await say(h, "candidate", "Now for the code.")
        await control(h, "end")
        await h.result()
        evts = await events(h)
    assert (late.entry.section_id, late.entry.late) == ("design", True)
    assert (on_time.entry.section_id, on_time.entry.late) == ("coding", False)
    msgs = of_type(evts, "CANDIDATE_MESSAGE")
    assert [(e.section_id, e.payload["late"]) for e in msgs] == [("design", False), ("design", True), ("coding", False)]


async def test_disconnect_pauses_with_the_clock_running_and_reconnect_resumes_the_same_section(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await run_structured(ts_env, queue, **NO_ESSAY)
        await say(h, "interviewer", "Let's begin with the design.")
        before = await control(h, "disconnect")
        assert before.status == "PAUSED" and before.allowed_actions == ["resume", "reconnect", "end"]
        await ts_env.sleep(120)
        paused = await state(h)
        assert paused.status == "PAUSED" and paused.current_section.id == "design"
        assert paused.current_section.deadline == before.current_section.deadline     # the clock kept running
        calls_while_paused = len(offline.calls())
        await ts_env.sleep(60)
        assert len(offline.calls()) == calls_while_paused          # silence while paused: zero LLM calls
        resumed = await control(h, "reconnect")
        assert resumed.status == "IN_PROGRESS" and resumed.current_section.id == "design"
        assert resumed.current_section.deadline == before.current_section.deadline
        assert resumed.seconds_remaining_in_section < 125
        await control(h, "end")
        result = await h.result()
        evts = await events(h)
    assert len([e for e in of_type(evts, "SECTION_STARTED") if e.section_id == "design"]) == 1   # not restarted
    warning = of_type(evts, "SECTION_TIME_WARNING")[0]
    paused_evt, resumed_evt = of_type(evts, "SESSION_PAUSED")[0], of_type(evts, "SESSION_RESUMED")[0]
    assert paused_evt.timestamp < warning.timestamp < resumed_evt.timestamp   # T-2:00 fired during the pause
    assert not [e for e in of_type(evts, "AI_REQUEST") if paused_evt.timestamp <= e.timestamp <= resumed_evt.timestamp]
    assert resumed_evt.payload["paused_seconds"] >= 180
    assert result.exit_reason == "ended_by_client"


async def test_skip_attempt_gets_one_outline_prompt_then_candidate_done_ends_the_section(ts_env, worker, offline):
    offline.script("interview_orchestrator", assessment(metrics="partially_covered"))
    async with worker(ts_env.client) as queue:
        h = await run_structured(ts_env, queue, **NO_ESSAY)
        await say(h, "candidate", "Skip.")
        s = await control(h, "candidate_done")
        assert s.current_section.id == "design" and s.minimum_content_prompted
        assert s.next_question == "Please provide a brief outline so we can proceed."
        assert "Please provide a brief outline" in s.interviewer_instructions
        await say(h, "candidate", "Fine: one bucket per key in a shared store, refilled at a fixed rate, with "
                                  "a local fallback when the store is slow, and alerts on rejections.")
        s = await control(h, "candidate_done")
        assert s.current_section.id == "coding"
        await control(h, "end")
        await h.result()
        evts = await events(h)
    design_end = [e for e in of_type(evts, "SECTION_ENDED") if e.section_id == "design"][0]
    assert design_end.payload == design_end.payload | {"reason": "candidate_done", "minimum_content_met": True}
    asks = [e for e in of_type(evts, "PROMPT_PRESENTED") if e.payload.get("kind") == "minimum_content"]
    assert len(asks) == 1


async def test_followup_budget_exhausted_ends_the_section(ts_env, worker, offline):
    offline.script("interview_orchestrator", *[assessment(metrics="partially_covered")] * 3)
    async with worker(ts_env.client) as queue:
        h = await run_structured(ts_env, queue, **NO_ESSAY)
        for text in ("I would keep a counter per key.", "It counts requests per minute.", "That's all I have."):
            await say(h, "candidate", text)
            await ts_env.sleep(10)
        s = await state(h)
        await control(h, "end")
        await h.result()
        evts = await events(h)
    follow = [e for e in of_type(evts, "FOLLOWUP_PRESENTED") if e.section_id == "design"]
    assert [e.payload["text"] for e in follow] == ["What happens when the counter store is down?",
                                                   "How would you measure whether it works?"]
    assert [e.payload["budget_remaining"] for e in follow] == [1, 0]
    design_end = [e for e in of_type(evts, "SECTION_ENDED") if e.section_id == "design"][0]
    assert design_end.payload["reason"] == "followup_budget_exhausted"
    assert s.current_section.id == "coding"


async def test_interviewer_ai_failure_terminates_and_keeps_the_log(ts_env, worker, offline):
    offline.script("interview_orchestrator", Fault(kind="server_error"), Fault(kind="server_error"))
    async with worker(ts_env.client) as queue:
        h = await run_structured(ts_env, queue)
        await say(h, "candidate", "A token bucket per API key, stored in a shared cache.")
        result: InterviewResult = await h.result()
    assert result.status == "TERMINATED" and result.exit_reason == "system_error"
    assert "interviewer AI failed after one retry" in result.error
    assert len(offline.calls("interview_orchestrator")) == 2          # the first try and one retry
    assert result.essay is None
    exported = [json.loads(line) for line in store().get(result.event_log).splitlines()]
    types = [e["type"] for e in exported]
    assert "CANDIDATE_MESSAGE" in types and types.count("AI_FAILED") == 1
    assert types.index("INTERVIEW_TERMINATED") > types.index("AI_FAILED")
    assert exported[types.index("INTERVIEW_TERMINATED")]["payload"]["reason"] == "system_error"
    transcript = json.loads(store().get(result.transcript))
    assert [e["text"] for e in transcript if e["speaker"] == "interviewee"] == [
        "A token bucket per API key, stored in a shared cache."]
    assert [e["speaker"] for e in transcript][:1] == ["interviewer"]      # the primary prompt, recorded by the engine


async def _followups_for_one_run(env, worker, offline) -> list[tuple[str, str]]:
    offline.script("interview_orchestrator", assessment(metrics="partially_covered"),
                   assessment(failure_modes="partially_covered"), assessment(metrics="covered"))
    async with worker(env.client) as queue:
        h = await run_structured(env, queue, **NO_ESSAY)
        for text in ("A counter per key.", "We would alert when it rejects too much.", "Latency matters most."):
            await say(h, "candidate", text)
            await env.sleep(10)
        await control(h, "end")
        await h.result()
        evts = await events(h)
    offline.reset()
    return [(e.payload["dimension"], e.payload["text"]) for e in of_type(evts, "FOLLOWUP_PRESENTED")]


async def test_same_inputs_give_the_same_followups(ts_env, worker, offline):
    first = await _followups_for_one_run(ts_env, worker, offline)
    second = await _followups_for_one_run(ts_env, worker, offline)
    assert first == second and len(first) >= 2
