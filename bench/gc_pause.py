"""What one full garbage collection costs a worker process, with the collector tuned for it and without.

    python -m bench.gc_pause [--calls 300] [--rounds 5]

Each side runs in a fresh interpreter that does what `colloquy worker --role all` does before and after it starts
polling: import the registry's workflows and activities; then (with) `tune_collector()` as
`workers.main.run_workers` does (workers/collector.py: the startup heap frozen), or (without) nothing; then
`--calls` agent calls through the gateway on the offline provider (litellm's lazy imports and caches, as a
running worker fills them). Then `gc.collect()` is
timed `--rounds` times: what each of Python's full collections walks, and its CPU. A busy `llm` worker runs about
two full collections a minute at 250 sessions (counted with a `gc.callbacks` hook during
`bench.interview_scale --per-core --split-roles`, docs/performance.md), each one with the event loop stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


async def _calls(n: int) -> None:
    from activities.llm import gateway
    from activities.platform.model_check import ModelCheckOutput

    messages = [{"role": "user", "content": "Reply with ok, echo and a note. Word: colloquy"}]
    for _ in range(n):
        await gateway.complete("model_check", messages, ModelCheckOutput)


def child(tuned: bool, calls: int, rounds: int) -> dict[str, object]:
    import gc

    from core.logging import configure_logging
    from workers import registry
    from workers.collector import tune_collector

    configure_logging(level="WARNING")
    registry.workflows(), registry.llm_worker_activities(), registry.other_activities()
    frozen = tune_collector(tuned)
    asyncio.run(_calls(calls))
    walked = len(gc.get_objects())
    times = []
    for _ in range(rounds):
        started = time.process_time()
        gc.collect()
        times.append((time.process_time() - started) * 1000)
    return {"frozen": frozen, "walked": walked, "ms": statistics.median(times), "all": [round(t, 1) for t in times]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300, help="Agent calls through the gateway before timing.")
    parser.add_argument("--rounds", type=int, default=5, help="Full collections timed on each side.")
    parser.add_argument("--child", choices=["with", "without"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        os.environ["COLLOQUY_PROFILE"] = "offline"
        print(json.dumps(child(args.child == "with", args.calls, args.rounds)))
        return
    seen = {}
    for side in ("without", "with"):
        out = subprocess.run([sys.executable, "-m", "bench.gc_pause", "--child", side, "--calls", str(args.calls),
                              "--rounds", str(args.rounds)], capture_output=True, text=True, check=True)
        seen[side] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"one full collection in a worker process, after {args.calls} agent calls (offline provider), "
          f"median of {args.rounds}:")
    for side in ("without", "with"):
        s = seen[side]
        print(f"  {side:>7} the collector tuned: {s['walked']:>8,} objects walked, {s['ms']:7.1f} ms CPU "
              f"(all {s['all']}; frozen {s['frozen']:,})")
    ratio = seen["without"]["ms"] / max(seen["with"]["ms"], 0.01)
    print(f"RATIO without/with: {ratio:.1f}x the CPU of one full collection")


if __name__ == "__main__":
    main()
