"""Shared plumbing of the interview benchmarks: servers, in-process workers, a decision-latency client loop.

Every benchmark runs on the offline provider (a deterministic test double inside litellm) with a simulated fixed
latency (`offline.set_latency`), so the figures measure orchestration, not a model.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["COLLOQUY_PROFILE"] = "offline"
os.environ.setdefault("COLLOQUY_LOG_LEVEL", "ERROR")

import asyncio  # noqa: E402
import logging  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections.abc import AsyncIterator  # noqa: E402
from contextlib import asynccontextmanager  # noqa: E402
from dataclasses import dataclass, field, replace  # noqa: E402
from pathlib import Path  # noqa: E402

from temporalio.client import Client, WorkflowHandle  # noqa: E402
from temporalio.contrib.pydantic import pydantic_data_converter  # noqa: E402
from temporalio.testing import WorkflowEnvironment  # noqa: E402

import core.settings  # noqa: E402,F401
from core.server import start_ephemeral_dev_server, time_skipping_server_binary  # noqa: E402
from core.settings import SEARCH_ATTRIBUTES, WorkerTuning  # noqa: E402

ANSWERS = [
    "Honestly, by accident: I kept answering the pager at night and after a year it became my job.",
    "Most of our outages were config changes, so we started reviewing config exactly like code.",
    "A certificate expired at 2 a.m. on Black Friday and the alert went to a channel nobody watched.",
    "We deleted every alert nobody had acted on in ninety days and cut our pages by seventy percent.",
    "We shipped without docs for six months during the monolith split and new hires paid for it.",
    "Blameless reviews only work if the person who pushed the button is in the room and not afraid.",
    "Escalate early. Nobody ever got fired for waking me up too soon.",
]


def quiet() -> None:
    from core.logging import configure_logging

    configure_logging(level="ERROR")
    logging.getLogger("temporalio").setLevel(logging.ERROR)
    os.environ.setdefault("RUST_LOG", "error")


@asynccontextmanager
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    """A throwaway dev server (real clock) on 127.0.0.1 at a free port, in memory, tuned like the embedded one."""
    env = await start_ephemeral_dev_server()
    try:
        yield env
    finally:
        await env.shutdown()


@asynccontextmanager
async def time_skipping_server() -> AsyncIterator[WorkflowEnvironment]:
    from temporalio.api.enums.v1 import IndexedValueType
    from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest

    env = await WorkflowEnvironment.start_time_skipping(test_server_existing_path=time_skipping_server_binary(),
                                                       data_converter=pydantic_data_converter)
    await env.client.operator_service.add_search_attributes(AddSearchAttributesRequest(
        namespace=env.client.namespace,
        search_attributes={n: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD for n in SEARCH_ATTRIBUTES}))
    try:
        yield env
    finally:
        await env.shutdown()


@asynccontextmanager
async def workers(client: Client, queue: str | None = None, max_concurrent_activities: int | None = None,
                  tuning: WorkerTuning | None = None) -> AsyncIterator[str]:
    """All Colloquy workers in this process (one workflow worker + one LLM worker) on a fresh queue, tuned by
    `tuning` (default: COLLOQUY_WORKER_* / WorkerTuning's defaults); `max_concurrent_activities` overrides its
    activity slots."""
    from workers.main import running_workers

    tuning = tuning or WorkerTuning.from_env()
    if max_concurrent_activities is not None:
        tuning = replace(tuning, max_concurrent_activities=max_concurrent_activities)
    async with running_workers(client, queue or f"bench-{uuid.uuid4().hex[:6]}", tuning=tuning) as name:
        yield name


@asynccontextmanager
async def artifacts_in_tmp() -> AsyncIterator[Path]:
    with tempfile.TemporaryDirectory(prefix="colloquy-bench-") as tmp:
        old = os.environ.get("COLLOQUY_ARTIFACT_DIR")
        os.environ["COLLOQUY_ARTIFACT_DIR"] = tmp
        try:
            yield Path(tmp)
        finally:
            if old is None:
                os.environ.pop("COLLOQUY_ARTIFACT_DIR", None)
            else:
                os.environ["COLLOQUY_ARTIFACT_DIR"] = old


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


@dataclass
class SessionTimings:
    workflow_id: str
    decision_latency_s: list[float] = field(default_factory=list)   # answer submitted -> decision made with it
    missed: int = 0                                                  # no decision within the timeout


async def show_question(handle: WorkflowHandle, state, entry_id: str) -> None:  # noqa: ANN001
    """The client shows the question in force. The engine records it as the interviewer's entry itself
    (`question_entry_id`); on a run from before it did, the client records it (an update)."""
    from client.interview.cli import submit_entry
    from models.interview.entries import TranscriptEntry

    if not state.question_entry_id:
        await submit_entry(handle, TranscriptEntry(entry_id=entry_id, speaker="interviewer",
                                                   text=state.next_question or "Go on?"))


async def drive_exchanges(handle: WorkflowHandle, answers: list[str], cadence_s: float, answer_after_s: float,
                          poll_s: float = 0.1, timeout_s: float = 60.0, start_offset_s: float = 0.0
                          ) -> SessionTimings:
    """A measuring rehearsal client. Every `cadence_s`: show the engine's question (`show_question`), answer
    `answer_after_s` after it, and time answer -> the engine's decision made with that answer in hand (event log:
    interviewer-AI request after the answer, then its response)."""
    from client.interview.cli import session_state, submit_entry, wait_for_decision, wait_for_state
    from models.interview.entries import TranscriptEntry

    out = SessionTimings(handle.id)
    state = await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS" and bool(s.next_question), 180, 0.25)
    if start_offset_s:
        await asyncio.sleep(start_offset_s)  # spread sessions over the cadence, like real people
    for turn, answer in enumerate(answers, start=1):
        began = time.monotonic()
        await show_question(handle, state, f"b{turn}q")
        rest = answer_after_s - (time.monotonic() - began)
        if rest > 0:
            await asyncio.sleep(rest)  # the interviewee thinking: real time is the point of this client loop
        cursor = (await session_state(handle)).last_event_id
        await submit_entry(handle, TranscriptEntry(entry_id=f"b{turn}a", speaker="interviewee", text=answer))
        sent = time.monotonic()
        decided = await wait_for_decision(handle, f"b{turn}a", cursor, timeout_s, poll_s)
        if decided is None:
            out.missed += 1
            state = await session_state(handle)
        else:
            out.decision_latency_s.append(time.monotonic() - sent)
            state = decided
        if state.status != "IN_PROGRESS":
            break
        rest = cadence_s - (time.monotonic() - began)
        if rest > 0 and turn < len(answers):
            await asyncio.sleep(rest)
    return out


def prompt_tokens(call) -> int:
    """The offline provider's own token count for a call's prompt (len/4, as it reports in usage)."""
    text = "\n".join(str(m.get("content", "")) for m in call.messages)
    return max(1, len(text) // 4)
