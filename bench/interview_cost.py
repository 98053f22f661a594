"""Cost growth: prompt tokens per live cycle at minute 5 vs minute 60 of a long session.

Transcript windows (NoteTaker/Researcher 20 entries, Orchestrator 30) keep what each cycle sends bounded while
the transcript grows; this measures it. A 65-minute InterviewWorkflow on the time-skipping server (an exchange
every 20 s of workflow time; continue-as-new happens on the way), workers in this process, the offline provider
counting prompt tokens (len/4, as it reports in usage).

    python -m bench.interview_cost [--minutes 60] [--every 20]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from collections import defaultdict

from bench.interview_common import (
    ANSWERS,
    artifacts_in_tmp,
    prompt_tokens,
    quiet,
    show_question,
    time_skipping_server,
    workers,
)

VERBOSE = False
LIVE = ("interview_note_taker", "interview_researcher", "interview_orchestrator")


async def run(minutes: int, every: int) -> None:
    from activities.llm import offline
    from client.interview.cli import session_state, start_interview, submit_entry, wait_for_state
    from models.interview.entries import TranscriptEntry
    from models.interview.workflow import InterviewInput

    quiet()
    offline.reset()
    marks: dict[int, int] = {}          # minute -> index into offline.calls() at that minute
    began = time.monotonic()
    async with artifacts_in_tmp(), time_skipping_server() as env, workers(env.client) as queue:
        inp = InterviewInput(topic="What on-call taught me", duration_seconds=(minutes + 5) * 60, cycle_seconds=10)
        handle = await start_interview(env.client, inp, f"interview-bench-cost-{uuid.uuid4().hex[:6]}", queue)
        await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS" and bool(s.next_question), 60, 0.05)
        marks[0] = len(offline.calls())
        per_minute = 60 // every
        turn = 0
        for minute in range(1, minutes + 1):
            for _ in range(per_minute):
                turn += 1
                state = await session_state(handle)
                await show_question(handle, state, f"q{turn}")
                answer = f"{ANSWERS[turn % len(ANSWERS)]} (point {turn}: the {turn}th detail of that story.)"
                await submit_entry(handle, TranscriptEntry(entry_id=f"a{turn}", speaker="interviewee", text=answer))
                await env.sleep(every)
            marks[minute] = len(offline.calls())
            if VERBOSE:
                print(f"minute {minute}: {len(offline.calls())} calls, {time.monotonic() - began:.1f} s", flush=True)
        final = await session_state(handle)
        await handle.terminate("benchmark done")
    calls = offline.calls()

    def window(minute: int) -> tuple[float, dict[str, float], int]:
        chunk = [c for c in calls[marks[minute - 1]:marks[minute]] if c.agent in LIVE]
        cycles = sum(1 for c in chunk if c.agent == "interview_orchestrator") or 1
        by_agent: dict[str, list[int]] = defaultdict(list)
        for c in chunk:
            by_agent[c.agent].append(prompt_tokens(c))
        avg = {a: sum(v) / len(v) for a, v in by_agent.items()}
        return sum(prompt_tokens(c) for c in chunk) / cycles, avg, cycles

    early, early_avg, n5 = window(5)
    late, late_avg, n60 = window(minutes)
    print(f"cost growth — time-skipping server, one exchange every {every} s, {final.entries} entries by minute "
          f"{minutes}, {turn} exchanges, {time.monotonic() - began:.0f} s wall")
    print(f"  prompt tokens per cycle (NoteTaker + Researcher + Orchestrator): minute 5 {early:.0f} "
          f"({n5} cycles), minute {minutes} {late:.0f} ({n60} cycles)")
    for agent in LIVE:
        print(f"    {agent:<24} avg prompt tokens per call: minute 5 {early_avg.get(agent, 0):.0f}, minute {minutes} "
              f"{late_avg.get(agent, 0):.0f}")
    print(f"  RATIO minute {minutes} / minute 5: {late / early:.2f} (1.00 = flat)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=int, default=60, help="Session minutes to simulate (>= 5: minute 5 is the "
                        "baseline).")
    parser.add_argument("--every", type=int, default=20, help="Seconds of workflow time between exchanges.")
    parser.add_argument("--verbose", action="store_true", help="Print progress per minute.")
    args = parser.parse_args()
    if args.minutes < 5:
        parser.error("--minutes must be at least 5 (minute 5 is the baseline the ratio compares against)")
    global VERBOSE
    VERBOSE = args.verbose
    asyncio.run(run(args.minutes, args.every))


if __name__ == "__main__":
    main()
