"""Issue 35's changes (one answer in parts, the question seen, the decision deadline) are behind `workflow.patched`:
histories recorded before them replay (`interview_question_text`, test_replay_question_text… and the others), and
`interview_one_answer`, recorded once with the change running the scenario below, walks every new path — an answer in
unnumbered parts (`X`, `X-2`, …: the settle timer), one in numbered parts, a decision past its deadline (the
fallback's question; the late decision dropped), and a late answer stamped with the previous section's question.
Re-record it (`RECORD=1`) only when the new paths change on purpose."""

from __future__ import annotations

import asyncio
import os

from models.interview.entries import SubmitEntryResult, TranscriptEntry
from models.interview.names import UPDATE_SUBMIT_ENTRY
from rules.interview.answer_parts import split_answer
from tests.conftest import replay, replay_recorded
from tests.workflows.interview.helpers import adaptive_plan, control, decision, start, state

LONG = " ".join(f"Sentence {i} of a long answer about the pager rotation and what it did to the team." for i in range(8))


async def _send(h, entry_id: str, text: str, **fields) -> SubmitEntryResult:
    entry = TranscriptEntry(entry_id=entry_id, speaker="interviewee", text=text, **fields)
    return await h.execute_update(UPDATE_SUBMIT_ENTRY, entry, result_type=SubmitEntryResult)


async def one_answer_scenario(env, queue, offline):
    offline.script("interview_orchestrator", decision("How did you end up carrying the pager?", qid="q-origin"),
                   *[decision(f"What happened after step {i}?", source="gap") for i in range(10)])
    h = await start(env, queue, plan=adaptive_plan(), duration_seconds=120, write_essay=False, max_entry_chars=300,
                    decision_deadline_seconds=2)
    while not (await state(h)).question_entry_id:
        await asyncio.sleep(0.05)
    parts = split_answer(LONG, 300)
    for i, text in enumerate(parts):                                   # unnumbered parts: the settle timer
        await _send(h, "a1" if i == 0 else f"a1-{i + 1}", text)
    await env.sleep(5)
    for i, text in enumerate(parts):                                   # numbered parts
        await _send(h, f"a2-{i}", text, answer_id="a2", part=i + 1, parts=len(parts))
    await env.sleep(5)
    seen = (await state(h)).question_entry_id
    offline.set_latency(3, "interview_orchestrator")                  # a slow model: the deadline's fallback
    await _send(h, "a3", "Short answer.", reply_to_question_id=seen)
    await asyncio.sleep(4)
    offline.set_latency(0, "interview_orchestrator")
    await env.sleep(5)
    before = (await state(h)).current_section.id
    while (now := await state(h)).current_section.id == before:        # the next section: a late answer
        await env.sleep(5)
    await _send(h, "a4", "About the earlier question, after all.", reply_to_question_id=seen)
    await env.sleep(3)
    assert (await state(h)).question_entry_id == now.question_entry_id
    await control(h, "end")
    await h.result()
    return h


async def test_the_one_answer_history_replays():
    await replay_recorded("interview_one_answer")


async def test_one_answer_paths_replay(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        handle = await one_answer_scenario(ts_env, queue, offline)
        await replay(handle, record_as="interview_one_answer" if os.environ.get("RECORD") else None)
