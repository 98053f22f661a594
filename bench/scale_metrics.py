"""Pure helpers of `bench.interview_scale`: CPU accounting from /proc, latency summaries, kill-drill windows.

CPU is read per process from /proc/<pid>/stat (utime + stime, in clock ticks): the dev server, each worker
process and the bench process itself (the client), each sampled once the process is ready and again at the
end of a run, so imports and start-up are not counted. A process that was killed is read from its exit
rusage instead (`os.wait4`), which covers its whole life; its ready-time sample is subtracted the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.scale_history import HistoryCounts

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def parse_proc_stat(text: str) -> tuple[int, int, int]:
    """(ppid, utime, stime) in clock ticks from the text of /proc/<pid>/stat.

    The second field (comm) is in parentheses and may itself contain spaces and parentheses, so the fields are
    counted from the LAST ')'. After it: state(3) ppid(4) ... utime(14) stime(15), numbered as in proc(5)."""
    close = text.rindex(")")
    rest = text[close + 1:].split()
    # rest[0] is field 3 (state): field k is rest[k - 3]
    return int(rest[4 - 3]), int(rest[14 - 3]), int(rest[15 - 3])


def cpu_seconds(pid: int | str = "self", proc: Path = Path("/proc")) -> float:
    """utime + stime of one process (its threads included, its children not), in seconds."""
    _, utime, stime = parse_proc_stat((proc / str(pid) / "stat").read_text())
    return (utime + stime) / CLOCK_TICKS


def children(pid: int, proc: Path = Path("/proc")) -> list[int]:
    """The live child processes of `pid` (scanning /proc; processes that vanish meanwhile are skipped)."""
    out = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid, _, _ = parse_proc_stat((entry / "stat").read_text())
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid:
            out.append(int(entry.name))
    return sorted(out)


def cmdline(pid: int, proc: Path = Path("/proc")) -> list[str]:
    try:
        return [a.decode(errors="replace") for a in (proc / str(pid) / "cmdline").read_bytes().split(b"\0") if a]
    except OSError:
        return []


def rusage_seconds(ru) -> float:  # noqa: ANN001 — resource.struct_rusage
    return float(ru.ru_utime + ru.ru_stime)


# ------------------------------------------------------------------------------------------------- CPU table
@dataclass(frozen=True)
class CpuUse:
    """CPU seconds spent during one run, per role ("server", "worker 1", "worker 2", …, "client")."""

    seconds: Mapping[str, float]

    def role_total(self, prefix: str) -> float:
        return sum(v for k, v in self.seconds.items() if k.startswith(prefix))

    @property
    def total(self) -> float:
        return sum(self.seconds.values())

    def line(self, cycles: int, session_minutes: float, wall_s: float) -> str:
        """One line: CPU seconds per role, then per cycle (one session's question + answer) and per
        session-minute, and the run's average cores busy."""
        client = "client+worker" if "client+worker" in self.seconds else "client"  # --in-process
        groups = [("server", self.role_total("server")), ("workers", self.role_total("worker")),
                  (client, self.role_total("client"))]
        if client == "client+worker":
            groups = [g for g in groups if g[0] != "workers"]
        workers = [f"{k} {v:.1f}" for k, v in sorted(self.seconds.items()) if k.startswith("worker")]
        per_cycle = " | ".join(f"{name} {_ratio(v, cycles) * 1000:.0f}" for name, v in groups)
        per_minute = " | ".join(f"{name} {_ratio(v, session_minutes):.3f}" for name, v in groups)
        return ("CPU s: " + " | ".join(f"{name} {v:.1f}" for name, v in groups)
                + (f" ({', '.join(workers)})" if len(workers) > 1 else "")
                + f" | total {self.total:.1f} = {_ratio(self.total, wall_s):.2f} cores over {wall_s:.0f} s; "
                f"per cycle (ms): {per_cycle}; per session-minute (s): {per_minute}")


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


# ------------------------------------------------------------------------------------------------- latencies
def pct(values: Iterable[float], p: float) -> float:
    """The p-th percentile, nearest rank on (n - 1) (as bench.interview_common.pct); NaN when empty."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


@dataclass(frozen=True)
class Summary:
    n: int
    missed: int
    p50: float
    p95: float
    max: float

    def sustained(self, cadence_s: float) -> bool:
        return not self.missed and self.n > 0 and self.p95 < cadence_s

    def text(self) -> str:
        if not self.n:
            return f"decisions    0, missed {self.missed:>3}"
        return (f"decisions {self.n:>4}, missed {self.missed:>3}, p50 {self.p50:6.2f} s, p95 {self.p95:6.2f} s, "
                f"max {self.max:6.2f} s")


def summarize(latencies: Iterable[float | None]) -> Summary:
    """Decision latencies (None = a missed decision) to count, missed, p50, p95 and max."""
    values = list(latencies)
    got = [v for v in values if v is not None]
    return Summary(n=len(got), missed=len(values) - len(got), p50=pct(got, 50), p95=pct(got, 95),
                   max=max(got) if got else float("nan"))


def kill_windows(decisions: Iterable[tuple[float, float | None]], kill_at: float, window_s: float
                 ) -> dict[str, Summary]:
    """Split (answer sent at, latency or None) around a worker killed at `kill_at` (same clock):

    - before: decided before the kill;
    - window: not decided before the kill and the answer sent before kill_at + window_s (the sticky-queue
      timeout plus a margin): the decisions the kill can delay;
    - after: answers sent after the window."""
    groups: dict[str, list[float | None]] = {"before": [], "window": [], "after": []}
    for sent, latency in decisions:
        if latency is not None and sent + latency < kill_at:
            groups["before"].append(latency)
        elif sent < kill_at + window_s:
            groups["window"].append(latency)
        else:
            groups["after"].append(latency)
    return {k: summarize(v) for k, v in groups.items()}


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)
    missed: int = 0
    wall_s: float = 0.0
    decisions: list[tuple[float, float | None]] = field(default_factory=list)  # (answer sent, latency or None)
    lost: int = 0            # sessions whose workflow failed, was terminated or timed out, or is unreadable
    finished: int = 0        # sessions whose interview reached its end by itself (COMPLETED) before the run ended
    ack_timeouts: int = 0    # entries the client gave up waiting for (submit_entry's 10 s); they may still land
    cpu: CpuUse | None = None
    kill_at: float | None = None
    window_s: float = 0.0
    pace: float = 10.0       # seconds between a session's exchanges: a decision must land within one
    history: HistoryCounts | None = None
    pinned: str = ""         # --per-core: which pid runs on which CPUs, read back from the kernel
    #: steady state: CPU seconds per role from the moment every session had its first question to the end, and the
    #: exchanges (answers sent) in that span — the cost of an exchange without the starts (plans, first questions)
    steady_cpu: Mapping[str, float] | None = None
    steady_exchanges: int = 0
    steady_at: float | None = None   # time.time() from which the steady state counts (answers sent from then on)

    def steady_latencies(self) -> list[float]:
        """Latencies of the answers sent in the steady state: the live sessions' pace, with no start beside it."""
        if self.steady_at is None:
            return []
        return [lat for at, lat in self.decisions if lat is not None and at >= self.steady_at]

    def steady_ms(self, prefix: str) -> float:
        """CPU ms per exchange of one role (`worker`, `server`) in the steady state; NaN when not measured."""
        if not self.steady_cpu or not self.steady_exchanges:
            return float("nan")
        return sum(v for k, v in self.steady_cpu.items() if k.startswith(prefix)) / self.steady_exchanges * 1000

    def steady_line(self) -> str:
        if not self.steady_cpu or not self.steady_exchanges:
            return "steady state: not measured (the run ended before every session had its first question)"
        return (f"steady state (after every session's first question; {self.steady_exchanges} exchanges): CPU ms "
                f"per exchange: server {self.steady_ms('server'):.0f} | workers {self.steady_ms('worker'):.0f}")

    def summary(self) -> Summary:
        return summarize([*self.latencies, *([None] * self.missed)])

    def line(self, label: str, n: int) -> str:
        s = self.summary()
        extra = ""
        if self.lost or self.ack_timeouts:
            extra = f", sessions lost {self.lost}, entries unacknowledged {self.ack_timeouts}"
        if self.finished:
            extra += f", interviews finished {self.finished}"
        return (f"  {label:<18} {n:>4} sessions: {s.text()}{extra} "
                f"-> {'sustained' if s.sustained(self.pace) else 'NOT sustained'}")
