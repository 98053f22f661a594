"""`bench.interview_scale --per-core` and `--compare-tree` (issue 40): sessions per worker core, and one tree's
workers against another's in the same bench run.

--per-core: the worker processes (one per worker core) on `--worker-cores`, the dev server and this process (the
client and the asyncio baseline) on every other core (bench/scale_cores.py). Per cadence, each size runs Temporal
and then asyncio; the summary prints one line per cadence, `sessions per worker core: N (cadence S s, p95 ≤ 1.1×
asyncio)`, N = the largest size with temporal p95 / asyncio p95 ≤ 1.1 and no decision missed, divided by the
worker cores; a second line, `sessions per worker core, steady state: N (…)`, compares only the answers sent
after every session had its first question. `--search` then bisects between the largest passing and the smallest
failing size (step 25, at most 3 more sizes).

--compare-tree PATH: per size, Temporal with worker processes run from PATH (cwd and PYTHONPATH = PATH, this
Python), then with this tree's, then asyncio; same server settings, same client (this tree's). Prints both lines,
the workers' and the server's CPU per exchange both ways. `--repeat K` runs the two trees K times per size,
alternating, and prints each figure's median and range; the per-core lines then read each size's median run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

from bench.scale_asyncio import run_asyncio
from bench.scale_cores import SEARCH_RUNS, SizeOutcome, next_probe, per_core_line
from bench.scale_metrics import Result, pct
from bench.scale_processes import ROOT
from bench.scale_temporal import Settings, cpu_text, run_temporal


def check_tree(path: Path) -> str | None:
    """Why `path` cannot run `python -m client.cli worker` (None when it can): it must be a directory whose
    client.cli has a `worker` command, run with this Python and PYTHONPATH = path."""
    if not path.is_dir():
        return "not a directory"
    if not (path / "client" / "cli.py").is_file():
        return "no client/cli.py there (not a Colloquy source tree)"
    env = {**os.environ, "PYTHONPATH": str(path.resolve()), "COLLOQUY_PROFILE": "offline"}
    try:
        done = subprocess.run([sys.executable, "-m", "client.cli", "worker", "--help"], cwd=path, env=env,
                              capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        return "`python -m client.cli worker --help` did not answer within 180 s"
    if done.returncode != 0:
        return f"`python -m client.cli worker --help` failed there: {(done.stderr or done.stdout).strip()[-500:]}"
    return None


def tree_label(path: Path) -> str:
    """`<dir name>@<short commit>` when `path` is a git checkout, else the directory's name."""
    try:
        commit = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        commit = ""
    return f"{path.name}@{commit}" if commit else path.name


def outcome(n: int, t: Result, a: Result) -> SizeOutcome:
    return SizeOutcome(n, pct(t.latencies, 95), pct(a.latencies, 95), t.summary().missed)


def median_outcome(n: int, runs: list[Result], a: Result, steady: bool = False) -> SizeOutcome:
    """`--repeat`: the size's outcome with the median p95 of the tree's runs (a decision missed in any run fails)."""
    outs = [(steady_outcome if steady else outcome)(n, r, a) for r in runs]
    return SizeOutcome(n, median(o.temporal_p95 for o in outs), outs[0].asyncio_p95, sum(o.missed for o in outs))


def row_outcome(row: Row, base: bool = False, steady: bool = False) -> SizeOutcome:
    """The outcome the per-core lines read: the median over `--repeat` runs, else the one run's."""
    if len(row.pairs) >= 2:
        return median_outcome(row.n, [p[0] if base else p[1] for p in row.pairs], row.asyncio, steady)
    t = row.base if base else row.this
    assert t is not None
    return (steady_outcome if steady else outcome)(row.n, t, row.asyncio)


def steady_outcome(n: int, t: Result, a: Result) -> SizeOutcome:
    """The same comparison over the answers sent in the steady state only (after every session had its first
    question): the live sessions' pace with no start beside them (the starts are `--start-burst`'s question)."""
    t_lat, a_lat = t.steady_latencies(), a.steady_latencies()
    return SizeOutcome(n, pct(t_lat, 95) if t_lat else float("nan"), pct(a_lat, 95) if a_lat else float("nan"),
                       t.summary().missed)


def per_exchange_ms(res: Result, role: str, n: int, exchanges: int) -> float:
    return res.cpu.role_total(role) / (n * exchanges) * 1000 if res.cpu and n * exchanges else float("nan")


def compare_lines(label: str, n: int, exchanges: int, base: Result, this: Result) -> list[str]:
    """Per role: CPU per exchange over the whole run (the starts included), then in the steady state (after every
    session's first question: what an exchange costs once the plans and first questions are done)."""
    out = []
    for role, name in (("worker", "worker"), ("server", "server")):
        a, b = per_exchange_ms(base, role, n, exchanges), per_exchange_ms(this, role, n, exchanges)
        out.append(f"  {name} CPU per exchange: {label} {a:.0f} ms -> this tree {b:.0f} ms ({_change(a, b)})")
        a, b = base.steady_ms(role), this.steady_ms(role)
        out.append(f"  {name} CPU per exchange, steady state: {label} {a:.0f} ms -> this tree {b:.0f} ms "
                   f"({_change(a, b)})")
    return out


def _change(a: float, b: float) -> str:
    return f"{(b - a) / a * 100:+.0f} %".replace("-", "−") if a and a == a and b == b else "n/a"


@dataclass
class Row:
    n: int
    this: Result
    asyncio: Result
    base: Result | None = None
    pairs: list[tuple[Result, Result]] = field(default_factory=list)  # --repeat: (before, this) per round


async def run_size(args: argparse.Namespace, settings: Settings, n: int, cadence: float, label: str) -> Row:
    workers = len(settings.layout.workers) if settings.layout else 1

    async def temporal(tree: Path, name: str) -> Result:
        t = await run_temporal(n, args.exchanges, args.latency, settings.tuning, workers, False,
                               settings.server_config, pace=cadence, tree=tree, layout=settings.layout)
        print(t.line(name, n), flush=True)
        if t.pinned:
            print("    " + t.pinned, flush=True)
        print("    " + cpu_text(t, n, args.exchanges), flush=True)
        return t

    pairs: list[tuple[Result, Result]] = []
    for _ in range(getattr(args, "repeat", 1) if args.compare_tree else 1):  # alternating: drift hits both
        base = await temporal(args.compare_tree, f"temporal {label}") if args.compare_tree else None
        this = await temporal(ROOT, "temporal this tree" if args.compare_tree else "temporal")
        if base is not None:
            pairs.append((base, this))
    a = await run_asyncio(n, args.exchanges, cadence)
    print(a.line("asyncio", n), flush=True)
    row = Row(n, this, a, base, pairs)
    for line in row_lines(args, row, label)[1:]:
        print(line, flush=True)
    return row


def repeat_lines(label: str, n: int, exchanges: int, pairs: list[tuple[Result, Result]], a: Result) -> list[str]:
    """`--repeat`: each figure's median over the alternating runs, with its range, and the median of the changes."""
    if len(pairs) < 2:
        return []
    out = [f"  over {len(pairs)} alternating runs of each tree (median [min–max]):"]

    def fig(name: str, get: Callable[[Result], float], fmt: str = "{:.0f}", change: bool = True) -> None:
        before, after = [get(b) for b, _ in pairs], [get(t) for _, t in pairs]
        text = (f"    {name}: {label} {fmt.format(median(before))} [{fmt.format(min(before))}–"
                f"{fmt.format(max(before))}] -> this tree {fmt.format(median(after))} [{fmt.format(min(after))}–"
                f"{fmt.format(max(after))}]")
        if change:
            text += f" ({_change(median(before), median(after))}; per pair: " + ", ".join(
                _change(x, y) for x, y in zip(before, after, strict=True)) + ")"
        out.append(text)

    fig("worker CPU ms per exchange, steady state", lambda r: r.steady_ms("worker"))
    fig("worker CPU ms per exchange, whole run", lambda r: per_exchange_ms(r, "worker", n, exchanges))
    fig("server CPU ms per exchange, steady state", lambda r: r.steady_ms("server"))
    fig("p95 ratio to asyncio", lambda r: outcome(n, r, a).ratio, "{:.2f}", change=False)
    fig("p95 ratio to asyncio, steady state", lambda r: steady_outcome(n, r, a).ratio, "{:.2f}", change=False)
    return out


def row_lines(args: argparse.Namespace, row: Row, label: str) -> list[str]:
    """The size's result lines (for the summary), then its ratio and comparison lines."""
    lines = []
    if row.base is not None:
        lines.append(row.base.line(f"temporal {label}", row.n))
    lines.append(row.this.line("temporal this tree" if row.base is not None else "temporal", row.n))
    lines.append(row.asyncio.line("asyncio", row.n))
    lines = ["\n".join(lines)]
    for name, t in ((label, row.base), ("this tree" if row.base is not None else "temporal", row.this)):
        if t is not None:
            o = outcome(row.n, t, row.asyncio)
            lines.append(f"  p95 RATIO {name}/asyncio at {row.n} sessions: {o.ratio:.2f} "
                         f"({'passes' if o.passes else 'fails'}: ≤ 1.1 and no decision missed)")
            st = steady_outcome(row.n, t, row.asyncio)
            lines.append(f"    steady state (answers after every session's first question): p95 "
                         f"{st.temporal_p95:.2f} s vs {st.asyncio_p95:.2f} s, ratio {st.ratio:.2f} "
                         f"({'passes' if st.passes else 'fails'})")
    if row.base is not None:
        lines += compare_lines(label, row.n, args.exchanges, row.base, row.this)
        lines += repeat_lines(label, row.n, args.exchanges, row.pairs, row.asyncio)
    return lines


async def run_per_core(args: argparse.Namespace, settings: Settings) -> None:
    label = tree_label(args.compare_tree) if args.compare_tree else ""
    cores = len(settings.layout.workers) if settings.layout else 0
    summaries: list[str] = []
    for cadence in args.cadences:
        rows: list[Row] = []
        for n in [int(x) for x in args.sessions.split(",")]:
            rows.append(await run_size(args, settings, n, cadence, label))
        for _ in range(SEARCH_RUNS if args.search else 0):
            probe = next_probe(row_outcome(r) for r in rows)
            if probe is None:
                break
            print(f"  search: trying {probe} sessions", flush=True)
            rows.append(await run_size(args, settings, probe, cadence, label))
        rows.sort(key=lambda r: r.n)
        summaries.append(f"cadence {cadence:g} s, simulated model {args.latency:.1f} s per call, {args.exchanges} "
                         f"exchanges per session"
                         + (f"; {settings.layout.text()}" if settings.layout else "; all processes share the CPUs"))
        for r in rows:
            summaries += row_lines(args, r, label)
        if cores:  # with --repeat, each size's median run decides
            for steady in (False, True):
                if args.compare_tree:
                    summaries.append(f"  {label}: " + per_core_line(
                        (row_outcome(r, base=True, steady=steady) for r in rows if r.base is not None), cores,
                        cadence, steady=steady))
                summaries.append(per_core_line((row_outcome(r, steady=steady) for r in rows), cores, cadence,
                                               steady=steady))
    print()
    print("\n".join(settings.header))
    print("\n".join(summaries))
