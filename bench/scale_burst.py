"""`bench.interview_scale --start-burst K` (issue 40): with `--sessions L` sessions live at the cadence, K more
interviews start within 30 s while the live ones keep answering.

The live sessions start spread over one cadence (as in every run) and answer half-way through each cadence. Once
every live session has sent its first answer and half a cadence more has passed (its first decision is in), the
burst begins: the K starts are spread EVENLY over BURST_S (start i at i × 30 / K s), not sent as fast as the client
can. Each burst session then polls `session_state` every BURST_POLL_S = 2 s (not the 0.5 s the live sessions'
start uses: 500 sessions polling every 0.5 s would be 1000 queries/s, a load a real `colloquy serve` does not
create) until its first question is there, and STOPS there: it answers nothing (it is terminated at the end). Its
time to first question runs from the start call to the poll that sees the question, so it reads up to 2 s late.

The burst window runs from the burst's start until the last burst session has its first question (or has given up
after FIRST_QUESTION_TIMEOUT_S). The live sessions keep answering through it and for `--exchanges` more cadences
after it. Their decision latencies are split by when the answer was sent: before the burst, during the window,
after it (bench/scale_burst.burst_windows). Each is compared with the p95 of the asyncio baseline at the same L
(run after, with `--exchanges` exchanges).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from bench.interview_common import ANSWERS
from bench.scale_asyncio import CYCLE, run_asyncio
from bench.scale_cores import pinned_text
from bench.scale_metrics import Result, Summary, pct, summarize
from bench.scale_processes import dev_server_pid, temporal_side
from bench.scale_temporal import QUERY_CONCURRENCY, SessionRun, Settings, collect

BURST_S = 30.0                   # the K starts are spread evenly over this many seconds
BURST_POLL_S = 2.0               # a burst session's poll for its first question
FIRST_QUESTION_TIMEOUT_S = 300.0


def burst_windows(decisions: Iterable[tuple[float, float | None]], start: float, end: float) -> dict[str, Summary]:
    """Split (answer sent at, latency or None) by when the answer was sent: before the burst's start, during
    [start, end], after end; and outside (before + after)."""
    groups: dict[str, list[float | None]] = {"before": [], "during": [], "after": []}
    for sent, latency in decisions:
        groups["before" if sent < start else "during" if sent <= end else "after"].append(latency)
    out = {k: summarize(v) for k, v in groups.items()}
    out["outside"] = summarize([*groups["before"], *groups["after"]])
    return out


@dataclass
class Burst:
    start: float = 0.0                                           # wall clock of the first start call
    end: float = 0.0                                             # the last first question (or give-up)
    first_question_s: list[float] = field(default_factory=list)  # per burst session that got one
    failed: int = 0                                              # start failed or no question in time
    workflow_ids: list[str] = field(default_factory=list)


def burst_lines(k: int, burst: Burst, live: dict[str, Summary], asyncio_p95: float) -> list[str]:
    def vs(s: Summary) -> str:
        return f"{s.p95 / asyncio_p95:.2f}" if s.n and asyncio_p95 > 0 else "n/a"

    during, after = live["during"], live["after"]
    ttfq = burst.first_question_s
    lines = [f"start burst: {k} starts in {BURST_S:g} s; live sessions p95 {during.p95:.2f} s ({vs(during)}× asyncio) "
             f"during the burst, {after.p95:.2f} s after",
             f"  burst window {burst.end - burst.start:.1f} s (first start -> last first question); asyncio p95 at "
             f"the same live size {asyncio_p95:.2f} s"]
    for name in ("before", "during", "after", "outside"):
        lines.append(f"    live, answers sent {name + ' the burst:':<20} {live[name].text()}  ({vs(live[name])}× asyncio)")
    lines.append(f"  burst sessions: time to first question p50 {pct(ttfq, 50):.2f} s, p95 {pct(ttfq, 95):.2f} s, "
                 f"max {max(ttfq) if ttfq else float('nan'):.2f} s (polled every {BURST_POLL_S:g} s: up to that "
                 f"late); failed to start {burst.failed} of {k}")
    return lines


async def live_session(client, queue: str, index: int, n: int, pace: float, answered: asyncio.Event,  # noqa: ANN001
                       count: list[int], stop: asyncio.Event) -> SessionRun:
    """A rehearsed session that answers every `pace` s until `stop` is set (the engine records its questions)."""
    from client.interview.calls import InterviewClientError
    from client.interview.cli import start_interview, submit_entry, wait_for_state
    from models.interview.entries import TranscriptEntry
    from models.interview.workflow import InterviewInput

    await asyncio.sleep(index * pace / n)
    inp = InterviewInput(topic=f"What on-call taught me #{index}", duration_seconds=3600, cycle_seconds=CYCLE)
    try:
        handle = await start_interview(client, inp, f"interview-bench-live-{index}-{uuid.uuid4().hex[:4]}", queue)
        await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS" and bool(s.next_question), 300, 0.5)
    finally:  # a live session that fails to start must not hold the burst back
        count[0] += 1
        if count[0] >= n:
            answered.set()
    run = SessionRun(handle.id, [])
    turn = 0
    while not stop.is_set():
        turn += 1
        began = time.monotonic()
        await asyncio.sleep(pace / 2)
        run.sent.append(time.time())
        try:
            await submit_entry(handle, TranscriptEntry(entry_id=f"a{turn}", speaker="interviewee",
                                                       text=ANSWERS[(index + turn) % len(ANSWERS)]))
        except InterviewClientError:
            run.ack_timeouts += 1
        await asyncio.sleep(max(0.0, pace - (time.monotonic() - began)))
    return run


async def burst_session(client, queue: str, index: int, k: int, burst: Burst) -> None:  # noqa: ANN001
    from client.interview.cli import start_interview, wait_for_state
    from models.interview.workflow import InterviewInput

    await asyncio.sleep(index * BURST_S / k)
    began, t0 = time.monotonic(), time.time()
    burst.start = min(burst.start or t0, t0)
    try:
        inp = InterviewInput(topic=f"What on-call taught me, burst #{index}", duration_seconds=900,
                             cycle_seconds=CYCLE)
        handle = await start_interview(client, inp, f"interview-bench-burst-{index}-{uuid.uuid4().hex[:4]}", queue)
        burst.workflow_ids.append(handle.id)
        state = await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS" and bool(s.next_question),
                                     FIRST_QUESTION_TIMEOUT_S, BURST_POLL_S)
    except Exception:  # noqa: BLE001 — counted, not fatal
        burst.failed += 1
        burst.end = max(burst.end, time.time())
        return
    if state.status == "IN_PROGRESS" and state.next_question:
        burst.first_question_s.append(time.monotonic() - began)
    else:
        burst.failed += 1
    burst.end = max(burst.end, time.time())


async def run_burst(args: argparse.Namespace, settings: Settings, cadence: float) -> list[str]:
    live_n, k = int(args.sessions), args.start_burst
    workers = len(settings.layout.workers) if settings.layout else 1
    res, burst = Result(pace=cadence), Burst()
    async with temporal_side(workers, args.latency, settings.tuning, False, settings.server_config,
                             layout=settings.layout) as (env, queue, procs):
        client = env.client  # type: ignore[attr-defined]
        pinned = ""
        if settings.layout is not None:
            pinned = "  " + pinned_text([("server", dev_server_pid() or 0),
                                         *((f"worker {p.index}", p.pid) for p in procs), ("bench", os.getpid())])
            print(pinned, flush=True)
        answered, stop, count = asyncio.Event(), asyncio.Event(), [0]
        live = [asyncio.create_task(live_session(client, queue, i, live_n, cadence, answered, count, stop))
                for i in range(live_n)]
        await answered.wait()                       # every live session has its first question…
        await asyncio.sleep(cadence)                # …and has answered it and had its decision
        print(f"  {live_n} live sessions past their first exchange; starting {k} within {BURST_S:g} s", flush=True)
        await asyncio.gather(*(burst_session(client, queue, i, k, burst) for i in range(k)))
        print(f"  burst done: {len(burst.first_question_s)} first questions, {burst.failed} failed; live sessions "
              f"go on for {args.exchanges} more cadences", flush=True)
        await asyncio.sleep(args.exchanges * cadence)
        stop.set()
        runs = list(await asyncio.gather(*live, return_exceptions=True))
        await asyncio.sleep(CYCLE / 2)  # let the last decisions land
        turns = max((len(r.sent) for r in runs if isinstance(r, SessionRun)), default=0)
        await collect(client, runs, turns, res)
        gate = asyncio.Semaphore(QUERY_CONCURRENCY)

        async def end(wid: str) -> None:
            async with gate:
                with contextlib.suppress(Exception):
                    await client.get_workflow_handle(wid).terminate("benchmark done")

        await asyncio.gather(*(end(w) for w in burst.workflow_ids))
    a = await run_asyncio(live_n, args.exchanges, cadence)
    print(a.line("asyncio", live_n), flush=True)
    windows = burst_windows(res.decisions, burst.start, burst.end)
    lines = [f"cadence {cadence:g} s, {live_n} live sessions, simulated model {args.latency:.1f} s per call"
             + (f"; {settings.layout.text()}" if settings.layout else ""),
             res.line("temporal live", live_n), *([pinned] if pinned else []), a.line("asyncio", live_n),
             *burst_lines(k, burst, windows, pct(a.latencies, 95))]
    print("\n".join(lines), flush=True)
    return lines


async def run_bursts(args: argparse.Namespace, settings: Settings) -> None:
    out: list[str] = []
    for cadence in args.cadences:
        out += await run_burst(args, settings, cadence)
    print()
    print("\n".join(settings.header))
    print("\n".join(out))
