"""A `colloquy worker` sets Python's collector for a long run (workers/collector.py) before it polls: the ~440,000
objects of its imports frozen out of the collector's walks, the young generation collected every 10,000 net
allocations. Each check runs in a fresh interpreter: tuning this test process would change pytest's own heap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workers.collector import GC_TUNED_ENV, YOUNG_THRESHOLD, gc_tuned

ROOT = Path(__file__).resolve().parents[3]

# run_workers with one stand-in worker that returns at once: what the real `colloquy worker` runs after it has
# built its workers (every module imported), then what the collector still walks and what it still frees
PROBE = """
import asyncio, gc, json
from workers import registry
from workers.main import run_workers

registry.workflows(), registry.llm_worker_activities(), registry.other_activities()   # what build_workers imports

class StandIn:
    async def run(self):
        return None
    async def shutdown(self):
        return None

before = len(gc.get_objects())
asyncio.run(run_workers([StandIn()]))
walked = len(gc.get_objects())

class Node:
    pass

node = Node()
node.me = node          # a cycle made after the freeze: the collector still frees it
del node
freed = gc.collect()
print(json.dumps({"before": before, "frozen": gc.get_freeze_count(), "walked": walked, "freed": freed,
                  "young": gc.get_threshold()[0]}))
"""


def _probe(**env: str) -> dict[str, int]:
    environ = {k: v for k, v in os.environ.items() if k != GC_TUNED_ENV} | env
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=environ, capture_output=True, text=True,
                         timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_running_worker_keeps_its_imports_out_of_the_collectors_walks():
    seen = _probe()
    assert seen["before"] > 100_000                 # the imports: litellm, pydantic, the SDK, Colloquy
    assert seen["frozen"] >= seen["before"] * 0.9   # all of them frozen
    assert seen["walked"] < seen["before"] / 10     # what a full collection still walks
    assert seen["freed"] >= 1                       # and garbage made afterwards is still collected
    assert seen["young"] == YOUNG_THRESHOLD == 10_000


def test_the_tuning_can_be_turned_off():
    seen = _probe(**{GC_TUNED_ENV: "0"})
    assert seen["frozen"] == 0 and seen["walked"] >= seen["before"] * 0.9 and seen["young"] == 700  # Python's


@pytest.mark.parametrize(("raw", "on"), [("", True), ("1", True), (" On ", True), ("yes", True), ("true", True),
                                          ("0", False), ("off", False), ("No", False), ("false", False)])
def test_the_setting_reads_the_usual_spellings(raw, on):
    assert gc_tuned({GC_TUNED_ENV: raw}) is on


def test_a_misspelt_setting_stops_the_worker_before_it_connects():
    from typer.testing import CliRunner

    from client import cli

    assert gc_tuned({}) is True
    with pytest.raises(ValueError, match="COLLOQUY_WORKER_GC_TUNED='maybe': use 1 or 0"):
        gc_tuned({GC_TUNED_ENV: "maybe"})
    bad = CliRunner().invoke(cli.app, ["worker"], env={GC_TUNED_ENV: "maybe"})
    assert bad.exit_code == 2 and "COLLOQUY_WORKER_GC_TUNED='maybe'" in bad.output
    assert "Traceback" not in bad.output
