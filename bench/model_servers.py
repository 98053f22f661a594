"""Every agent's real output schema against real model servers: valid-output rate, latency, tokens, re-asks.

    python -m bench.model_servers [--runs 3] [--targets local,http] [--agent NAME ...] [--threads 1]

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
    from activities.model_check import check_messages

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
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.targets.split(","), args.agent, args.threads))
