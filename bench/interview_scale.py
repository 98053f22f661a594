"""Scale: how many concurrent rehearsed sessions one worker sustains at a 10 s cadence with a simulated 1 s model,
and their decision latency (p50/p95), against the same agents driven by a plain in-process asyncio loop.

Each session: every 10 s the interviewer's question goes in, the answer 5 s later (both through `submit_entry`;
no polling). Decision latency = answer submitted -> the Orchestrator's response to the first request made after
it (read back from the workflow's event log; same host clock). Temporal side: one dev server, ONE worker pair
(workflows + LLM activities, 100 activity slots) in this process. Baseline: the same agent functions
(NoteTaker ∥ Researcher, then Orchestrator unless a question is waiting for its answer; same windows,
merge and fallback logic), one asyncio task per
session, nothing durable. "Sustained" = no missed decision and p95 below the 10 s cadence.

    python -m bench.interview_scale [--sessions 10,50,100] [--exchanges 2] [--latency 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

from bench.interview_common import ANSWERS, artifacts_in_tmp, dev_server, median, pct, quiet, workers

CADENCE = 10.0
ANSWER_AFTER = 5.0
LIVE = ("interview_note_taker", "interview_researcher", "interview_orchestrator")


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)
    missed: int = 0
    wall_s: float = 0.0

    def line(self, label: str, n: int) -> str:
        lat = self.latencies
        ok = not self.missed and lat and pct(lat, 95) < CADENCE
        return (f"  {label:<8} {n:>4} sessions: decisions {len(lat):>4}, missed {self.missed:>3}, "
                f"p50 {median(lat):6.2f} s, p95 {pct(lat, 95):6.2f} s, max {max(lat or [float('nan')]):6.2f} s "
                f"-> {'sustained' if ok else 'NOT sustained'}")


# ----------------------------------------------------------------------------------------------- Temporal
async def temporal_session(client, queue: str, index: int, n: int, exchanges: int) -> tuple[str, list[float]]:
    from client.interview import session_state, start_interview, submit_entry, wait_for_state
    from models.interview import InterviewInput, TranscriptEntry

    await asyncio.sleep(index * CADENCE / n)  # people do not all start on the same second
    inp = InterviewInput(topic=f"What on-call taught me #{index}", duration_seconds=900, cycle_seconds=CADENCE)
    handle = await start_interview(client, inp, f"interview-bench-scale-{index}-{uuid.uuid4().hex[:4]}", queue)
    state = await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS" and bool(s.next_question), 300, 0.5)
    sent: list[float] = []
    for turn in range(1, exchanges + 1):
        began = time.monotonic()
        await submit_entry(handle, TranscriptEntry(entry_id=f"q{turn}", speaker="interviewer",
                                                   text=state.next_question or "Go on?"))
        await asyncio.sleep(max(0.0, ANSWER_AFTER - (time.monotonic() - began)))
        sent.append(time.time())
        await submit_entry(handle, TranscriptEntry(entry_id=f"a{turn}", speaker="interviewee",
                                                   text=ANSWERS[(index + turn) % len(ANSWERS)]))
        await asyncio.sleep(max(0.0, CADENCE - (time.monotonic() - began)))
        state = await session_state(handle)
    return handle.id, sent


def decision_latencies(events, sent: list[float], answer_ids: list[str]) -> tuple[list[float], int]:
    """answer submitted (client clock) -> response to the first interviewer-AI request after the answer's event."""
    out, missed = [], 0
    for entry_id, at in zip(answer_ids, sent, strict=False):
        idx = next((i for i, e in enumerate(events) if e.payload.get("entry_id") == entry_id), None)
        if idx is None:
            missed += 1
            continue
        requested, done = False, None
        for e in events[idx + 1:]:
            if e.actor == "interviewer_ai" and e.type == "AI_REQUEST":
                requested = True
            elif requested and e.actor == "interviewer_ai" and e.type in ("AI_RESPONSE", "AI_FAILED"):
                done = e.timestamp.timestamp()
                break
        if done is None:
            missed += 1
        else:
            out.append(done - at)
    return out, missed


async def run_temporal(n: int, exchanges: int) -> Result:
    from models.interview import QUERY_EVENT_LOG, EventLogPage

    res = Result()
    async with dev_server() as env, workers(env.client, max_concurrent_activities=100) as queue:
        began = time.monotonic()
        sessions = await asyncio.gather(*(temporal_session(env.client, queue, i, n, exchanges) for i in range(n)))
        await asyncio.sleep(CADENCE / 2)  # let the last decisions land
        res.wall_s = time.monotonic() - began
        for wf_id, sent in sessions:
            handle = env.client.get_workflow_handle(wf_id)
            page = await handle.query(QUERY_EVENT_LOG, 0, result_type=EventLogPage)
            lat, missed = decision_latencies(page.events, sent, [f"a{t}" for t in range(1, exchanges + 1)])
            res.latencies += lat
            res.missed += missed
            await handle.terminate("benchmark done")
    return res


# ----------------------------------------------------------------------------------------------- asyncio
async def asyncio_session(index: int, n: int, exchanges: int, res: Result) -> None:
    """The same live agents, the engine's cycle rule (wake on new entries or every 10 s; NoteTaker ∥ Researcher
    with new content, then the Orchestrator), in one plain asyncio task: no server, no history, no durability."""
    from activities.interview import interview_note_taker, interview_orchestrator, interview_researcher
    from models.interview import (
        NotesState,
        NoteTakerInput,
        OrchestratorInput,
        Phase,
        ResearcherInput,
        ResearchItem,
        TranscriptEntry,
    )
    from rules.interview import cadence, coverage, decisions
    from rules.interview.notes import merge_notes
    from rules.interview.phases import phase_for
    from rules.interview.plan import default_plan

    await asyncio.sleep(index * CADENCE / n)
    topic = f"What on-call taught me #{index}"
    plan = default_plan(topic, "", "adaptive", 900)
    started = time.monotonic()
    tail: list[TranscriptEntry] = []
    notes = NotesState()
    research: list[ResearchItem] = []
    asked: set[str] = set()
    decision = decisions.fallback_decision(plan, asked, "opening")
    processed = 0
    wake = asyncio.Event()
    orchestrations: list[tuple[float, float]] = []  # (request, response) wall times
    done = False

    async def live_loop() -> None:
        nonlocal notes, decision, processed
        while not done:
            try:
                await asyncio.wait_for(wake.wait(), CADENCE)
            except TimeoutError:
                pass
            wake.clear()
            new = len(tail) - processed
            up_to = len(tail)
            if new:
                window = cadence.window(tail, cadence.NOTES_WINDOW)
                nt, rs = await asyncio.gather(
                    interview_note_taker(NoteTakerInput(topic=topic, research_goal=plan.research_goal, angle=plan.angle,
                                                        window=window, notes=notes)),
                    interview_researcher(ResearcherInput(topic=topic, window=window,
                                                         existing_topics=[r.topic for r in research])))
                notes = merge_notes(notes, nt.output)
                research.extend(rs.output.items)
            processed = up_to
            if not new or tail[-1].speaker == "interviewer":
                continue  # like the engine: nothing new, or the interviewer's question is waiting for its answer
            asked_now = time.time()
            elapsed = time.monotonic() - started
            phase = cast(Phase, phase_for(elapsed, 900))
            out = await interview_orchestrator(OrchestratorInput(
                topic=topic, research_goal=plan.research_goal, angle=plan.angle,
                plan_coverage=coverage.plan_coverage_text(plan, asked),
                window=cadence.window(tail, cadence.ORCHESTRATOR_WINDOW), notes=notes, research=research,
                elapsed_seconds=elapsed, target_seconds=900, phase=phase,
                fallback=decisions.fallback_decision(plan, asked, phase)))
            orchestrations.append((asked_now, time.time()))
            decision = out.output
            if decision.next_question.source_question_id:
                asked.add(decision.next_question.source_question_id)

    loop = asyncio.create_task(live_loop())
    sent: list[float] = []
    for turn in range(1, exchanges + 1):
        began = time.monotonic()
        tail.append(TranscriptEntry(entry_id=f"q{turn}", speaker="interviewer", text=decision.next_question.text,
                                    seq=len(tail) + 1, received_at=datetime.now(UTC)))
        wake.set()
        await asyncio.sleep(max(0.0, ANSWER_AFTER - (time.monotonic() - began)))
        sent.append(time.time())
        tail.append(TranscriptEntry(entry_id=f"a{turn}", speaker="interviewee",
                                    text=ANSWERS[(index + turn) % len(ANSWERS)], seq=len(tail) + 1,
                                    received_at=datetime.now(UTC)))
        wake.set()
        await asyncio.sleep(max(0.0, CADENCE - (time.monotonic() - began)))
    await asyncio.sleep(CADENCE / 2)
    done = True
    wake.set()
    await loop
    for at in sent:
        hit = next((end for start, end in orchestrations if start >= at), None)
        if hit is None:
            res.missed += 1
        else:
            res.latencies.append(hit - at)


async def run_asyncio(n: int, exchanges: int) -> Result:
    res = Result()
    began = time.monotonic()
    await asyncio.gather(*(asyncio_session(i, n, exchanges, res) for i in range(n)))
    res.wall_s = time.monotonic() - began
    return res


async def main_async(sizes: list[int], exchanges: int, latency: float) -> None:
    from activities.llm import offline

    quiet()
    offline.reset()
    for agent in (*LIVE, "interview_planner"):
        offline.set_latency(latency, agent)
    rows: list[tuple[int, Result, Result]] = []
    async with artifacts_in_tmp():
        for n in sizes:
            t = await run_temporal(n, exchanges)
            a = await run_asyncio(n, exchanges)
            rows.append((n, t, a))
            print(t.line("temporal", n), flush=True)
            print(a.line("asyncio", n), flush=True)
    print(f"scale — one worker (in-process, sharing this machine's CPUs with the client), cadence {CADENCE:.0f} s, "
          f"simulated model {latency:.1f} s per call, {exchanges} exchanges per session")
    for n, t, a in rows:
        print(t.line("temporal", n))
        print(a.line("asyncio", n))
        if t.latencies and a.latencies:
            print(f"  RATIO temporal/asyncio at {n} sessions: p50 {median(t.latencies) / median(a.latencies):.2f}, "
                  f"p95 {pct(t.latencies, 95) / pct(a.latencies, 95):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", default="10,50,100", help="Comma-separated concurrent session counts.")
    parser.add_argument("--exchanges", type=int, default=2, help="Question/answer exchanges per session.")
    parser.add_argument("--latency", type=float, default=1.0, help="Simulated seconds per LLM call.")
    args = parser.parse_args()
    asyncio.run(main_async([int(x) for x in args.sessions.split(",")], args.exchanges, args.latency))


if __name__ == "__main__":
    main()
