"""Shared helpers for the discussion workflow tests: start a discussion, script agents."""

from __future__ import annotations

import uuid

from temporalio.client import Client, WorkflowHandle

from models.discussion.workflow import DiscussionInput
from workflows.discussion.workflow import DiscussionWorkflow

LLM = ("discussion_kickoff", "discussion_research", "discussion_ideate", "discussion_critique",
       "discussion_implement", "discussion_synthesize", "discussion_score", "discussion_select")


async def start(client: Client, queue: str, topic: str = "How can a small town cut food waste?",
                level: str = "standard", workflow_id: str | None = None, **fields) -> WorkflowHandle:
    inp = DiscussionInput(topic=topic, level=level, **fields)
    return await client.start_workflow(DiscussionWorkflow.run, inp, id=workflow_id or new_id(), task_queue=queue)


def new_id() -> str:
    return f"discussion-test-{uuid.uuid4().hex[:8]}"


async def search_attributes(handle: WorkflowHandle) -> dict[str, object]:
    desc = await handle.describe()
    return {pair.key.name: pair.value for pair in desc.typed_search_attributes}


def prompt_of(call) -> str:
    return "\n".join(str(m.get("content", "")) for m in call.messages)


def idea(title: str, description: str | None = None, refines: str | None = None) -> dict:
    return {"title": title, "description": description or f"{title}: how it works.", "rationale": "worth it",
            "refines": refines}


def ideas(*titles: str, commentary: str = "") -> dict:
    return {"commentary": commentary, "ideas": [idea(t) for t in titles]}


def evaluation(idea_id: str, f: float, i: float, im: float, c: float, co: float) -> dict:
    return {"idea_id": idea_id, "pros": [f"{idea_id} pro"], "cons": [f"{idea_id} con"], "feedback": "ok",
            "feasibility": f, "innovation": i, "impact": im, "clarity": c, "completeness": co}


def scores(*evaluations: dict, summary: str = "scored") -> dict:
    return {"summary": summary, "evaluations": list(evaluations)}


def uniform(idea_id: str, value: float) -> dict:
    return evaluation(idea_id, value, value, value, value, value)
