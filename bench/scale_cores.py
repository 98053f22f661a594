"""CPU pinning for `bench.interview_scale --per-core` (issue 40): worker processes on `--worker-cores`, the dev
server and the bench process (the client and the asyncio baseline) on every other core, as in production where the
Temporal server has cores of its own. Also the pure helpers of the per-core summary: which size counts as
sustained per worker core, and the bisection of `--search`.

Linux sets affinity per thread: `os.sched_setaffinity(pid)` changes the thread whose id is `pid` only, and a new
thread inherits its creator's mask. So the bench pins itself (every thread in /proc/self/task) before it starts
anything; the dev server then inherits the server cores, and `pin` re-applies them to each of its threads anyway.
Worker processes are pinned in the child between fork and exec (`preexec_fn`), before they start any thread.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

RATIO_LIMIT = 1.1   # a size is sustained per core when temporal p95 <= 1.1 x asyncio p95 and no decision is missed
SEARCH_STEP = 25    # --search bisects down to this many sessions
SEARCH_RUNS = 3     # at most this many extra sizes per cadence


def parse_cpu_list(text: str) -> frozenset[int]:
    """A taskset-style CPU list ("0", "0-1", "0,2-3") to a set of CPU numbers; ValueError when malformed."""
    cpus: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            raise ValueError(f"empty item in the CPU list {text!r}")
        lo, sep, hi = part.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise ValueError(f"{part!r} in {text!r} is not a CPU number or a range like 0-1")
        first, last = int(lo), int(hi) if sep else int(lo)
        if last < first:
            raise ValueError(f"the range {part!r} in {text!r} runs backwards")
        cpus.update(range(first, last + 1))
    return frozenset(cpus)


def format_cpus(cpus: Iterable[int]) -> str:
    """The inverse of parse_cpu_list, with runs as ranges: {0, 1, 2, 5} -> "0-2,5"."""
    out: list[str] = []
    ordered = sorted(set(cpus))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(out)


@dataclass(frozen=True)
class CoreLayout:
    workers: frozenset[int]   # the worker processes' cores
    server: frozenset[int]    # the dev server's and this process's (client + asyncio baseline)
    split_roles: bool = False  # per worker core, `--role workflows` and `--role llm` processes, not one `--role all`

    @property
    def roles(self) -> tuple[str, ...]:
        """The `colloquy worker --role` of each process a worker core runs."""
        return ("workflows", "llm") if self.split_roles else ("all",)

    def text(self) -> str:
        return (f"workers on CPU {format_cpus(self.workers)}"
                + (" (per core: a `--role workflows` and a `--role llm` process)" if self.split_roles else "")
                + f"; dev server + client on CPU {format_cpus(self.server)}")


def plan_cores(worker_text: str, available: Iterable[int], split_roles: bool = False) -> CoreLayout:
    """Split the CPUs this process may use: `worker_text` for the workers, the rest for the server and client.
    ValueError (with the reason) when there are fewer than 2 CPUs, a worker CPU is not available, or the workers
    would leave the server none."""
    usable = frozenset(available)
    if len(usable) < 2:
        raise ValueError(f"--per-core needs at least 2 CPUs; this process may use {len(usable)} "
                         f"({format_cpus(usable) or 'none'})")
    workers = parse_cpu_list(worker_text)
    missing = workers - usable
    if missing:
        raise ValueError(f"--worker-cores {worker_text}: CPU {format_cpus(missing)} not available to this process "
                         f"(it may use {format_cpus(usable)})")
    server = usable - workers
    if not server:
        raise ValueError(f"--worker-cores {worker_text} takes every CPU ({format_cpus(usable)}): the dev server and "
                         f"the client need at least one other")
    return CoreLayout(workers, server, split_roles)


def threads(pid: int | str, proc: Path = Path("/proc")) -> list[int]:
    """The thread ids of a process (itself only, when /proc/<pid>/task is unreadable)."""
    try:
        return sorted(int(t.name) for t in (proc / str(pid) / "task").iterdir() if t.name.isdigit())
    except OSError:
        return [] if pid == "self" else [int(pid)]


def pin(pid: int | str, cpus: Iterable[int]) -> None:
    """Every thread of `pid` onto `cpus` (threads that end meanwhile are skipped)."""
    mask = set(cpus)
    for tid in threads(pid):
        try:
            os.sched_setaffinity(tid, mask)
        except ProcessLookupError:
            continue


def affinity(pid: int) -> frozenset[int]:
    """The CPUs `pid` (its main thread) may run on, read back from the kernel."""
    return frozenset(os.sched_getaffinity(pid))


def thread_cpus(pid: int) -> dict[frozenset[int], int]:
    """How many of `pid`'s threads may run on each CPU set, read back from the kernel (threads that end meanwhile
    are skipped)."""
    out: dict[frozenset[int], int] = {}
    for tid in threads(pid):
        try:
            cpus = affinity(tid)
        except OSError:
            continue
        out[cpus] = out.get(cpus, 0) + 1
    return out


def pinned_text(pids: Sequence[tuple[str, int]]) -> str:
    """"server pid 12 on CPU 1 (all 14 threads), worker 1 pid 13 on CPU 0 (all 9 threads), …", as the kernel
    reports it now for every thread of each process."""
    parts = []
    for name, pid in pids:
        masks = thread_cpus(pid)
        if not masks:
            parts.append(f"{name} pid {pid} (gone)")
            continue
        sets = "; ".join(f"CPU {format_cpus(m)} ({n} thread{'s' if n > 1 else ''})"
                         for m, n in sorted(masks.items(), key=lambda kv: -kv[1]))
        if len(masks) == 1:
            sets = f"CPU {format_cpus(next(iter(masks)))} (all {sum(masks.values())} threads)"
        parts.append(f"{name} pid {pid} on {sets}")
    return "pinned: " + ", ".join(parts)


# ------------------------------------------------------------------------------------------------ per-core summary
@dataclass(frozen=True)
class SizeOutcome:
    sessions: int
    temporal_p95: float
    asyncio_p95: float
    missed: int

    @property
    def ratio(self) -> float:
        return self.temporal_p95 / self.asyncio_p95 if self.asyncio_p95 > 0 else float("nan")

    @property
    def passes(self) -> bool:
        """p95 within RATIO_LIMIT x asyncio's (NaN, e.g. no decision at all, fails) and no decision missed."""
        return self.missed == 0 and self.ratio <= RATIO_LIMIT


def largest_passing(outcomes: Iterable[SizeOutcome]) -> int | None:
    passing = [o.sessions for o in outcomes if o.passes]
    return max(passing) if passing else None


def per_core_line(outcomes: Iterable[SizeOutcome], worker_cores: int, cadence: float, steady: bool = False) -> str:
    """`sessions per worker core: N (cadence S s, p95 ≤ 1.1× asyncio)`: N = the largest passing size divided by
    the worker cores."""
    best = largest_passing(outcomes)
    if best is None:
        value = "below the smallest size tried"
    else:
        value = f"{best / worker_cores:g}"
    what = "sessions per worker core, steady state" if steady else "sessions per worker core"
    return f"{what}: {value} (cadence {cadence:g} s, p95 ≤ {RATIO_LIMIT:g}× asyncio)"


def next_probe(outcomes: Iterable[SizeOutcome], step: int = SEARCH_STEP) -> int | None:
    """The next size to try when bisecting between the largest passing size and the smallest failing size above
    it, on multiples of `step`; None when there is no such pair or they are `step` or less apart."""
    done = list(outcomes)
    lo = largest_passing(done)
    if lo is None:
        return None
    above = [o.sessions for o in done if not o.passes and o.sessions > lo]
    if not above:
        return None
    hi = min(above)
    if hi - lo <= step:
        return None
    mid = round((lo + hi) / 2 / step) * step
    if not lo < mid < hi:
        mid = lo + step
    return mid
