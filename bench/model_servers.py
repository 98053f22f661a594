"""Every agent's real output schema against real model servers: valid-output rate, latency, tokens, re-asks.

    python -m bench.model_servers [--runs 3] [--targets local,http] [--agent NAME ...] [--threads 1]
                                  [--concurrency 1,4,8]

Targets:
  local  the `local` profile: SmolLM2-135M in-process (llama.cpp), json_object + the schema as a grammar
  http   llama-cpp-python's OpenAI-compatible server (started here on a free 127.0.0.1 port, stopped at the end)
         serving the same GGUF, through COLLOQUY_PROVIDER=openai_compatible with its defaults (json_object +
         schema, streamed, small-model bounds: the server's model is called 'default', which states no size)

Each run is the agent's `models --check` call (activities/model_check.check_messages: the agent's role and one
small example case, the agent's own output model, mode and token budget) through gateway.complete(), the path
every agent activity takes. A run is valid when the gateway returns a validated output (after at most one
re-ask); an InvalidLLMOutput counts as invalid, and so does a timeout. Prints one row per agent and target
(markdown; mode "small" = small-model bounds on).

--concurrency N,...: the same calls offered N at a time (every agent's runs in one pool), as N parallel agents
of live sessions would. The provider serves one call at a time (`concurrency: 1`, activities/llm/slots.py), so
a call queues first and then has the model to itself. Per agent: p50/p95 of the model's latency and of the
queueing, the valid rate, and timeouts against the agent's attempt budget (90% of its policy's start-to-close):
"timeouts" counts calls whose model time passed it (what the worker sees now: the queueing happens before the
attempt starts); "had queueing counted" counts those whose queueing + model time passed it (what an attempt
that started while the call still waited for the model saw before).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from dataclasses import dataclass, field

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@dataclass
class Row:
    agent: str
    target: str
    mode: str = ""
    runs: int = 0
    valid: int = 0
    latencies: list[float] = field(default_factory=list)
    tokens_in: list[int] = field(default_factory=list)
    tokens_out: list[int] = field(default_factory=list)
    reasks: int = 0
    errors: list[str] = field(default_factory=list)

    def line(self) -> str:
        med = statistics.median(self.latencies) if self.latencies else 0.0
        tin = statistics.median(self.tokens_in) if self.tokens_in else 0
        tout = statistics.median(self.tokens_out) if self.tokens_out else 0
        err = (self.errors[0][:int(os.environ.get("BENCH_ERR_CHARS", "90"))].replace("|", "/") if self.errors else "")
        return (f"| {self.agent} | {self.target} | {self.mode} | {self.valid}/{self.runs} | {med:.1f} | "
                f"{tin:.0f} | {tout:.0f} | {self.reasks} | {err} |")


async def bench_target(target: str, agents: list[str], runs: int) -> list[Row]:
    from temporalio.exceptions import ApplicationError

    from activities.agents.base import AGENTS
    from activities.llm import gateway
    from activities.llm.config import current_config, reset_config_cache, resolve_model
    from activities.platform.model_check import check_messages

    reset_config_cache()
    gateway.reset_mode_downgrades()
    rows = []
    for name in agents:
        spec = AGENTS[name]
        res = resolve_model(name, current_config())
        assert res is not None
        mode = "text" if spec.free_text else gateway.structured_mode(res)
        row = Row(agent=name, target=target, mode=mode + (" small" if res.small_model and not spec.free_text else ""))
        for _ in range(runs):
            row.runs += 1
            started = time.perf_counter()
            try:
                _, usage = await spec.call(check_messages(spec), None if spec.free_text else spec.output_model)
            except ApplicationError as err:
                row.errors.append(f"{err.type}: {err.message}")
                row.latencies.append(time.perf_counter() - started)
                continue
            row.valid += 1
            row.latencies.append(usage.latency_ms / 1000)
            row.tokens_in.append(usage.input_tokens)
            row.tokens_out.append(usage.output_tokens)
            row.reasks += usage.reasks
        print(row.line(), flush=True)
        rows.append(row)
    return rows


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def bench_concurrency(target: str, agents: list[str], runs: int, level: int) -> None:
    """Every agent's `runs` calls, offered `level` at a time; one row per agent (see the module doc)."""
    from temporalio.exceptions import ApplicationError

    from activities.agents.base import AGENTS
    from activities.llm import gateway
    from activities.llm.config import reset_config_cache
    from activities.platform.model_check import check_messages
    from rules.policies import POLICIES

    reset_config_cache()
    gateway.reset_mode_downgrades()
    gate = asyncio.Semaphore(level)
    stats: dict[str, dict[str, list[float] | int]] = {
        a: {"latency": [], "queued": [], "valid": 0, "timeouts": 0, "before": 0} for a in agents}

    async def one(name: str) -> None:
        spec = AGENTS[name]
        budget = POLICIES[spec.policy].start_to_close.total_seconds() * 0.9
        row = stats[name]
        async with gate:
            started = time.perf_counter()
            try:
                _, usage = await spec.call(check_messages(spec), None if spec.free_text else spec.output_model)
            except ApplicationError:
                return
            total = time.perf_counter() - started
        model_s, queued_s = usage.latency_ms / 1000, usage.queued_ms / 1000
        row["latency"].append(model_s)  # type: ignore[union-attr]
        row["queued"].append(queued_s)  # type: ignore[union-attr]
        row["valid"] += 1  # type: ignore[operator]
        row["timeouts"] += model_s > budget  # type: ignore[operator]
        row["before"] += total > budget  # type: ignore[operator]

    await asyncio.gather(*(one(a) for _ in range(runs) for a in agents))
    for name in agents:
        r = stats[name]
        lat, q = r["latency"], r["queued"]
        print(f"| {name} | {target} | {level} | {r['valid']}/{runs} | {_pct(lat, .5):.1f} | {_pct(lat, .95):.1f} | "  # type: ignore[arg-type]
              f"{_pct(q, .5):.1f} | {_pct(q, .95):.1f} | {r['timeouts']} | {r['before']} |", flush=True)  # type: ignore[arg-type]


async def concurrency_main(runs: int, targets: list[str], only: list[str], threads: int, levels: list[int]) -> None:
    from core.logging import configure_logging
    from workers import registry

    configure_logging(level="ERROR")
    agents = [a for a in registry.agent_names() if a != "model_check" and (not only or a in only)]
    os.environ["COLLOQUY_LOCAL_THREADS"] = str(threads)
    print(f"runs per agent: {runs}; targets: {', '.join(targets)}; llama.cpp threads: {threads}; "
          f"offered concurrency: {', '.join(map(str, levels))}")
    print("| agent | target | offered | valid | model p50 s | model p95 s | queued p50 s | queued p95 s | timeouts "
          "| had queueing counted |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    for target in targets:
        for level in levels:
            if target == "local":
                os.environ["COLLOQUY_PROFILE"] = "local"
                for key in ("COLLOQUY_PROVIDER", "COLLOQUY_API_BASE"):
                    os.environ.pop(key, None)
                await bench_concurrency("local", agents, runs, level)
            elif target == "http":
                from activities.llm.llama_server import LlamaServer

                with LlamaServer(threads=threads) as server:
                    os.environ.update({"COLLOQUY_PROFILE": "config", "COLLOQUY_PROVIDER": "openai_compatible",
                                       "COLLOQUY_API_BASE": server.base_url})
                    await bench_concurrency("http", agents, runs, level)
            else:
                sys.exit(f"unknown target {target!r}: use local, http")
    print(f"total {time.perf_counter() - started:.0f} s")


async def main(runs: int, targets: list[str], only: list[str], threads: int) -> None:
    from core.logging import configure_logging
    from workers import registry

    configure_logging(level="ERROR")
    agents = [a for a in registry.agent_names() if a != "model_check" and (not only or a in only)]
    os.environ["COLLOQUY_LOCAL_THREADS"] = str(threads)
    print(f"runs per agent: {runs}; targets: {', '.join(targets)}; llama.cpp threads: {threads}")
    print("| agent | target | mode | valid | median s | tokens in | tokens out | re-asks | first error |")
    print("|---|---|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    for target in targets:
        if target == "local":
            os.environ["COLLOQUY_PROFILE"] = "local"
            for key in ("COLLOQUY_PROVIDER", "COLLOQUY_API_BASE"):
                os.environ.pop(key, None)
            await bench_target("local", agents, runs)
        elif target == "http":
            from activities.llm.llama_server import LlamaServer

            with LlamaServer(threads=threads) as server:
                os.environ.update({"COLLOQUY_PROFILE": "config", "COLLOQUY_PROVIDER": "openai_compatible",
                                   "COLLOQUY_API_BASE": server.base_url})
                await bench_target("http", agents, runs)
        else:
            sys.exit(f"unknown target {target!r}: use local, http")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--targets", default="local,http")
    parser.add_argument("--agent", action="append", default=[])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--concurrency", default="", help="e.g. 1,4,8: offer the calls this many at a time")
    args = parser.parse_args()
    if args.concurrency:
        levels = [int(x) for x in args.concurrency.split(",")]
        asyncio.run(concurrency_main(args.runs, args.targets.split(","), args.agent, args.threads, levels))
    else:
        asyncio.run(main(args.runs, args.targets.split(","), args.agent, args.threads))
