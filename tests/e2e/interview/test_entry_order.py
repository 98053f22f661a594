"""Ordered, acknowledged input (issue 15, defect 5), against real worker processes on the dev server.

An entry submitted while no worker runs gets a clear error in bounded time (not a hang), and once the client has
given up on it, it never lands later out of order: the client numbers its entries (client_id + client_seq, for
updates and signals alike) and the engine refuses one numbered below an entry already recorded from that client.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from client.interview.cli import (
    InterviewClientError,
    send_entry,
    start_interview,
    submit_entry,
    wait_for_state,
)
from models.interview.entries import TranscriptEntry, TranscriptView
from models.interview.names import QUERY_EVENT_LOG, QUERY_TRANSCRIPT
from models.interview.workflow import EventLogPage, InterviewInput
from tests.e2e.interview.helpers import worker_env, worker_process

pytestmark = [pytest.mark.dev_server, pytest.mark.drill]


def sent(view: TranscriptView) -> list[str]:
    """The entries clients sent (the engine records its own questions too)."""
    return [e.entry_id for e in view.entries if e.client_id != "engine"]


async def test_no_worker_is_said_within_seconds_and_a_given_up_entry_never_lands_out_of_order(dev_env, tmp_path):
    client = dev_env.client
    address = client.service_client.config.target_host
    queue = f"e2e-order-{uuid.uuid4().hex[:6]}"

    # no worker at all: the client hears so in seconds
    lonely = await start_interview(client, InterviewInput(topic="Nobody home", duration_seconds=600),
                                   f"interview-order-none-{uuid.uuid4().hex[:6]}", f"{queue}-nobody")
    t0 = time.monotonic()
    with pytest.raises(InterviewClientError, match="no worker is polling task queue") as err:
        await submit_entry(lonely, TranscriptEntry(entry_id="x1", speaker="interviewee", text="hello?"), timeout=3)
    assert time.monotonic() - t0 < 8 and "not acknowledged within 3s" in str(err.value)
    await lonely.terminate("test over")

    inp = InterviewInput(topic="What on-call taught me", duration_seconds=600, cycle_seconds=1.0)
    async with worker_process(address, queue, worker_env(tmp_path / "artifacts"), tmp_path / "w1.log") as wp:
        handle = await start_interview(client, inp, f"interview-order-{uuid.uuid4().hex[:6]}", queue)
        await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS", 30)
        ok = await submit_entry(handle, TranscriptEntry(entry_id="wd0", speaker="interviewer", text="How did it start?"))
        assert ok.entry.entry_id == "wd0" and not ok.duplicate
        await wp.kill()

    # the worker is gone: the update is not acknowledged; the client gives up on it and carries on with a signal
    t0 = time.monotonic()
    with pytest.raises(InterviewClientError, match="not acknowledged within 3s"):
        await submit_entry(handle, TranscriptEntry(entry_id="wd1", speaker="interviewee", text="By accident."),
                           timeout=3)
    assert time.monotonic() - t0 < 8
    await send_entry(handle, TranscriptEntry(entry_id="wd2", speaker="interviewee", text="Then it became my job."))

    async with worker_process(address, queue, worker_env(tmp_path / "artifacts"), tmp_path / "w2.log"):
        for _ in range(300):                   # (the engine's own questions are entries too: look for wd2)
            view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
            if "wd2" in [e.entry_id for e in view.entries]:
                break
            await asyncio.sleep(0.1)
        assert sent(view) == ["wd0", "wd2"]   # wd1 did not land after wd2
        # the client decides again: sent anew, wd1 now gets a new number and is recorded, after wd2
        again = await submit_entry(handle, TranscriptEntry(entry_id="wd1", speaker="interviewee", text="By accident."))
        assert again.entry.entry_id == "wd1" and not again.duplicate
        view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
        page = await handle.query(QUERY_EVENT_LOG, 0, result_type=EventLogPage)
        await handle.terminate("test over")
    assert sent(view) == ["wd0", "wd2", "wd1"]
    assert [e.seq for e in view.entries] == list(range(1, len(view.entries) + 1))
    assert not [e for e in page.events if e.type == "ENTRY_REJECTED"]  # the late update was refused, not recorded
