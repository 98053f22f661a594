"""`colloquy study review`: the researcher reads the Planner's plan, edits it or approves it ("the AI proposes,
the researcher decides"); a study created with `--review` opens its links only after the approval.

    colloquy study review STUDY_ID                       # print the plan (and whether it is approved)
    colloquy study review STUDY_ID --plan-file plan.json # replace it by an edited plan (validated by the study;
                                                         # the plan_review query's answer as saved is taken too)
    colloquy study review STUDY_ID --approve             # approve: the links open
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import click
import typer
from pydantic import ValidationError
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError

from client.common import console, run
from client.connection import NO_FLAGS, Connection, connects
from client.errors import CliError, ExitCode
from client.study.connect import study_handle as _handle
from client.study.connect import study_update
from models.interview.plan import PlanSnapshot
from models.study.workflow import QUERY_PLAN_REVIEW, UPDATE_REVIEW_PLAN, PlanReview, ReviewPlan
from rules.errors import error_message

PLAN_WAIT_SECONDS = 180.0


def plan_text(plan: PlanSnapshot) -> str:
    lines = [f"Plan: {plan.topic}", f"Research goal: {plan.research_goal}" if plan.research_goal else ""]
    for sec in plan.sections:
        lines.append(f"\n[{sec.id}] {sec.title}")
        lines += [f"  {q.id} (priority {q.priority}): {q.text}" for q in sec.questions]
    return "\n".join(x for x in lines if x != "")


async def wait_for_plan(handle: WorkflowHandle, timeout: float = PLAN_WAIT_SECONDS) -> PlanReview:
    deadline = time.monotonic() + timeout
    while True:
        review = await handle.query(QUERY_PLAN_REVIEW, result_type=PlanReview)
        if review.plan is not None:
            return review
        if time.monotonic() > deadline:
            raise CliError(f"no plan after {timeout:.0f}s: is a worker running? (colloquy study review "
                           f"{handle.id} later)", ExitCode.FAILED)
        await asyncio.sleep(1.0)


async def send(handle: WorkflowHandle, req: ReviewPlan) -> PlanReview:
    try:
        return await study_update(handle, UPDATE_REVIEW_PLAN, req, PlanReview, "its plan can no longer change")
    except WorkflowUpdateFailedError as exc:
        raise CliError(error_message(exc), ExitCode.REFUSED) from None


def load_plan(path: Path) -> PlanSnapshot:
    """An edited plan: the plan itself, or what the `plan_review` query answers (a PlanReview, its plan under
    "plan"; the Temporal CLI prints it in a list, under "queryResult" with `-o json`). A null stands for "not
    given" (the field's default), as the query's JSON writes an absent value."""
    if not path.is_file():
        raise CliError(f"plan file {path} not found", ExitCode.USAGE)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CliError(f"{path} is not JSON: {exc}", ExitCode.USAGE) from None
    try:
        return PlanSnapshot.model_validate(_without_nulls(_the_plan(data)))
    except ValidationError as exc:
        first = exc.errors()[0]
        raise CliError(f"{path} is not a valid plan: {'.'.join(map(str, first['loc']))}: {first['msg']}",
                       ExitCode.USAGE) from None


def _the_plan(data: Any) -> Any:
    """The plan inside a query's answer: {"queryResult": [...]}, [answer], {"plan": {...}, "approved": ...}."""
    if isinstance(data, dict) and "queryResult" in data:
        data = data["queryResult"]
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if isinstance(data, dict) and isinstance(data.get("plan"), dict) and "sections" not in data:
        data = data["plan"]
    return data


def _without_nulls(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _without_nulls(v) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        return [_without_nulls(v) for v in data]
    return data


async def review_interactively(handle: WorkflowHandle) -> None:
    """After `study create --review`: show the plan; approve, edit (in $EDITOR, as JSON) or leave it for later."""
    review = await wait_for_plan(handle)
    while True:
        assert review.plan is not None
        console.print(plan_text(review.plan), highlight=False, soft_wrap=True)
        if not sys.stdin.isatty():
            console.print(f"approve with: colloquy study review {handle.id} --approve", soft_wrap=True)
            return
        choice = typer.prompt("approve (a), edit (e) or decide later (l)", default="l").strip().lower()[:1]
        if choice == "a":
            await send(handle, ReviewPlan(action="approve"))
            console.print("approved: the links open now (colloquy study invite ...)")
            return
        if choice != "e":
            console.print(f"not approved yet: colloquy study review {handle.id} --approve", soft_wrap=True)
            return
        edited = click.edit(review.plan.model_dump_json(indent=2), extension=".json")
        if edited is None:
            continue
        try:
            plan = PlanSnapshot.model_validate_json(edited)
        except ValidationError as exc:
            console.print(f"[red]not a valid plan:[/red] {exc.errors()[0]['msg']}")
            continue
        review = await send(handle, ReviewPlan(action="edit", plan=plan))


@connects
def review_cmd(
    study_id: str = typer.Argument(..., help="The study's workflow id."),
    approve: bool = typer.Option(False, "--approve", help="Approve the plan: the links open."),
    plan_file: Path | None = typer.Option(None, "--plan-file", help="Replace the plan by this edited one "
                                          "(PlanSnapshot JSON, or the plan_review query's answer as saved; see "
                                          "the printed plan's ids)."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Show a study's plan; edit it (--plan-file) or approve it (--approve). A study created with --review opens
    its links only after the approval."""
    async def _run() -> None:
        client = await conn.connect()
        h = _handle(client, study_id)
        review = await wait_for_plan(h)
        if plan_file is not None:
            review = await send(h, ReviewPlan(action="edit", plan=load_plan(plan_file)))
            console.print(f"plan edited ({review.edits} edit(s))")
        if approve:
            review = await send(h, ReviewPlan(action="approve"))
        if review.plan is not None:
            console.print(plan_text(review.plan), highlight=False, soft_wrap=True)
        state = "approved: links open" if review.approved else "not approved yet: links stay shut"
        console.print(f"\n{state}", highlight=False)

    run(_run())
