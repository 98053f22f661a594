"""Issue 23, item 5: `colloquy discuss` prints a progress line for every step at every level — also when the run
is faster than one poll (the `standard` level on the offline double printed none)."""

from __future__ import annotations

import pytest

from client.common import console
from client.discussion.cli import follow
from tests.workflows.discussion.helpers import ideas, scores, start, uniform


@pytest.mark.parametrize("level", ["standard", "extended", "full"])
async def test_every_level_prints_its_steps_even_when_the_run_beats_the_first_poll(ts_env, worker, offline, level):
    offline.script("discussion_ideate", *[ideas("Compost hub", "Surplus app", "School kitchens", "Fridges")] * 3)
    offline.script("discussion_score", scores(uniform("I1", 8), uniform("I2", 7), uniform("I3", 6),
                                              uniform("I4", 6)))
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue, topic="Food waste", level=level)
        await handle.result()  # the run is over before the client polls once
        with console.capture() as cap:
            await follow(handle)
    lines = [line for line in cap.get().splitlines() if line.startswith("·")]
    phases = [line.split(":", 1)[0].removeprefix("· ") for line in lines]
    for phase in ("kickoff", "exploration", "validation", "selection"):
        assert phase in phases, (level, lines)
    assert any("round 1" in line for line in lines) and len(lines) >= 6, lines
