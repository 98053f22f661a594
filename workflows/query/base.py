"""QueryWorkflow's shared part: its pure state (`rules.query.run_state.QueryRun`), the user's clock, the
notes parsed on the side."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.query.workflow import ReparseResult
    from rules.query.run_state import QueryRun


PIPELINE = "query"


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
