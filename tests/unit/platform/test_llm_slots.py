"""A provider that serves N calls at once gets at most N (activities/llm/slots.py).

Invariants:
- slots-follow-the-models: the LLM worker's slots are the sum of the providers' concurrencies when every provider
  an agent can reach is bounded, else unbounded by the models (the tuning decides).
- never-more-than-served: whatever the arrivals and durations, no more than `limit` calls of one provider run at
  once in a worker, and every call runs (no call lost, none stuck).
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from activities.llm.config import ConfigError, load_config
from activities.llm.slots import provider_slot, worker_slots


def slots(env: dict[str, str], tmp_path=None, yaml: str | None = None):  # noqa: ANN001, ANN201
    if yaml is not None:
        path = tmp_path / "colloquy.yaml"
        path.write_text(yaml)
        env = {**env, "COLLOQUY_CONFIG": str(path)}
    return worker_slots(load_config(env))


def test_local_and_self_hosted_servers_serve_one_call_at_a_time():
    assert slots({"COLLOQUY_PROFILE": "local"}).slots == 1
    served = slots({"COLLOQUY_PROVIDER": "openai_compatible", "COLLOQUY_API_BASE": "http://127.0.0.1:1/v1"})
    assert served.slots == 1 and "openai_compatible serves 1 call at once" in served.why
    assert slots({"COLLOQUY_PROVIDER": "ollama"}).slots == 1


def test_hosted_apis_and_the_offline_double_are_not_bounded():
    assert slots({"COLLOQUY_PROFILE": "offline"}).slots is None
    mixed = slots({"COLLOQUY_PROFILE": "local", "COLLOQUY_FALLBACK_PROVIDER": "anthropic"})
    assert mixed.slots is None and "anthropic" in mixed.why and "bounded in the worker only: local 1" in mixed.why


def test_the_server_concurrency_is_configurable(tmp_path):
    env = {"COLLOQUY_PROVIDER": "openai_compatible", "COLLOQUY_API_BASE": "http://127.0.0.1:1/v1"}
    assert slots({**env, "COLLOQUY_PROVIDER_CONCURRENCY": "4"}).slots == 4
    assert slots({**env, "COLLOQUY_PROVIDER_CONCURRENCY": "none"}).slots is None
    for bad in ("0", "-2", "many", "10001"):
        with pytest.raises(ConfigError, match="COLLOQUY_PROVIDER_CONCURRENCY"):
            slots({**env, "COLLOQUY_PROVIDER_CONCURRENCY": bad})
    # two bounded providers (a local model, a vLLM server serving 8) add up
    yaml = ("llm:\n  default_provider: local\n  fallback_provider: vllm\n  providers:\n"
            "    vllm: {prefix: 'hosted_vllm/', concurrency: 8}\n")
    assert slots({}, tmp_path, yaml).slots == 9


@settings(max_examples=60, deadline=None)
@given(limit=st.integers(1, 4), durations=st.lists(st.integers(0, 3), min_size=1, max_size=12),
       starts=st.lists(st.integers(0, 3), min_size=12, max_size=12))
def test_never_more_calls_in_flight_than_the_provider_serves(limit, durations, starts):
    async def scenario() -> tuple[int, int]:
        in_flight = peak = done = 0

        async def call(i: int) -> None:
            nonlocal in_flight, peak, done
            for _ in range(starts[i]):
                await asyncio.sleep(0)
            async with provider_slot("p", limit) as waited:
                assert waited >= 0
                in_flight += 1
                peak = max(peak, in_flight)
                for _ in range(durations[i]):
                    await asyncio.sleep(0)
                in_flight -= 1
                done += 1

        await asyncio.wait_for(asyncio.gather(*(call(i) for i in range(len(durations)))), 5)
        return peak, done

    peak, done = asyncio.run(scenario())
    assert peak <= limit and done == len(durations)
    if len(durations) >= limit and all(d > 0 for d in durations) and not any(starts[:len(durations)]):
        assert peak == limit  # arriving together, they use the bound, not just respect it


def test_an_unbounded_provider_waits_for_nothing():
    async def scenario() -> float:
        async with provider_slot("p", None) as waited:
            return waited

    assert asyncio.run(scenario()) == 0.0
