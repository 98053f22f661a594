"""Discussion round wall time vs its LLM critical path, with a simulated model latency.

    python -m bench.discussion_rounds [--latency 0.05 0.25] [--levels standard full]

A real dev server (127.0.0.1, in-memory, tuned transfer polling) and in-process workers run DiscussionWorkflow on
the offline provider with a fixed simulated latency per call (`offline.set_latency`). A round's steps are
sequential by design (each builds on the previous one), so its critical path is the sum of its LLM calls;
everything above that is orchestration overhead (activity hops, artifact writes, the round transcript).
Printed: per round wall ÷ critical path, and whole-discussion wall ÷ the sum of measured LLM latencies.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["COLLOQUY_PROFILE"] = "offline"
os.environ.pop("COLLOQUY_OFFLINE_LATENCY_MS", None)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import logging  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402

import core.settings  # noqa: E402,F401
from core.server import start_ephemeral_dev_server  # noqa: E402


async def run_level(client, queue: str, level: str, latency: float, show: bool = True) -> dict[str, float]:
    from activities.llm import offline
    from models.discussion.workflow import DiscussionInput, DiscussionResult
    from workflows.discussion.workflow import DiscussionWorkflow

    offline.reset()
    offline.set_latency(latency)
    started = time.perf_counter()
    result: DiscussionResult = await client.execute_workflow(
        DiscussionWorkflow.run, DiscussionInput(topic="How can a small town cut food waste?", level=level),
        id=f"bench-discussion-{level}-{uuid.uuid4().hex[:6]}", task_queue=queue)
    wall = time.perf_counter() - started
    llm_s = sum(row.latency_ms for row in result.usage.by_agent.values()) / 1000
    rounds = []
    previous = next(m.at for m in result.messages if m.type == "kickoff")
    for r in range(1, result.rules.max_rounds + 1):
        msgs = [m for m in result.messages if m.round == r]
        end = msgs[-1].at
        assert end is not None and previous is not None  # the workflow stamps every message it records
        rounds.append(((end - previous).total_seconds(), len(msgs) * latency, len(msgs)))
        previous = end
    row = {"wall": wall, "llm": llm_s, "calls": result.usage.calls}
    for n, (round_wall, critical, count) in enumerate(rounds if show else [], start=1):
        print(f"  {level:8} latency {latency * 1000:5.0f} ms  round {n}: {count} calls, wall {round_wall:6.3f} s, "
              f"critical path {critical:6.3f} s, ratio {round_wall / critical:5.2f}")
    return row


async def main(latencies: list[float], levels: list[str]) -> None:
    from core.logging import configure_logging
    from workers.main import running_workers

    configure_logging(level="ERROR")
    logging.getLogger("temporalio").setLevel(logging.ERROR)
    os.environ["COLLOQUY_ARTIFACT_DIR"] = tempfile.mkdtemp(prefix="bench-discussion-")
    env = await start_ephemeral_dev_server()
    async with contextlib.AsyncExitStack() as cleanup:  # on exit: workers, then the server, then the artifacts
        cleanup.callback(shutil.rmtree, os.environ["COLLOQUY_ARTIFACT_DIR"], ignore_errors=True)
        cleanup.push_async_callback(env.shutdown)
        queue = await cleanup.enter_async_context(running_workers(env.client, f"bench-{uuid.uuid4().hex[:6]}"))
        await run_level(env.client, queue, "standard", 0.0, show=False)  # warm-up (imports, first connections)
        print("Discussion rounds: wall time vs LLM critical path (sequential steps, simulated latency)")
        for latency in latencies:
            for level in levels:
                row = await run_level(env.client, queue, level, latency)
                print(f"  {level:8} latency {latency * 1000:5.0f} ms  whole discussion: {row['calls']:.0f} calls, "
                      f"wall {row['wall']:6.3f} s, sum of LLM latencies {row['llm']:6.3f} s, "
                      f"ratio {row['wall'] / row['llm']:5.2f}, overhead {(row['wall'] - row['llm']) / row['calls'] * 1000:5.1f} "
                      "ms per call")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, nargs="+", default=[0.05, 0.25], help="seconds per LLM call")
    parser.add_argument("--levels", nargs="+", default=["standard", "full"])
    args = parser.parse_args()
    asyncio.run(main(args.latency, args.levels))
    sys.stdout.flush()
    os._exit(0)  # see notes: avoid the SDK's occasional abort at interpreter exit
