"""The Temporal side of one `bench.interview_scale` run: the session drivers, the decision latencies read back from
each session's event log, and `run_temporal` (a fresh dev server and workers per run, bench/scale_processes.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.interview_common import ANSWERS
from bench.scale_asyncio import CYCLE
from bench.scale_cores import CoreLayout, pinned_text
from bench.scale_history import SAMPLE, HistoryCounts
from bench.scale_metrics import CpuUse, Result, cpu_seconds
from bench.scale_processes import ROOT, dev_server_pid, temporal_side
from core.server import TUNED_DYNAMIC_CONFIG
from core.settings import WorkerTuning

CADENCE = 10.0          # default seconds between a session's exchanges (--cadence)
QUERY_CONCURRENCY = 16  # the final event-log queries: bounded, not 500 at once (each needs a workflow task)


# ----------------------------------------------------------------------------------------------- Temporal
@dataclass
class SessionRun:
    workflow_id: str
    sent: list[float]
    ack_timeouts: int = 0


@dataclass
class StartGate:
    """Counts the sessions that have their first question; when the last one does, the start phase is over and
    `sample()` reads every role's CPU (the steady state's starting point)."""

    n: int
    sample: Callable[[], dict[str, float]]
    ready: int = 0
    at: float | None = None            # time.time() when the last session had its first question
    cpu: dict[str, float] = field(default_factory=dict)

    def one_ready(self) -> None:
        self.ready += 1
        if self.ready == self.n:
            self.at, self.cpu = time.time(), self.sample()


async def temporal_session(client, queue: str, index: int, n: int, exchanges: int,  # noqa: ANN001
                           pace: float, gate: StartGate | None = None) -> SessionRun:
    from client.interview.calls import InterviewClientError
    from client.interview.cli import session_state, start_interview, submit_entry, wait_for_state
    from models.interview.entries import TranscriptEntry
    from models.interview.workflow import InterviewInput

    await asyncio.sleep(index * pace / n)  # people do not all start on the same second
    inp = InterviewInput(topic=f"What on-call taught me #{index}", duration_seconds=900, cycle_seconds=CYCLE)
    handle = await start_interview(client, inp, f"interview-bench-scale-{index}-{uuid.uuid4().hex[:4]}", queue)
    state = await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS" and bool(s.next_question), 300, 0.5)
    if gate is not None:
        gate.one_ready()
    run = SessionRun(handle.id, [])

    async def submit(entry: TranscriptEntry) -> None:
        try:
            await submit_entry(handle, entry)
        except InterviewClientError:  # not acknowledged within the client's 10 s (e.g. its worker was killed):
            run.ack_timeouts += 1      # counted; the entry may still land, and its decision is looked for

    for turn in range(1, exchanges + 1):
        began = time.monotonic()
        if not state.question_entry_id:     # a run from before the engine recorded its questions: the client does
            await submit(TranscriptEntry(entry_id=f"q{turn}", speaker="interviewer",
                                         text=state.next_question or "Go on?"))
        await asyncio.sleep(max(0.0, pace / 2 - (time.monotonic() - began)))
        run.sent.append(time.time())
        await submit(TranscriptEntry(entry_id=f"a{turn}", speaker="interviewee",
                                     text=ANSWERS[(index + turn) % len(ANSWERS)]))
        await asyncio.sleep(max(0.0, pace - (time.monotonic() - began)))
        if not state.question_entry_id:     # (since, nothing to echo: no state query per exchange either)
            with contextlib.suppress(InterviewClientError):
                state = await session_state(handle)
    return run


def decision_latencies(events, sent: list[float], answer_ids: list[str]) -> tuple[list[float], int]:
    """answer submitted (client clock) -> response to the first interviewer-AI request after the answer's event."""
    pairs = decision_pairs(events, sent, answer_ids)
    return [lat for _, lat in pairs if lat is not None], sum(1 for _, lat in pairs if lat is None)


def decision_pairs(events, sent: list[float], answer_ids: list[str]) -> list[tuple[float, float | None]]:
    """(answer sent, latency or None when no decision followed it) per answer."""
    out: list[tuple[float, float | None]] = []
    for entry_id, at in zip(answer_ids, sent, strict=False):
        idx = next((i for i, e in enumerate(events) if e.payload.get("entry_id") == entry_id), None)
        if idx is None:
            out.append((at, None))
            continue
        requested, done = False, None
        for e in events[idx + 1:]:
            if e.actor == "interviewer_ai" and e.type == "AI_REQUEST":
                requested = True
            elif requested and e.actor == "interviewer_ai" and e.type in ("AI_RESPONSE", "AI_FAILED"):
                done = e.timestamp.timestamp()
                break
        out.append((at, None if done is None else done - at))
    return out


async def collect(client, runs: list[SessionRun | BaseException], exchanges: int, res: Result) -> None:  # noqa: ANN001
    """Read every session's event log (QUERY_CONCURRENCY at a time), then terminate it."""
    from temporalio.client import WorkflowExecutionStatus

    from models.interview.names import QUERY_EVENT_LOG
    from models.interview.workflow import EventLogPage

    gate = asyncio.Semaphore(QUERY_CONCURRENCY)
    res.history = HistoryCounts()
    sampled = {r.workflow_id for r in runs[:SAMPLE] if isinstance(r, SessionRun)}

    async def one(run: SessionRun) -> None:
        async with gate:
            handle = client.get_workflow_handle(run.workflow_id)
            try:
                desc = await handle.describe()
                page = await handle.query(QUERY_EVENT_LOG, 0, result_type=EventLogPage)
            except Exception:  # noqa: BLE001 — an unreadable session counts as lost
                res.lost += 1
                res.missed += len(run.sent)
                res.decisions += [(at, None) for at in run.sent]
                return
            if desc.status == WorkflowExecutionStatus.COMPLETED:
                res.finished += 1  # the interview reached its end (its plan asked) and wrote its essay: not lost
            elif desc.status != WorkflowExecutionStatus.RUNNING:
                res.lost += 1
            pairs = decision_pairs(page.events, run.sent, [f"a{t}" for t in range(1, exchanges + 1)])
            res.decisions += pairs
            res.latencies += [lat for _, lat in pairs if lat is not None]
            res.missed += sum(1 for _, lat in pairs if lat is None)
            res.ack_timeouts += run.ack_timeouts
            if run.workflow_id in sampled and res.history is not None:
                with contextlib.suppress(Exception):
                    res.history.add((await handle.fetch_history()).events, exchanges)
            with contextlib.suppress(Exception):
                await handle.terminate("benchmark done")

    for r in runs:
        if isinstance(r, BaseException):  # the session's driver failed (start, plan): lost, every answer missed
            res.lost += 1
            res.missed += exchanges
    await asyncio.gather(*(one(r) for r in runs if isinstance(r, SessionRun)))


async def run_temporal(n: int, exchanges: int, latency: float, tuning: WorkerTuning, n_workers: int = 1,
                       in_process: bool = False, server_config: list[str] | None = None,
                       kill_after: float | None = None, pace: float = CADENCE, tree: Path = ROOT,
                       layout: CoreLayout | None = None) -> Result:
    """One Temporal run of `n` sessions; workers from `tree` (--compare-tree), pinned by `layout` (--per-core)."""
    res = Result(pace=pace)
    async with temporal_side(n_workers, latency, tuning, in_process,
                             server_config if server_config is not None else TUNED_DYNAMIC_CONFIG,
                             tree, layout) as (env, queue, procs):
        client = env.client  # type: ignore[attr-defined]
        server_pid = dev_server_pid()
        if layout is not None:
            res.pinned = pinned_text([("server", server_pid or 0), *((f"worker {p.index}", p.pid) for p in procs),
                                      ("bench", os.getpid())])
        server0 = cpu_seconds(server_pid) if server_pid else 0.0
        client0 = cpu_seconds()
        began = time.monotonic()
        killer = None
        if kill_after is not None and len(procs) >= 2:
            victim = procs[-1]

            async def kill() -> None:
                await asyncio.sleep(kill_after)
                res.kill_at = time.time()
                await victim.stop(signal.SIGKILL)

            killer = asyncio.create_task(kill())
            res.window_s = tuning.sticky_queue_timeout_s + 10.0
        def sample() -> dict[str, float]:
            now = {f"worker {p.index}": (p.final_cpu if p.final_cpu is not None else p.cpu_now()) for p in procs}
            if server_pid:
                now["server"] = cpu_seconds(server_pid)
            return now

        gate = StartGate(n, sample)
        runs = await asyncio.gather(*(temporal_session(client, queue, i, n, exchanges, pace, gate)
                                      for i in range(n)), return_exceptions=True)
        await asyncio.sleep(CYCLE / 2)  # let the last decisions land
        res.wall_s = time.monotonic() - began
        if killer is not None:
            await killer
        # CPU up to here (the collection below is bookkeeping, not load)
        end = sample()
        if gate.at is not None and kill_after is None and procs:
            res.steady_cpu = {k: v - gate.cpu.get(k, v) for k, v in end.items()}
            res.steady_at = gate.at
            res.steady_exchanges = sum(1 for r in runs if isinstance(r, SessionRun) for t in r.sent if t >= gate.at)
        cpu = {"client": cpu_seconds() - client0}
        if server_pid:
            cpu["server"] = end["server"] - server0
        for p in procs:
            cpu[f"worker {p.index}"] = end[f"worker {p.index}"] - p.ready_cpu
        if in_process:
            cpu = {("client+worker" if k == "client" else k): v for k, v in cpu.items()}
        res.cpu = CpuUse(cpu)
        await collect(client, list(runs), exchanges, res)
    return res


@dataclass(frozen=True)
class Settings:
    """What every run of one bench invocation shares."""

    tuning: WorkerTuning
    server_config: list[str]
    header: list[str]
    layout: CoreLayout | None = None    # --per-core


def cpu_text(res: Result, n: int, exchanges: int) -> str:
    if res.cpu is None:
        return "CPU: not measured"
    line = res.cpu.line(cycles=n * exchanges, session_minutes=n * res.wall_s / 60, wall_s=res.wall_s)
    if res.steady_cpu is not None:
        line = f"{line}\n    {res.steady_line()}"
    return line if res.history is None else f"{line}\n    {res.history.line()}"


