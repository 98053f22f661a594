"""Scale: how many concurrent rehearsed sessions Temporal workers sustain at a given pace (`--cadence`, 10 s by
default) with a simulated 1 s model, their decision latency (p50/p95) against the same agents driven by a plain in-process asyncio loop, and
where the CPU goes (dev server vs worker processes vs this client).

Each session: every `--cadence` s an answer goes in (`submit_entry`) half a cadence after the question; the engine
records its own question as the interviewer's entry, so a client sends nothing else (on a run from before that
change it echoed the question as an update and read `session_state` once per exchange). Decision latency = answer submitted -> the Orchestrator's response to the first request made after
it (read back from the workflow's event log; same host clock). Temporal side: one dev server (a child of this
process) and N worker PROCESSES (`colloquy worker --role all`, the offline provider at the same simulated latency
through COLLOQUY_OFFLINE_LATENCY_MS / COLLOQUY_OFFLINE_LATENCY_AGENTS), tuned by COLLOQUY_WORKER_*
(core.settings.WorkerTuning); `--in-process` runs one worker pair inside this process instead (the old layout).
Baseline: the same agent functions (NoteTaker ∥ Researcher, then Orchestrator unless a question is waiting for its
answer; same windows, merge and fallback logic), one asyncio task per session, nothing durable. "Sustained" = no
missed decision and p95 below the cadence (a decision lands before the next exchange).

CPU: utime + stime from /proc/<pid>/stat of the dev server, each worker process and this process (the client:
session drivers and queries), from the moment each is ready to the end of the run, per cycle (one session's
question + answer) and per session-minute (bench/scale_metrics.py). History per exchange: events, workflow and
activity tasks, updates, signals, timers and bytes, from a sample of the sessions' histories (bench/scale_history.py).

    python -m bench.interview_scale [--sessions 10,50,100] [--exchanges 2] [--latency 1.0] [--cadence 10|30,10]
                                    [--workers 2] [--kill-drill] [--in-process] [--sdk-defaults]
                                    [--per-core [--worker-cores 0] [--split-roles] [--search]] [--compare-tree PATH [--repeat K]]
                                    [--start-burst K]

`--workers 2` runs every size with one and with two worker processes (both `--role all` on one queue) and prints
what the second adds, then the kill drill (unless `--no-kill-drill`): per size, a run with two workers where one is
SIGKILLed mid-run — sessions lost, missed decisions, and decision latency before the kill, in the sticky-queue
window after it, and after that (docs/performance.md).

`--per-core` pins the workers to `--worker-cores` and the dev server and this process to the other cores, and
prints `sessions per worker core` per cadence (bench/scale_per_core.py, bench/scale_cores.py; `--split-roles`: a
`--role workflows` and a `--role llm` process per worker core, as deploy/k8s runs them); `--compare-tree PATH`
runs another source tree's workers beside this tree's, size by size (`--repeat K`: K alternating runs of each,
medians printed; bench/scale_per_core.py); `--start-burst K`
starts K interviews within 30 s beside `--sessions L` live ones (bench/scale_burst.py).
The Temporal run itself (session drivers, event-log reads, run_temporal) is bench/scale_temporal.py.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import os
import resource
from dataclasses import fields
from pathlib import Path

from bench.interview_common import artifacts_in_tmp, median, pct, quiet
from bench.scale_asyncio import run_asyncio
from bench.scale_burst import run_bursts
from bench.scale_cores import (
    SEARCH_RUNS,
    SEARCH_STEP,
    affinity,
    format_cpus,
    pin,
    plan_cores,
)
from bench.scale_metrics import Result, kill_windows
from bench.scale_per_core import check_tree, run_per_core
from bench.scale_processes import SLOW_AGENTS
from bench.scale_temporal import CADENCE, QUERY_CONCURRENCY, Settings, cpu_text, run_temporal
from core.server import TUNED_DYNAMIC_CONFIG
from core.settings import SDK_WORKER_DEFAULTS, WORKER_TUNING_ENV, WorkerTuning

MAIN_DYNAMIC_CONFIG = ["history.transferProcessorMaxPollRPS=10000"]  # what the dev server had before


# ----------------------------------------------------------------------------------------------- main
def raise_open_files() -> tuple[int, int]:
    """Soft RLIMIT_NOFILE up to the hard limit (worker processes inherit it): (before, after)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if want > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return soft, resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def settings_header(tuning: WorkerTuning, server_config: list[str], layout: str, files: tuple[int, int],
                    executor_threads: int) -> list[str]:
    lines = [f"settings (before = the SDK's defaults / main's dev server; used = this run) — {layout}"]
    for f in fields(WorkerTuning):
        before, used = SDK_WORKER_DEFAULTS[f.name], getattr(tuning, f.name)
        mark = "" if before == used else "  *"
        lines.append(f"  worker {f.name:<31} before {before!s:>6}  used {used!s:>6}  "
                     f"({WORKER_TUNING_ENV[f.name]}){mark}")
    lines.append(f"  dev server dynamic config  before: {' '.join(MAIN_DYNAMIC_CONFIG)}")
    lines.append(f"                             used:   {' '.join(server_config)}")
    lines.append(f"  open files soft limit {files[0]} -> {files[1]}; this process's default executor "
                 f"{executor_threads} threads; final event-log queries {QUERY_CONCURRENCY} at a time")
    return lines


def second_worker_line(n: int, one: Result, two: Result) -> str:
    a, b = one.summary(), two.summary()
    cpu = ""
    if one.cpu and two.cpu:
        cpu = f"; CPU total {one.cpu.total:.1f} -> {two.cpu.total:.1f} s"
    return (f"  SECOND WORKER at {n} sessions: p50 {a.p50:.2f} -> {b.p50:.2f} s, p95 {a.p95:.2f} -> {b.p95:.2f} s, "
            f"max {a.max:.2f} -> {b.max:.2f} s, missed {a.missed} -> {b.missed}{cpu}")


def kill_lines(n: int, res: Result) -> list[str]:
    if res.kill_at is None:
        return [f"  KILL DRILL at {n} sessions: no worker was killed (the run ended first)"]
    w = kill_windows(res.decisions, res.kill_at, res.window_s)
    verdict = "OK" if res.lost == 0 else "SESSIONS LOST"
    return [f"  KILL DRILL at {n} sessions: worker 2 SIGKILLed; sessions lost {res.lost} ({verdict}), missed "
            f"decisions {res.missed}, entries unacknowledged within the client's 10 s {res.ack_timeouts}",
            f"    before the kill:                      {w['before'].text()}",
            f"    window (kill + {res.window_s:.0f} s, sticky timeout + 10 s): {w['window'].text()}",
            f"    after the window:                     {w['after'].text()}"]


async def main_async(args: argparse.Namespace) -> None:
    from activities.llm import offline

    quiet()
    files = raise_open_files()
    threads = 64  # the SDK's and the client's blocking helpers must not queue behind 6 default threads
    asyncio.get_running_loop().set_default_executor(concurrent.futures.ThreadPoolExecutor(max_workers=threads))
    offline.reset()
    for agent in SLOW_AGENTS:  # the asyncio baseline and in-process workers; worker processes get it by env
        offline.set_latency(args.latency, agent)
    tuning = WorkerTuning(**SDK_WORKER_DEFAULTS) if args.sdk_defaults else WorkerTuning.from_env()  # type: ignore[arg-type]
    server_config = MAIN_DYNAMIC_CONFIG if args.main_server_config else TUNED_DYNAMIC_CONFIG
    counts = [1] if args.in_process else list(range(1, args.workers + 1))
    layout = ("one worker pair in this process" if args.in_process else
              f"{' and '.join(map(str, counts))} worker process(es) `colloquy worker --role all` on one queue")
    if args.layout is not None:
        layout = (f"{len(args.layout.workers)} worker process(es) `colloquy worker --role all` on one queue, one per "
                  f"worker core") if not args.layout.split_roles else (
                  f"{len(args.layout.workers)} pair(s) of worker processes on one queue, `colloquy worker --role "
                  f"workflows` and `--role llm`, one pair per worker core")
    header = settings_header(tuning, server_config, layout, files, threads)
    if args.layout is not None:
        header.append(f"  per core: {args.layout.text()}; this process (client + asyncio baseline) pid "
                      f"{os.getpid()} on CPU {format_cpus(affinity(os.getpid()))} (read back); each run prints "
                      f"its server's and workers' pids and CPUs")
    settings = Settings(tuning, server_config, header, args.layout)
    print("\n".join(header), flush=True)
    async with artifacts_in_tmp():
        if args.start_burst:
            await run_bursts(args, settings)
        elif args.layout is not None or args.compare_tree is not None:
            await run_per_core(args, settings)
        else:
            for cadence in args.cadences:
                await run_sizes(args, settings, counts, cadence)


async def run_sizes(args: argparse.Namespace, settings: Settings, counts: list[int], cadence: float) -> None:
    """Every size with 1..--workers worker processes and asyncio (and the kill drill), then the summary."""
    tuning, server_config = settings.tuning, settings.server_config
    sizes = [int(x) for x in args.sessions.split(",")]
    rows: list[tuple[int, dict[int, Result], Result, Result | None]] = []
    kill_after = args.kill_after if args.kill_after is not None else default_kill_after(args.exchanges, cadence)
    for n in sizes:
        temporal: dict[int, Result] = {}
        for w in counts:
            t = await run_temporal(n, args.exchanges, args.latency, tuning, w, args.in_process, server_config,
                                   pace=cadence)
            temporal[w] = t
            print(t.line(f"temporal {w} worker{'s' if w > 1 else ''}", n), flush=True)
            print("    " + cpu_text(t, n, args.exchanges), flush=True)
        a = await run_asyncio(n, args.exchanges, cadence)
        print(a.line("asyncio", n), flush=True)
        k = None
        if args.kill_drill:
            k = await run_temporal(n, args.exchanges, args.latency, tuning, 2, False, server_config, kill_after,
                                   pace=cadence)
            print(k.line("temporal kill", n), flush=True)
            print("\n".join(kill_lines(n, k)), flush=True)
        rows.append((n, temporal, a, k))
    print()
    print("\n".join(settings.header))
    print(f"scale — cadence {cadence:g} s, simulated model {args.latency:.1f} s per call, {args.exchanges} "
          f"exchanges per session; server, workers and client share this machine's {os.cpu_count()} CPUs")
    for n, temporal, a, k in rows:
        for w, t in temporal.items():
            print(t.line(f"temporal {w} worker{'s' if w > 1 else ''}", n))
            print("    " + cpu_text(t, n, args.exchanges))
        print(a.line("asyncio", n))
        for w, t in temporal.items():
            if t.latencies and a.latencies:
                print(f"  RATIO temporal ({w} worker{'s' if w > 1 else ''})/asyncio at {n} sessions: "
                      f"p50 {median(t.latencies) / median(a.latencies):.2f}, "
                      f"p95 {pct(t.latencies, 95) / pct(a.latencies, 95):.2f}")
        if 1 in temporal and 2 in temporal:
            print(second_worker_line(n, temporal[1], temporal[2]))
        if k is not None:
            print(k.line("temporal kill", n))
            print("\n".join(kill_lines(n, k)))


def default_kill_after(exchanges: int, pace: float = CADENCE) -> float:
    """Seconds after the sessions start: past the start spread (one cadence) and the plans, then a third of the
    exchanges in, so that (with 6 or more exchanges) decisions land before, inside and after the window."""
    return pace + 5 + pace * max(1, exchanges // 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", default="10,50,100", help="Comma-separated concurrent session counts.")
    parser.add_argument("--exchanges", type=int, default=2, help="Question/answer exchanges per session.")
    parser.add_argument("--latency", type=float, default=1.0, help="Simulated seconds per LLM call.")
    parser.add_argument("--cadence", default=f"{CADENCE:g}",
                        help="Seconds between a session's exchanges (the answer comes half-way); people take 20-60 s "
                             "to answer aloud or in writing. A decision must land within one to count as sustained. "
                             "A comma-separated list (30,10) runs everything once per cadence.")
    parser.add_argument("--workers", type=int, default=1,
                        help="Run each size with 1..N worker processes (2: what the second worker adds).")
    parser.add_argument("--kill-drill", action=argparse.BooleanOptionalAction, default=None,
                        help="Per size, also run two worker processes and SIGKILL one mid-run (on by default with "
                             "--workers 2 or more; --no-kill-drill leaves it out).")
    parser.add_argument("--kill-after", type=float, default=None,
                        help="Seconds after the sessions start to kill (default: cadence + 5 + cadence * max(1, exchanges // 3)).")
    parser.add_argument("--in-process", action="store_true",
                        help="One worker pair inside this process (the old layout; CPU then reads client+worker).")
    parser.add_argument("--sdk-defaults", action="store_true",
                        help="Workers with the SDK's defaults (before WorkerTuning) instead of COLLOQUY_WORKER_*.")
    parser.add_argument("--main-server-config", action="store_true",
                        help="The dev server with main's dynamic config (before the matching/rps tuning).")
    add_per_core_arguments(parser)
    args = parser.parse_args()
    if args.in_process and (args.workers > 1 or args.kill_drill):
        parser.error("--in-process runs one worker pair in this process: no --workers > 1 or --kill-drill")
    try:
        args.cadences = [float(x) for x in args.cadence.split(",")]
    except ValueError:
        parser.error(f"--cadence {args.cadence}: seconds, or a comma-separated list of them like 30,10")
    if min(args.cadences) < 2:
        parser.error("--cadence must be at least 2 seconds")
    args.cadence = args.cadences[0]
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.kill_drill is None:
        args.kill_drill = args.workers > 1
    check_per_core_arguments(parser, args)
    if args.layout is not None:
        pin("self", args.layout.server)  # before any thread or child: the dev server inherits the server cores
    asyncio.run(main_async(args))


def add_per_core_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--per-core", action="store_true",
                        help="Pin the worker processes (one per worker core) to --worker-cores and the dev server and "
                             "this process (client + asyncio baseline) to every other core; print `sessions per "
                             "worker core` per cadence.")
    parser.add_argument("--worker-cores", default=None,
                        help="With --per-core: the workers' CPUs, taskset-style (0, 0-1, 0,2); default 0.")
    parser.add_argument("--split-roles", action="store_true",
                        help="With --per-core: each worker core runs two processes, `colloquy worker --role workflows` "
                             "and `--role llm` (how deploy/k8s runs them), instead of one `--role all`; CPU per "
                             "exchange is both processes'.")
    parser.add_argument("--search", action="store_true",
                        help=f"With --per-core: after the sizes, bisect between the largest passing and the smallest "
                             f"failing size down to a step of {SEARCH_STEP} (at most {SEARCH_RUNS} more sizes).")
    parser.add_argument("--compare-tree", type=Path, default=None, metavar="PATH",
                        help="Another source tree (e.g. a git worktree of an older commit): per size, run its worker "
                             "processes and then this tree's, same server and client, and compare their CPU.")
    parser.add_argument("--repeat", type=int, default=1, metavar="K",
                        help="With --compare-tree: per size, run the two trees K times, alternating (before, this, "
                             "before, ...), and print each figure's median and range (single runs vary ±15 %% in CPU "
                             "on a 2-core machine).")
    parser.add_argument("--start-burst", type=int, default=None, metavar="K",
                        help="With --sessions L (one size) live at the cadence, start K more interviews within 30 s "
                             "and report the live sessions' latency during the burst and the burst's time to first "
                             "question.")


def check_per_core_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Reject what the per-core, compare and burst modes cannot do; sets args.layout (None without --per-core)."""
    args.layout = None
    special = [name for name, on in (("--per-core", args.per_core), ("--compare-tree", args.compare_tree),
                                     ("--start-burst", args.start_burst is not None)) if on]
    if special and (args.in_process or args.kill_drill or args.workers > 1):
        parser.error(f"with {' and '.join(special)} the bench chooses the worker processes (one per worker core "
                     f"with --per-core, else one): --in-process, --workers and --kill-drill do not apply")
    if not args.per_core and (args.worker_cores is not None or args.search or args.split_roles):
        parser.error("--worker-cores, --search and --split-roles go with --per-core")
    if args.per_core:
        try:
            args.layout = plan_cores(args.worker_cores or "0", os.sched_getaffinity(0), args.split_roles)
        except ValueError as exc:
            parser.error(str(exc))
    if args.start_burst is not None:
        if args.start_burst < 1:
            parser.error("--start-burst must be at least 1")
        if "," in args.sessions or args.compare_tree is not None or args.search:
            parser.error("--start-burst takes one --sessions size (the live sessions), without --compare-tree or "
                         "--search")
    if args.repeat < 1 or (args.repeat > 1 and args.compare_tree is None):
        parser.error("--repeat K (K ≥ 1) goes with --compare-tree")
    if args.compare_tree is not None:
        problem = check_tree(args.compare_tree)
        if problem:
            parser.error(f"--compare-tree {args.compare_tree}: {problem}")
        args.compare_tree = args.compare_tree.resolve()


if __name__ == "__main__":
    main()
