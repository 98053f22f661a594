"""activities/artifacts.py `completed_once`: an artifact-writing activity whose result already exists for the same
input (its completion was lost: a worker killed after the model answered, a server outage) returns it instead of
calling the model again — completed work is never redone or thrown away."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import BaseModel
from temporalio import activity
from temporalio.testing import ActivityEnvironment

from activities.artifacts import completed_once
from activities.interview.analysis import interview_analysis
from activities.interview.writer import interview_writer
from activities.writing.audit import writing_audit
from activities.writing.draft import writing_draft
from activities.writing.final_audit import writing_final_audit
from activities.writing.synthesize import writing_synthesize
from models.common import AgentResult, LLMUsage
from models.interview.activities import AnalysisInput
from models.interview.analysis import AnalysisSummary
from models.writing.workflow import TaskResult, WritingTaskInput


class In(BaseModel):
    story: str


class Out(BaseModel):
    text: str
    n: int


CALLS: list[str] = []


@activity.defn(name="test_once")
@completed_once
async def once(inp: In) -> AgentResult[Out]:
    CALLS.append(inp.story)
    return AgentResult[Out](output=Out(text=inp.story.upper(), n=len(CALLS)), usage=LLMUsage(agent="t", model="m", provider="p"))


@pytest.fixture(autouse=True)
def _artifacts(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    CALLS.clear()


def env(workflow_id: str = "wf-1", attempt: int = 1, run_id: str = "run-1") -> ActivityEnvironment:
    e = ActivityEnvironment()
    e.info = dataclasses.replace(e.info, workflow_id=workflow_id, workflow_run_id=run_id, activity_type="test_once",
                                 attempt=attempt)
    return e


async def test_a_retry_with_the_same_input_returns_the_completed_result():
    first = await env().run(once, In(story="a"))
    again = await env(attempt=2).run(once, In(story="a"))
    assert CALLS == ["a"] and again == first and again.output.n == 1
    other = await env().run(once, In(story="b"))          # another input: a new call
    assert CALLS == ["a", "b"] and other.output.text == "B"
    elsewhere = await env("wf-2").run(once, In(story="a"))  # another workflow never reuses this one's results
    assert CALLS == ["a", "b", "a"] and elsewhere.output.n == 3
    rerun = await env(run_id="run-2").run(once, In(story="a"))  # a new run of the same id starts afresh
    assert CALLS == ["a", "b", "a", "a"] and rerun.output.n == 4


async def test_outside_an_activity_it_is_the_plain_function():
    await once(In(story="x"))
    await once(In(story="x"))
    assert CALLS == ["x", "x"]


@pytest.mark.parametrize("fn", [writing_draft, writing_audit, writing_final_audit, writing_synthesize,
                                interview_analysis, interview_writer])
def test_decorated_activities_keep_their_temporal_types(fn):
    defn = fn.__temporal_activity_definition
    assert defn.name == fn.__name__
    assert defn.arg_types and defn.arg_types[0] in (WritingTaskInput, AnalysisInput) or fn is interview_writer
    assert defn.ret_type in (TaskResult, AgentResult[AnalysisSummary]) or fn is interview_writer
