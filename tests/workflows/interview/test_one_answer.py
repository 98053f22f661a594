"""What the person sent is what the engine answers (issue 35): one long answer sent in parts is one answer and one
decision; the question answered is the one the person saw (a late answer never displaces the question in force);
no decision within the bound puts the fallback's question in force ("model slow"). Each on the time-skipping
server, the parts sent as `join`, `rehearse` and the room send them."""

from __future__ import annotations

import asyncio
import json
import uuid

from activities.artifacts import store
from models.interview.entries import SubmitEntryResult, TranscriptEntry
from models.interview.names import UPDATE_SUBMIT_ENTRY
from rules.interview.answer_parts import split_answer
from tests.workflows.interview.helpers import (
    adaptive_plan,
    control,
    decision,
    events,
    of_type,
    say,
    start,
    state,
)

LIMIT = 300
LONG = " ".join(f"Sentence {i} of a long answer about the pager rotation and what it did to the team." for i in range(14))
FOLLOW_UPS = [decision(f"What happened after step {i}?", source="gap") for i in range(20)]


async def _part(handle, entry_id: str, text: str, **fields) -> SubmitEntryResult:
    entry = TranscriptEntry(entry_id=entry_id, speaker="interviewee", text=text, **fields)
    return await handle.execute_update(UPDATE_SUBMIT_ENTRY, entry, result_type=SubmitEntryResult)


async def _presented_after(handle, event_id: int) -> list:
    return [e for e in of_type(await events(handle), "PROMPT_PRESENTED", "FOLLOWUP_PRESENTED") if e.event_id > event_id]


async def _settled(ts_env, handle, seconds: float = 6) -> None:
    await ts_env.sleep(seconds)
    for _ in range(50):           # the cycle's activities run in real time: let the last one land
        if "waiting for the answer to" in (await state(handle)).waiting_for:
            return
        await asyncio.sleep(0.1)


async def _next_section(ts_env, handle):
    """Let time run to the next section (its question in force)."""
    first = (await state(handle)).current_section.id
    for _ in range(40):
        await ts_env.sleep(4)
        now = await state(handle)
        if now.current_section.id != first:
            await _settled(ts_env, handle, 0.5)
            return await state(handle)
    raise AssertionError("the section never changed")


async def _first_question(ts_env, handle) -> int:
    for _ in range(100):
        now = await state(handle)
        if now.question_entry_id:
            return now.question_event_id
        await asyncio.sleep(0.05)
    raise AssertionError("no question in force")


async def test_an_answer_in_parts_as_open_rooms_send_it_is_one_answer(ts_env, worker, offline):
    """`X`, `X-2`, `X-3`, … (a room opened before parts carried their place): one answer, one decision, one new
    question (before: each part was an answer — 4 parts put 3 questions in force, never asked)."""
    parts = split_answer(LONG, LIMIT)
    assert len(parts) >= 4 and all(len(p) > LIMIT // 2 for p in parts[:-1])
    offline.script("interview_orchestrator", decision("How did you end up carrying the pager?", qid="q-origin"),
                   *FOLLOW_UPS)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, max_entry_chars=LIMIT)
        first = await _first_question(ts_env, h)
        for i, text in enumerate(parts):
            await _part(h, "ans1" if i == 0 else f"ans1-{i + 1}", text)
            await asyncio.sleep(0.3)      # as a client sends them: one after the other
        await _settled(ts_env, h)
        presented = await _presented_after(h, first)
        now = await state(h)
        await control(h, "end")
        await h.result()
    assert len(presented) == 1, [e.payload["text"] for e in presented]
    assert now.question_event_id == presented[0].event_id       # ... and it waits for its answer


async def test_an_answer_in_numbered_parts_is_decided_after_the_last(ts_env, worker, offline):
    """Parts that say which they are (`answer_id`, `part`, `parts`): the engine waits for the last one, however
    slowly they come (within the bound), then decides once."""
    parts = split_answer(LONG, LIMIT)
    offline.script("interview_orchestrator", decision("How did you end up carrying the pager?", qid="q-origin"),
                   *FOLLOW_UPS)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, max_entry_chars=LIMIT)
        first = await _first_question(ts_env, h)
        for i, text in enumerate(parts):
            await _part(h, f"ans2-p{i + 1}", text, answer_id="ans2", part=i + 1, parts=len(parts))
            await ts_env.sleep(4)         # a slow link: seconds between the parts
        await _settled(ts_env, h)
        presented = await _presented_after(h, first)
        await control(h, "end")
        await h.result()
    assert len(presented) == 1, [e.payload["text"] for e in presented]


async def test_a_part_after_the_decision_does_not_answer_the_new_question(ts_env, worker, offline):
    """A part that comes after the engine already decided (a client slower than the settle time) continues the
    answer it belongs to: it neither answers nor replaces the question now in force."""
    offline.script("interview_orchestrator", decision("How did you end up carrying the pager?", qid="q-origin"),
                   *FOLLOW_UPS)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, max_entry_chars=LIMIT)
        await _first_question(ts_env, h)
        await _part(h, "ans3", "Short first part of my answer, sent on its own.")
        await _settled(ts_env, h)
        shown = await state(h)
        await _part(h, "ans3-2", "And the rest of it, which came much later.")
        await _settled(ts_env, h)
        after = await state(h)
        await control(h, "end")
        await h.result()
    assert after.question_event_id == shown.question_event_id and after.next_question == shown.next_question


async def test_a_late_answer_does_not_replace_the_new_sections_question(ts_env, worker, offline):
    """Within the grace after `origins` ran out: an answer stamped with origins' question is filed late to origins,
    and the question `practice` put in force stays until it is answered (before: it was replaced at once)."""
    offline.script("interview_orchestrator", decision("How did you end up carrying the pager?", qid="q-origin"),
                   decision("How do you measure whether an on-call rotation is healthy?", qid="q-measure"),
                   *FOLLOW_UPS)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, duration_seconds=120)
        await _first_question(ts_env, h)
        seen = await state(h)
        assert seen.current_section.id == "origins"
        new = await _next_section(ts_env, h)
        assert new.current_section.id == "practice" and new.question_entry_id != seen.question_entry_id
        late = await _part(h, uuid.uuid4().hex[:8], "About the pager: nobody else wanted it.",
                           reply_to_section_id="origins")
        await _settled(ts_env, h, 3)
        after = await state(h)
        await control(h, "end")
        await h.result()
    assert (late.entry.section_id, late.entry.late) == ("origins", True)
    assert after.question_entry_id == new.question_entry_id


async def test_an_answer_stamped_with_the_question_it_began_on_is_filed_there(ts_env, worker, offline):
    """The client stamps the question on screen when the person began answering (`reply_to_question_id`): pressed
    Enter after the section changed, it is filed late to the question seen, and the new one stays in force."""
    offline.script("interview_orchestrator", decision("How did you end up carrying the pager?", qid="q-origin"),
                   decision("How do you measure whether an on-call rotation is healthy?", qid="q-measure"),
                   *FOLLOW_UPS)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, duration_seconds=120)
        await _first_question(ts_env, h)
        seen = await state(h)
        new = await _next_section(ts_env, h)
        late = await _part(h, uuid.uuid4().hex[:8], "About the pager: nobody else wanted it.",
                           reply_to_question_id=seen.question_entry_id)
        await _settled(ts_env, h, 3)
        after = await state(h)
        on_time = await _part(h, uuid.uuid4().hex[:8], "We count pages per week.",
                              reply_to_question_id=new.question_entry_id)
        await control(h, "end")
        await h.result()
    assert (late.entry.section_id, late.entry.late) == ("origins", True)
    assert after.question_entry_id == new.question_entry_id
    assert (on_time.entry.section_id, on_time.entry.late) == ("practice", False)


async def test_no_decision_within_the_bound_puts_the_fallback_in_force(ts_env, worker, offline):
    """A slow model: the answer's decision has not come within `decision_deadline_seconds` — the fallback's
    question is put in force (the plan's next), counted (event log, state, evaluation bundle), and the console is
    told; the late decision is dropped. (Counted from the first question on: on a busy machine even the first
    decision may miss a 2 s bound — then it is the fallback's too, and counted.)"""
    offline.script("interview_orchestrator", decision("How did you end up carrying the pager?", qid="q-origin"),
                   *FOLLOW_UPS)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, decision_deadline_seconds=2)
        first = await _first_question(ts_env, h)
        before = (await state(h)).slow_decisions
        offline.set_latency(5, "interview_orchestrator")
        await say(h, "interviewee", "Nobody else wanted it, so I took it.")
        await _settled(ts_env, h, 3)
        now = await state(h)
        await asyncio.sleep(5.5)          # the late decision lands: it changes nothing
        later = await state(h)
        presented = await _presented_after(h, first)
        slow = [e for e in of_type(await events(h), "DECISION_SLOW") if e.event_id > first]
        await control(h, "end")
        result = await h.result()
    assert now.decision_method == "fallback" and now.model_slow and now.slow_decisions == before + 1
    assert len(presented) == 1 and presented[0].payload["method"] == "fallback"
    assert later.question_event_id == now.question_event_id
    assert len(slow) == 1 and slow[0].payload["count"] == before + 1
    assert json.loads(store().get(result.evaluation_bundle))["slow_decisions"] == before + 1


async def test_rehearse_sends_a_long_answer_as_one_answer_stamped_with_its_question(ts_env, worker, offline):
    """`rehearse`: a long answer goes in numbered parts stamped with the question it answers; the engine puts one
    question in force after it, not one per part."""
    from client.interview.cli import RehearsalOptions, TranscriptAnswers, rehearse
    from models.interview.entries import TranscriptView
    from models.interview.names import QUERY_TRANSCRIPT

    offline.script("interview_orchestrator", *FOLLOW_UPS)
    answers = ["Short first answer about the pager.", LONG, "A short last answer."]
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, max_entry_chars=LIMIT,
                        duration_seconds=3600)
        report = await rehearse(ts_env.client, h.id, TranscriptAnswers(answers),
                                RehearsalOptions(fresh_question_timeout=10, poll_seconds=0.05, close_when_done=False))
        view = await h.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        await control(h, "end")
        await h.result()
    entries = view.entries
    long_parts = [e for e in entries if e.speaker == "interviewee" and e.parts]
    assert len(long_parts) == len(split_answer(LONG, LIMIT)) and [e.continues for e in long_parts][1:] == \
        [True] * (len(long_parts) - 1)
    asked_before = [e for e in entries if e.speaker == "interviewer" and e.seq < long_parts[0].seq][-1]
    assert {e.reply_to_question_id for e in long_parts} == {asked_before.entry_id}
    between = [e for e in entries if long_parts[0].seq < e.seq < long_parts[-1].seq and e.speaker == "interviewer"]
    assert not between and report.turns == 3 and not report.rejected
