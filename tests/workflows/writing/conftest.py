"""Writing-workflow test helpers: isolated artifact dir + history DB per test, config builders, starters."""

from __future__ import annotations

import copy
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from models.writing.workflow import WorkflowConfig, WritingInput
from tests.unit.writing.conftest import postgres_server, postgres_url  # noqa: F401 - the real PostgreSQL fixtures
from workers.main import running_workers
from workflows.writing.workflow import WritingWorkflow

CONFIGS = Path(__file__).resolve().parents[3] / "configs" / "writing"
STORY = ("The GPU hit 94 degrees and the fans sounded like a jet engine. Llama generated two tokens per second. "
         "I needed fifty. The fix was a smaller model and a queue. The scar: I now check VRAM before I promise.")


@pytest.fixture(autouse=True)
def isolated_store(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    monkeypatch.setenv("COLLOQUY_HISTORY_DB", str(tmp_path / "history.duckdb"))
    return tmp_path


def raw_config(name: str = "default") -> dict[str, Any]:
    return copy.deepcopy(yaml.safe_load((CONFIGS / f"{name}.yaml").read_text()))


def config(name: str = "default", **changes: Any) -> WorkflowConfig:
    data = raw_config(name)
    data.update(changes)
    return WorkflowConfig.model_validate(data)


def by_model(responses: dict[str, Any], default: Any = None):
    """A script item that answers per model id (fan-out branches run in any order)."""
    def pick(req):
        item = responses.get(req.model, default)
        return item(req) if callable(item) else item
    return pick


async def start(env, queue: str, models: list[str], cfg: WorkflowConfig | None = None, story: str = STORY,
                **kw: Any):
    inp = WritingInput(story_text=story, story_name=kw.pop("story_name", "post_03"), models=models, config=cfg, **kw)
    return await env.client.start_workflow(WritingWorkflow.run, inp, id=f"writing-test-{uuid.uuid4().hex[:8]}",
                                           task_queue=queue)


def quick_worker(client):
    """All workers on a fresh queue with no graceful shutdown wait: for tests that leave a hung activity."""
    return running_workers(client, graceful_shutdown_timeout=timedelta(0))


def gated_without_human(**changes: Any) -> WorkflowConfig:
    """The gated variant with final-audit going straight to complete (no human in the loop)."""
    data = raw_config("gated")
    data["states"].pop("human-approval")
    data["states"]["final-audit"]["transitions"].update(all_success="complete", partial_success="complete")
    data.update(changes)
    return WorkflowConfig.model_validate(data)


def rules(**limits: Any) -> dict[str, Any]:
    """circuit_breaker section with only the named soft rules enabled (value = limit, None = default)."""
    names = ("state_visit_limit", "cycle_detection", "transition_limit", "timeout", "cost_limit")
    return {"rules": [{"name": n, "limit": limits.get(n), "enabled": n in limits} for n in names],
            "safety_limits": limits.get("hard", {})}


def gate(decision: str, guidance: str = "", score: int = 6) -> dict[str, Any]:
    return {"issues": [], "feedback": f"gate says {decision}", "retry_guidance": guidance, "score": score,
            "decision": decision}
