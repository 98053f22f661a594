"""What the gateway and a Temporal activity add to an LLM call, as ratios measured in one run.

    python -m bench.gateway_overhead [--calls 30] [--latency-ms 50]

The model is the offline provider with a simulated fixed latency (COLLOQUY_OFFLINE_LATENCY_MS semantics), so
the differences are pure overhead:
  raw       litellm.acompletion(...) on the offline provider (structured response_format, num_retries=0)
  gateway   activities.llm.gateway.complete(...): resolution, pricing, lenient parse, pydantic validation,
            span + log line
  workflow  ModelCheckWorkflow with one agent activity on an embedded dev server (real clock): client start →
            workflow task → activity on the -llm queue → result. Temporal's hops included.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["COLLOQUY_PROFILE"] = "offline"


async def _timed(n: int, call) -> list[float]:  # type: ignore[no-untyped-def]
    await call()  # warm-up (imports, first-use caches)
    out = []
    for _ in range(n):
        started = time.perf_counter()
        await call()
        out.append((time.perf_counter() - started) * 1000)
    return out


async def main(calls: int, latency_ms: float) -> None:
    import litellm

    from activities.llm import gateway, offline
    from activities.llm.config import current_config, resolve_model
    from activities.platform.model_check import ModelCheckOutput
    from core.logging import configure_logging
    from core.server import start_ephemeral_dev_server
    from models.platform.workflow import ModelCheckRequest
    from workers.main import running_workers
    from workflows.platform.model_check import ModelCheckWorkflow

    configure_logging(level="WARNING")
    offline.set_latency(latency_ms / 1000)
    gateway._register_providers()
    messages = [{"role": "user", "content": "Reply with ok, echo and a note. Word: colloquy"}]
    resolved = resolve_model("model_check", current_config())
    assert resolved is not None  # None only when a fallback is asked for
    model = resolved.litellm_model

    async def raw() -> None:
        await litellm.acompletion(model=model, messages=messages, response_format=ModelCheckOutput, num_retries=0,
                                  metadata={"agent": "model_check"})

    async def via_gateway() -> None:
        await gateway.complete("model_check", messages, ModelCheckOutput)

    raw_ms = await _timed(calls, raw)
    gw_ms = await _timed(calls, via_gateway)

    env = await start_ephemeral_dev_server()
    try:
        async with running_workers(env.client, f"bench-{uuid.uuid4().hex[:6]}") as queue:

            async def via_workflow() -> None:
                await env.client.execute_workflow(ModelCheckWorkflow.run, ModelCheckRequest(),
                                                  id=f"bench-{uuid.uuid4().hex[:8]}", task_queue=queue)

            wf_ms = await _timed(calls, via_workflow)
    finally:
        await env.shutdown()

    base = statistics.median(raw_ms)
    print(f"offline provider, simulated latency {latency_ms:.0f} ms, {calls} sequential calls each (median, p95)")
    print(f"{'path':<10} {'median ms':>10} {'p95 ms':>9} {'ratio':>7} {'overhead ms':>12}")
    for name, values in (("raw", raw_ms), ("gateway", gw_ms), ("workflow", wf_ms)):
        med = statistics.median(values)
        p95 = sorted(values)[max(0, int(len(values) * 0.95) - 1)]
        print(f"{name:<10} {med:>10.1f} {p95:>9.1f} {med / base:>7.3f} {med - base:>12.1f}")
    print(f"gateway/raw = {statistics.median(gw_ms) / base:.3f}; workflow(1 activity)/raw = "
          f"{statistics.median(wf_ms) / base:.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    opts = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    asyncio.run(main(opts.calls, opts.latency_ms))
    sys.stdout.flush()
    os._exit(0)  # see notes: avoid the SDK's occasional abort at interpreter exit
