"""An agent activity rides out an outage of the artifact store (activities/artifacts.py `patiently`): found by the
fault drill (tests/e2e/drill), where the S3 server killed and restarted (~20 s) halted a writing run — each draft's
three attempts (the agent's policy, meant for the model) failed within 4 s on the store, so every draft failed.

Now an attempt that fails only because the store is unavailable (ArtifactUnavailable) is tried again in place,
heartbeating, for up to STORE_PATIENCE; the model's answer is kept while its output waits for the store; a final
failure of the store (ArtifactError) is raised at once, and the patience is bounded."""

from __future__ import annotations

import dataclasses
import time
from datetime import timedelta
from typing import Any

import pytest
from pydantic import BaseModel
from temporalio import activity
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

import activities.artifacts as artifacts
from activities.artifacts import completed_once
from activities.writing.common import save_output
from models.common import AgentResult, LLMUsage
from models.writing.workflow import WritingTaskInput

CALLS: list[str] = []


class In(BaseModel):
    story: str


class Out(BaseModel):
    text: str


@activity.defn(name="outage_once")
@completed_once
async def once(inp: In) -> AgentResult[Out]:
    CALLS.append(inp.story)
    return AgentResult[Out](output=Out(text=inp.story.upper()), usage=LLMUsage(agent="t", model="m", provider="p"))


class Flaky:
    """The real (local) store, unavailable for its first `down` calls of each kind (an outage, then back)."""

    def __init__(self, real: Any, down: int, error: str = "ArtifactUnavailable") -> None:
        self.real, self.down, self.error = real, down, error
        self.failed: dict[str, int] = {}

    def _maybe_fail(self, op: str) -> None:
        if self.failed.get(op, 0) < self.down:
            self.failed[op] = self.failed.get(op, 0) + 1
            raise ApplicationError(f"cannot {op} artifact: connection refused", type=self.error,
                                   non_retryable=self.error != "ArtifactUnavailable")

    def read_optional(self, *args: Any) -> Any:
        self._maybe_fail("read")
        return self.real.read_optional(*args)

    def put(self, *args: Any) -> Any:
        self._maybe_fail("write")
        return self.real.put(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@pytest.fixture(autouse=True)
def _fast(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    monkeypatch.setattr(artifacts, "PATIENCE_FIRST_WAIT_S", 0.01, raising=False)
    monkeypatch.setattr(artifacts, "PATIENCE_MAX_WAIT_S", 0.05, raising=False)
    CALLS.clear()


def flaky(monkeypatch, down: int, error: str = "ArtifactUnavailable") -> Flaky:
    store = Flaky(artifacts.store(), down, error)
    monkeypatch.setattr(artifacts, "store", lambda: store)
    return store


def env() -> ActivityEnvironment:
    e = ActivityEnvironment()
    e.info = dataclasses.replace(e.info, workflow_id="wf-outage", workflow_run_id="run-1", activity_type="outage_once")
    return e


async def test_an_agent_attempt_waits_out_the_store_and_calls_the_model_once(monkeypatch):
    store = flaky(monkeypatch, down=4)
    beats: list[Any] = []
    e = env()
    e.on_heartbeat = lambda *details: beats.append(details)
    result = await e.run(once, In(story="draft"))
    assert result.output.text == "DRAFT"
    assert CALLS == ["draft"]                       # the model was asked once: its answer waited for the store
    assert store.failed == {"read": 4, "write": 4}  # both the kept-result lookup and the save rode it out
    assert len(beats) >= 8                          # heartbeating while it waited (the agents' 12 s timeout)


async def test_a_writing_agents_output_waits_for_the_store(monkeypatch):
    store = flaky(monkeypatch, down=3)
    inp = WritingTaskInput.model_construct(run_id="run-outage", output_name="draft_v1_m-a.md", model="m-a")
    result = await save_output(inp, "The draft.", "draft", LLMUsage(agent="writing_draft", model="m", provider="p"))
    assert store.failed["write"] == 3
    assert artifacts.store().get(result.output_ref) == "The draft."


async def test_a_final_store_failure_is_raised_at_once(monkeypatch):
    store = flaky(monkeypatch, down=100, error="ArtifactError")
    with pytest.raises(ApplicationError) as err:
        await env().run(once, In(story="draft"))
    assert err.value.type == "ArtifactError" and store.failed == {"read": 1}


async def test_the_patience_is_bounded(monkeypatch):
    monkeypatch.setattr(artifacts, "STORE_PATIENCE", timedelta(seconds=0.5), raising=False)
    flaky(monkeypatch, down=10_000)
    started = time.monotonic()
    with pytest.raises(ApplicationError) as err:
        await env().run(once, In(story="draft"))
    assert err.value.type == "ArtifactUnavailable"   # then Temporal's retry policy takes over
    assert time.monotonic() - started < 5
