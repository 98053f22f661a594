"""Writing pipeline benchmarks, measured in one run on a real Temporal dev server (127.0.0.1, real clock):

1. fan-out wall time ÷ slowest branch, for 3 and 8 simulated models (offline provider, fixed latency per call);
2. a full default run (draft → cross-audit → synthesize → final-audit → final-analysis) vs the sum of its LLM
   critical path (one latency per state, fan-outs in parallel), with per-agent latencies.

    python -m bench.writing_fanout [--latency 1.0] [--runs 2]

Prints ratios (1.00 = no overhead). Everything is local; the server and workers are stopped at the end.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["COLLOQUY_PROFILE"] = "offline"

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import yaml  # noqa: E402

FULL_LATENCIES = {"writing_draft": 0.4, "writing_audit": 0.3, "writing_synthesize": 0.5,
                  "writing_final_audit": 0.3, "writing_final_analysis": 0.4}
STATE_AGENT = {"draft": "writing_draft", "cross-audit": "writing_audit", "synthesize": "writing_synthesize",
               "final-audit": "writing_final_audit", "final-analysis": "writing_final_analysis"}
STORY = "The GPU hit 94 degrees. Two tokens per second; I needed fifty. The fix: a smaller model and a queue."


def draft_only_config():
    from models.writing.workflow import WorkflowConfig

    root = Path(__file__).resolve().parent.parent
    data = yaml.safe_load((root / "configs" / "writing" / "default.yaml").read_text())
    data["states"] = {
        "start": {"type": "initial", "next": "draft"},
        "draft": {"type": "fan-out", "task": "draft", "persona": "writer",
                  "transitions": {"all_success": "complete", "partial_success": "complete", "all_failure": "halt"}},
        "complete": {"type": "terminal"}, "halt": {"type": "terminal", "error": True},
    }
    return WorkflowConfig.model_validate(data)


async def run_once(client, queue: str, models: list[str], cfg) -> tuple[float, Any]:  # (wall, WritingResult)
    from models.writing.workflow import WritingInput
    from workflows.writing.workflow import WritingWorkflow

    inp = WritingInput(story_text=STORY, story_name="bench", models=models, config=cfg)
    started = time.perf_counter()
    handle = await client.start_workflow(WritingWorkflow.run, inp, id=f"bench-writing-{uuid.uuid4().hex[:8]}",
                                         task_queue=queue)
    result = await handle.result()
    return time.perf_counter() - started, result


def state_log(result) -> list[dict]:
    import json

    from activities.artifacts import store

    return [json.loads(x) for x in store().get(result.artifacts["state_log.jsonl"]).splitlines()]


async def main(latency: float, runs: int) -> None:
    from activities.llm import offline
    from core.server import start_ephemeral_dev_server
    from workers.main import running_workers

    env = await start_ephemeral_dev_server()
    async with contextlib.AsyncExitStack() as cleanup:  # on exit: workers, then the server
        cleanup.push_async_callback(env.shutdown)
        queue = await cleanup.enter_async_context(running_workers(env.client, f"bench-{uuid.uuid4().hex[:6]}"))
        print(f"Writing fan-out benchmark (dev server, offline provider, {latency:.2f}s per draft call, "
              f"best of {runs})")
        print(f"{'models':>6} | {'fan-out wall (s)':>16} | {'slowest branch LLM (s)':>22} | {'ratio':>6} | "
              f"{'run wall (s)':>12}")
        cfg = draft_only_config()
        for n in (3, 8):
            offline.reset()
            offline.set_latency(latency, "writing_draft")
            best = None
            for _ in range(runs):
                wall, result = await run_once(env.client, queue, [f"sim-{i}" for i in range(n)], cfg)
                log = state_log(result)
                fan = next(e for e in log if e["event"] == "fan_out_complete")
                fan_wall = float(fan["duration_s"])  # workflow clock: first branch scheduled → last one done
                row = (fan_wall, wall)
                best = row if best is None or row[0] < best[0] else best
            assert best is not None
            print(f"{n:>6} | {best[0]:>16.3f} | {latency:>22.3f} | {best[0] / latency:>6.2f} | {best[1]:>12.3f}")

        offline.reset()
        for agent, seconds in FULL_LATENCIES.items():
            offline.set_latency(seconds, agent)
        critical = sum(FULL_LATENCIES.values())
        best_full = None
        for _ in range(runs):
            wall, result = await run_once(env.client, queue, ["sim-a", "sim-b", "sim-c"], None)
            best_full = (wall, result) if best_full is None or wall < best_full[0] else best_full
        assert best_full is not None
        wall, result = best_full
        print()
        print("Full default run (3 models): " + ", ".join(f"{k.removeprefix('writing_')} {v:.1f}s"
                                                           for k, v in FULL_LATENCIES.items()))
        print(f"  LLM critical path {critical:.3f}s | run wall {wall:.3f}s | ratio {wall / critical:.2f} | "
              f"overhead {wall - critical:.3f}s over {len(result.transitions)} transitions "
              f"({(wall - critical) / len(result.transitions) * 1000:.0f} ms each, incl. prepare, run logs, "
              "history DB)")


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.0, help="Seconds per simulated draft call.")
    parser.add_argument("--runs", type=int, default=2, help="Runs per case (best is reported).")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="colloquy-bench-")
    os.environ["COLLOQUY_ARTIFACT_DIR"] = str(Path(tmp) / "artifacts")
    os.environ["COLLOQUY_HISTORY_DB"] = str(Path(tmp) / "history.duckdb")
    code = 0
    try:
        asyncio.run(main(args.latency, args.runs))
    except SystemExit as exc:
        code = int(exc.code or 0) if isinstance(exc.code, int) else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.stdout.flush()
    os._exit(code)


if __name__ == "__main__":
    cli()
