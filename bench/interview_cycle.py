"""Live-cycle overhead: cycle wall time ÷ LLM critical path, max(NoteTaker, Researcher) + Orchestrator.

A real InterviewWorkflow on a dev server (real clock), workers in this process, every live agent answered by the
offline provider after a fixed simulated latency. Each cycle is read back from the workflow's own event log:
wall = NoteTaker AI_REQUEST -> Orchestrator AI_RESPONSE (workflow time), critical path = the gateway-measured
latencies of the three calls. Also: answer submitted -> decision made with it, as a client sees it.

    python -m bench.interview_cycle [--latency 0.5] [--turns 6]
"""

from __future__ import annotations

import argparse
import asyncio
import uuid

from bench.interview_common import (
    ANSWERS,
    artifacts_in_tmp,
    dev_server,
    drive_exchanges,
    median,
    pct,
    quiet,
    workers,
)

LIVE_AGENTS = ("interview_note_taker", "interview_researcher", "interview_orchestrator")


def cycles_from_events(events) -> list[dict[str, float]]:
    """Pair each listener cycle: NoteTaker request ... Orchestrator response, with the three latencies."""
    out: list[dict[str, float]] = []
    current: dict[str, float] | None = None
    for ev in events:
        agent = ev.payload.get("agent")
        if ev.type == "AI_REQUEST" and agent == "interview_note_taker":
            current = {"start": ev.timestamp.timestamp()}
        elif current is not None and ev.type == "AI_RESPONSE" and agent in LIVE_AGENTS:
            current[agent] = float(ev.payload.get("latency_ms", 0.0)) / 1000
            if agent == "interview_orchestrator":
                if "interview_note_taker" in current and "interview_researcher" in current:
                    current["wall"] = ev.timestamp.timestamp() - current["start"]
                    current["critical"] = (max(current["interview_note_taker"], current["interview_researcher"])
                                           + current["interview_orchestrator"])
                    out.append(current)
                current = None
        elif ev.type == "AI_FAILED":
            current = None
    return out


async def run(latency: float, turns: int) -> None:
    from activities.llm import offline
    from client.interview.cli import start_interview
    from models.interview.names import QUERY_EVENT_LOG
    from models.interview.workflow import EventLogPage, InterviewInput

    quiet()
    offline.reset()
    for agent in LIVE_AGENTS:
        offline.set_latency(latency, agent)
    async with artifacts_in_tmp(), dev_server() as env, workers(env.client) as queue:
        inp = InterviewInput(topic="What on-call taught me", duration_seconds=900, cycle_seconds=10)
        handle = await start_interview(env.client, inp, f"interview-bench-cycle-{uuid.uuid4().hex[:6]}", queue)
        timings = await drive_exchanges(handle, (ANSWERS * 3)[:turns], cadence_s=4 * latency + 2,
                                        answer_after_s=2 * latency + 1, poll_s=0.02)
        page = await handle.query(QUERY_EVENT_LOG, 0, result_type=EventLogPage)
        await handle.terminate("benchmark done")
    cycles = cycles_from_events(page.events)
    ratios = [c["wall"] / c["critical"] for c in cycles]
    overhead = [c["wall"] - c["critical"] for c in cycles]
    decisions = timings.decision_latency_s
    critical = median([c["critical"] for c in cycles])
    print(f"live-cycle overhead — simulated model latency {latency:.2f} s per call, {len(cycles)} cycles, dev server")
    print(f"  LLM critical path (max(NoteTaker, Researcher) + Orchestrator): median {critical:.3f} s")
    print(f"  cycle wall time (event log): median {median([c['wall'] for c in cycles]):.3f} s, "
          f"p95 {pct([c['wall'] for c in cycles], 95):.3f} s")
    print(f"  RATIO cycle wall / critical path: median {median(ratios):.3f}, p95 {pct(ratios, 95):.3f} "
          f"(orchestration overhead median {median(overhead) * 1000:.0f} ms per cycle)")
    if decisions:
        print(f"  client view, answer submitted -> decision made with it: median {median(decisions):.3f} s, "
              f"p95 {pct(decisions, 95):.3f} s; RATIO to critical path {median(decisions) / critical:.3f}"
              + (f"; {timings.missed} missed" if timings.missed else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.5, help="Simulated seconds per LLM call.")
    parser.add_argument("--turns", type=int, default=6, help="Question/answer exchanges to time.")
    args = parser.parse_args()
    asyncio.run(run(args.latency, args.turns))


if __name__ == "__main__":
    main()
