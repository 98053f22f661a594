"""History cost: Temporal history events and bytes per interview minute of a live session.

A rehearsed InterviewWorkflow on the time-skipping server (workers in this process, the offline provider): every
`--every` seconds of workflow time the interviewer asks the engine's question, the interviewee answers
`--answer-after` seconds later. After `--minutes` the run's history is read back and split by event type; the
largest activity input shows what one agent call carries. Run it at the cycle settings to compare (the cycle
used to fire a timer every `cycle_seconds` even when nothing could change):

    python -m bench.interview_history [--minutes 4] [--every 20] [--answer-after 5] [--cycles 2,10]
"""

from __future__ import annotations

import argparse
import asyncio
import uuid
from collections import Counter
from dataclasses import dataclass, field

from bench.interview_common import (
    ANSWERS,
    artifacts_in_tmp,
    quiet,
    show_question,
    time_skipping_server,
    workers,
)


@dataclass
class HistoryCost:
    cycle: float
    minutes: float
    events: int = 0
    bytes: int = 0
    by_type: Counter[str] = field(default_factory=Counter)
    bytes_by_type: Counter[str] = field(default_factory=Counter)
    largest_input: int = 0
    largest_input_agent: str = ""
    inputs_bytes: dict[str, int] = field(default_factory=dict)
    activities: Counter[str] = field(default_factory=Counter)
    runs: int = 1

    def line(self) -> str:
        return (f"  cycle {self.cycle:>4g} s: {self.events:>4} events, {self.bytes / 1024:6.1f} KB, {self.runs} run(s) in "
                f"{self.minutes:g} min -> {self.events / self.minutes:6.1f} events/min, "
                f"{self.bytes / 1024 / self.minutes:5.1f} KB/min; timers {self.by_type['TIMER_STARTED']}, "
                f"activities {sum(self.activities.values())}, largest activity input "
                f"{self.largest_input / 1024:.1f} KB ({self.largest_input_agent})")


async def session_history(cycle: float, minutes: float, every: float, answer_after: float) -> HistoryCost:
    from temporalio.api.enums.v1 import EventType

    from client.interview.cli import session_state, start_interview, submit_entry, wait_for_state
    from models.interview.entries import TranscriptEntry
    from models.interview.workflow import InterviewInput

    cost = HistoryCost(cycle, minutes)
    async with time_skipping_server() as env, workers(env.client) as queue:
        inp = InterviewInput(topic="What on-call taught me", duration_seconds=int(minutes * 60) + 600,
                             cycle_seconds=cycle)
        handle = await start_interview(env.client, inp, f"interview-bench-history-{uuid.uuid4().hex[:6]}", queue)
        await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS" and bool(s.next_question), 60, 0.05)
        turns = int(minutes * 60 // every)
        for turn in range(1, turns + 1):
            state = await session_state(handle)
            await show_question(handle, state, f"q{turn}")
            await env.sleep(answer_after)
            answer = f"{ANSWERS[turn % len(ANSWERS)]} (point {turn}: the {turn}th detail of that story.)"
            await submit_entry(handle, TranscriptEntry(entry_id=f"a{turn}", speaker="interviewee", text=answer))
            await env.sleep(every - answer_after)
        events, run_id, runs = [], handle.result_run_id, 0
        while run_id:                                  # every run of the session (long ones continue as new)
            history = await env.client.get_workflow_handle(handle.id, run_id=run_id).fetch_history()
            events += list(history.events)
            runs += 1
            last = history.events[-1]
            run_id = (last.workflow_execution_continued_as_new_event_attributes.new_execution_run_id
                      if last.HasField("workflow_execution_continued_as_new_event_attributes") else "")
        cost.runs = runs
        await handle.terminate("benchmark done")
    scheduled: dict[int, str] = {}
    for ev in events:
        name = EventType.Name(ev.event_type).removeprefix("EVENT_TYPE_")
        cost.by_type[name] += 1
        cost.bytes += ev.ByteSize()
        cost.bytes_by_type[name] += ev.ByteSize()
        if name == "ACTIVITY_TASK_SCHEDULED":
            attrs = ev.activity_task_scheduled_event_attributes
            size = attrs.input.ByteSize()
            agent = attrs.activity_type.name
            scheduled[ev.event_id] = agent
            cost.activities[agent] += 1
            cost.inputs_bytes[agent] = cost.inputs_bytes.get(agent, 0) + size
            if size > cost.largest_input:
                cost.largest_input, cost.largest_input_agent = size, agent
    cost.events = len(events)
    return cost


async def run(cycles: list[float], minutes: float, every: float, answer_after: float) -> None:
    from activities.llm import offline

    quiet()
    offline.reset()
    rows = []
    async with artifacts_in_tmp():
        for cycle in cycles:
            rows.append(await session_history(cycle, minutes, every, answer_after))
    print(f"history cost — time-skipping server, {minutes:g}-minute session, a question every {every:g} s and its "
          f"answer {answer_after:g} s later, offline provider")
    for cost in rows:
        print(cost.line())
        top = ", ".join(f"{k.lower()} {v} ({cost.bytes_by_type[k] / 1024:.1f} KB)"
                        for k, v in cost.bytes_by_type.most_common(8) for v in [cost.by_type[k]])
        print(f"      events by type (most bytes first): {top}")
        per_agent = ", ".join(f"{a} {n}× avg {cost.inputs_bytes[a] / n / 1024:.1f} KB"
                              for a, n in cost.activities.most_common())
        print(f"      activity inputs: {per_agent}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=4, help="Interview minutes to run (workflow time).")
    parser.add_argument("--every", type=float, default=20, help="Seconds between the interviewer's questions.")
    parser.add_argument("--answer-after", type=float, default=5, help="Seconds from a question to its answer.")
    parser.add_argument("--cycles", default="2,10", help="Comma-separated cycle_seconds settings to measure.")
    args = parser.parse_args()
    if not 0 < args.answer_after < args.every:
        parser.error("--answer-after must be between 0 and --every")
    asyncio.run(run([float(x) for x in args.cycles.split(",")], args.minutes, args.every, args.answer_after))


if __name__ == "__main__":
    main()
