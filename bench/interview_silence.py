"""Silence costs nothing: LLM calls — and history events, timers included — while nobody speaks for 60 s, and
while the session is PAUSED for 60 s.

000: "Skipping NoteTaker/Researcher — no new content" and "Reusing previous Orchestrator decision" (< 30 s old);
003: a paused session keeps its clock running. The seed's expectation for a 60 s pause: zero LLM calls.
Time-skipping server (the 60 s are workflow time), workers in this process, offline provider counting calls.

    python -m bench.interview_silence [--cycle 10]
"""

from __future__ import annotations

import argparse
import asyncio
import uuid
from collections import Counter

from bench.interview_common import (
    ANSWERS,
    artifacts_in_tmp,
    quiet,
    show_question,
    time_skipping_server,
    workers,
)


async def run(cycle: float) -> None:
    from activities.llm import offline
    from client.interview.cli import control_session, session_state, submit_entry, wait_for_decision
    from models.interview.entries import TranscriptEntry
    from models.interview.workflow import InterviewInput

    quiet()
    offline.reset()
    async with artifacts_in_tmp(), time_skipping_server() as env, workers(env.client) as queue:
        inp = InterviewInput(topic="What on-call taught me", duration_seconds=1200, cycle_seconds=cycle)
        handle = await start(env, inp, queue)
        for turn, answer in enumerate(ANSWERS[:2], start=1):  # get the conversation going
            state = await session_state(handle)
            await show_question(handle, state, f"q{turn}")
            cursor = (await session_state(handle)).last_event_id
            await submit_entry(handle, TranscriptEntry(entry_id=f"a{turn}", speaker="interviewee", text=answer))
            await wait_for_decision(handle, f"a{turn}", cursor, 30, 0.05)

        before, h0 = len(offline.calls()), await history_events(handle)
        await env.sleep(60)                                   # 60 s in which nobody speaks after an answer
        after_answer = Counter(c.agent for c in offline.calls()[before:])
        h_after = (await history_events(handle)) - h0

        state = await session_state(handle)                   # the interviewer asks; the interviewee is silent
        await show_question(handle, state, "q-silent")
        await env.sleep(1)
        before, h0 = len(offline.calls()), await history_events(handle)
        await env.sleep(60)                                   # 60 s waiting for the answer
        silent = Counter(c.agent for c in offline.calls()[before:])
        h_silent = (await history_events(handle)) - h0
        s1 = await session_state(handle)

        await control_session(handle, "pause", "bench: a 60 s pause")
        before, h0 = len(offline.calls()), await history_events(handle)
        await env.sleep(60)                                   # 60 s PAUSED: the clock runs, nothing is asked
        paused = Counter(c.agent for c in offline.calls()[before:])
        h_paused = (await history_events(handle)) - h0
        s2 = await session_state(handle)
        await control_session(handle, "resume", "bench")
        await handle.terminate("benchmark done")

    total_silent, total_paused = sum(silent.values()), sum(paused.values())
    total_after = sum(after_answer.values())
    print(f"silence — time-skipping server, cycle_seconds {cycle:g} (runs before the quiet cycle ticked at it), "
          f"60 s of workflow time each")
    print(f"  60 s waiting for an answer (question asked, interviewee silent): {total_silent} LLM calls "
          f"{dict(silent) or ''}, {h_silent} history events")
    print(f"  60 s in which nobody speaks after an answer: {total_after} LLM calls {dict(after_answer) or ''}, "
          f"{h_after} history events")
    print("    (NoteTaker/Researcher skip without new content; the Orchestrator keeps a decision < 30 s old, and "
          "keeps it while a question waits for its answer)")
    print(f"  60 s PAUSED: {total_paused} LLM calls {dict(paused) or ''}, {h_paused} history events; status {s2.status}, "
          f"workflow clock ran on: +{s2.elapsed_seconds - s1.elapsed_seconds:.0f} s by the last workflow task")
    print(f"  RATIO LLM calls per 10 s of silence: waiting for an answer {total_silent / 6:.2f}, after an answer "
          f"{total_after / 6:.2f}, paused {total_paused / 6:.2f} (seed: 0)")


async def history_events(handle) -> int:  # noqa: ANN001
    return len((await handle.fetch_history()).events)


async def start(env, inp, queue):
    from client.interview.cli import start_interview, wait_for_state

    handle = await start_interview(env.client, inp, f"interview-bench-silence-{uuid.uuid4().hex[:6]}", queue)
    await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS" and bool(s.next_question), 60, 0.05)
    return handle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cycle", type=float, default=10.0, help="Live update cycle cadence (seconds).")
    args = parser.parse_args()
    asyncio.run(run(args.cycle))


if __name__ == "__main__":
    main()
