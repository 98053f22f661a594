"""QueryWorkflow's shared part: its pure state (`rules.query.run_state.QueryRun`), the user's clock, the
notes parsed on the side."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.query import patches as query_patches
    from models.query.workflow import ReparseResult
    from rules.paths import input_path_problems
    from rules.query.run_state import QueryRun
    from workflows.inputs import fail_start


PIPELINE = "query"


def refuse_paths_outside_roots(paths: dict[str, str | None], files: list[str] | None = None) -> None:
    """The door (rules/paths.py): a path of the input must be relative to the worker's roots, or the run fails now,
    non-retryably. A run this workflow continued as new made its own input: not a door. Patched: a history
    recorded before the door (absolute paths) replays the old way; valid input adds no command."""
    if workflow.info().continued_run_id is not None:
        return
    problems = input_path_problems(paths, files)
    if problems and workflow.patched(query_patches.PATHS_AT_THE_DOOR):
        fail_start(PIPELINE, f"invalid {workflow.info().workflow_type} input: paths name a place inside the "
                   "worker's configured roots (docs/operations.md): " + "; ".join(problems))


class QueryStepsBase:
    """What every group of QueryWorkflow steps shares: the run's state and the user's clock."""

    st: QueryRun
    backlog: asyncio.Task[ReparseResult] | None     # flagged notes parsed on the side

    async def _join_backlog(self) -> None:
        """Wait for the notes parsed on the side (see _route); their outcome goes into the result once."""
        if self.backlog is None or self.st.reparsed is not None:
            return
        self.st.reparsed = await self.backlog
        self.st.warnings.extend(w for w in self.st.reparsed.warnings if w not in self.st.warnings)

    def _now(self) -> datetime:
        """Workflow time on the user's clock (deterministic: workflow.now() + the request's UTC offset)."""
        offset = timedelta(minutes=self.st.req.utc_offset_minutes if self.st.req else 0)
        return workflow.now().astimezone(timezone(offset))

    def _timestamp(self) -> datetime:
        """When a note is logged: now, on the user's clock; on `today` when the request pins the date."""
        now = self._now()
        if self.st.req and self.st.req.today and self.st.req.today != now.date():
            return now.replace(year=self.st.today.year, month=self.st.today.month, day=self.st.today.day)
        return now
