"""InterviewWorkflow, continued: long sessions continue as new with their state carried, and every text the run
holds in memory stays bounded (rules/interview/budget.py) — old transcript entries, events and activity-log lines go
to the artifact store in chunks; the carried `InterviewState` keeps only tails and references."""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.interview import interview_archive_lines
    from models.common import ArtifactRef
    from models.interview.activities import ArchiveInput
    from models.interview.patches import BOUNDED_PAYLOADS, CARRY_ARRIVALS, ENDED_NOT_CARRIED
    from models.interview.workflow import InterviewInput
    from rules.interview import budget
    from rules.interview.session import Session
    from workflows.calls import call_activity

KEEP_EVENTS = 200            # events kept in memory across continue-as-new (older ones are archived)
KEEP_ENTRIES = 40            # transcript entries kept in memory (windows need 30)
KEEP_LOG_LINES = 100
#: patch id: payloads bounded by bytes (rules/interview/budget.py) — continue-as-new on memory, chunked archives
#: patch ids: an interview that ended while its run continued as new finishes instead of carrying an ended session
#: (which the next run never finished), and a run carried that way only finishes


class ContinueAsNew:
    """The continue-as-new and archive steps of InterviewWorkflow (a mixin: the workflow owns the state)."""

    s: Session
    inp: InterviewInput
    wid: str
    summary_tasks: list[asyncio.Task[Any]]

    def _history_long(self) -> bool:
        """The server suggests continue-as-new, or the history reached the input's limit (heartbeats and controls
        grow it without a new entry: the live loop watches this too)."""
        info = workflow.info()
        return info.is_continue_as_new_suggested() or info.get_current_history_length() >= self.inp.continue_as_new_after_events

    def _should_continue_as_new(self) -> bool:
        """When the history grows long, or the texts held in memory outgrow rules/interview/budget.py — but never
        in the late grace: a few seconds from the end, finish here."""
        info = workflow.info()
        return self.s.state.grace_until is None and (
            info.is_continue_as_new_suggested() or info.get_current_history_length() >= self.inp.continue_as_new_after_events
            or (budget.memory_bytes(self.s.state.transcript_tail, self.s.log.events) > budget.MEMORY_TEXT_BYTES
                and workflow.patched(BOUNDED_PAYLOADS)))

    async def _archive(self, segments: list[ArtifactRef], name: str, lines: list[str], summary: str) -> None:
        if not lines:
            return
        groups = [lines]
        if budget.lines_bytes(lines) > budget.ARCHIVE_CHUNK_BYTES and workflow.patched(BOUNDED_PAYLOADS):
            groups = budget.chunks(lines)   # no archive input over the chunk budget, however much arrived at once
        for index, group in enumerate(groups):
            segments.append(await call_activity(interview_archive_lines, ArchiveInput(
                workflow_id=self.wid, name=budget.part_name(name, index), lines=group), kind="artifact",
                summary=summary if len(groups) == 1 else f"{summary} ({index + 1}/{len(groups)})"))

    def _arrivals_over_budget(self, archived_events: int) -> bool:
        """Whether the transcript tail or the events still to carry outgrew CARRY_TEXT_BYTES (entries that arrived
        while the archive steps ran)."""
        return (budget.carry_over_budget(self.s.state.transcript_tail, budget.entry_bytes)
                or budget.carry_over_budget(self.s.log.events[archived_events:], budget.event_bytes))

    def _keep_entries(self) -> int:
        """Transcript entries kept in memory: KEEP_ENTRIES, fewer where their texts exceed the carry budget."""
        tail = self.s.state.transcript_tail
        if (budget.over_budget(tail, KEEP_ENTRIES, budget.CARRY_TEXT_BYTES, budget.entry_bytes)
                and workflow.patched(BOUNDED_PAYLOADS)):
            return budget.keep_count(tail, KEEP_ENTRIES, budget.CARRY_TEXT_BYTES, budget.entry_bytes)
        return KEEP_ENTRIES

    def _keep_events(self) -> int:
        events = self.s.log.events
        if (budget.over_budget(events, KEEP_EVENTS, budget.CARRY_TEXT_BYTES, budget.event_bytes)
                and workflow.patched(BOUNDED_PAYLOADS)):
            return budget.keep_count(events, KEEP_EVENTS, budget.CARRY_TEXT_BYTES, budget.event_bytes)
        return KEEP_EVENTS

    async def _shed_before_finish(self) -> None:
        """The final save and export take the in-memory transcript and events as input: when a burst of long
        entries arrived since the last continue-as-new, archive the older ones first (bounded inputs)."""
        await self._archive_beyond_kept(f"{self.s.state.continued + 1:03d}-final", over_bytes_only=True)

    async def _archive_beyond_kept(self, tag: str, over_bytes_only: bool) -> None:
        """Archive the transcript entries and events beyond what memory keeps (`_keep_entries`, `_keep_events`) as
        transcript-part-<tag>.jsonl and events-part-<tag>.jsonl; `over_bytes_only`: only where their texts are over
        the carry budget (not merely more than the counts kept)."""
        st = self.s.state
        keep = self._keep_entries()
        if keep < len(st.transcript_tail) and (keep < KEEP_ENTRIES or not over_bytes_only):
            old_entries = self.s.archive_transcript(keep)
            await self._archive(st.transcript_segments, f"transcript-part-{tag}.jsonl",
                                [e.model_dump_json() for e in old_entries], f"archive {len(old_entries)} entries")
        keep = self._keep_events()
        events = self.s.log.events
        if keep < len(events) and (keep < KEEP_EVENTS or not over_bytes_only):
            old_events = events[:-keep]
            await self._archive(st.event_segments, f"events-part-{tag}.jsonl",
                                [e.model_dump_json() for e in old_events], f"archive {len(old_events)} events")
            del events[:len(old_events)]

    async def _continue_as_new(self) -> None:
        """Carry the state into a fresh run; old transcript entries, events and log lines go to artifacts. Returns
        (instead of continuing) when the interview ended during these steps."""
        st = self.s.state
        await workflow.wait_condition(workflow.all_handlers_finished)
        if self.summary_tasks:
            await asyncio.gather(*self.summary_tasks)
        run = st.continued + 1
        old_entries = self.s.archive_transcript(self._keep_entries())
        await self._archive(st.transcript_segments, f"transcript-part-{run:03d}.jsonl",
                            [e.model_dump_json() for e in old_entries], f"archive {len(old_entries)} entries")
        self.s.continued_as_new(workflow.now(), run, workflow.info().get_current_history_length())
        events = self.s.log.events
        keep_events = self._keep_events()
        old_events = events[:-keep_events] if len(events) > keep_events else []
        await self._archive(st.event_segments, f"events-part-{run:03d}.jsonl",
                            [e.model_dump_json() for e in old_events], f"archive {len(old_events)} events")
        old_lines = st.activity_log[:-KEEP_LOG_LINES] if len(st.activity_log) > KEEP_LOG_LINES else []
        await self._archive(st.activity_log_segments, f"activity-log-part-{run:03d}.txt", old_lines,
                            "archive activity log")
        await workflow.wait_condition(workflow.all_handlers_finished)
        archived_events, archived_lines = len(old_events), len(old_lines)
        late = 0
        while self._arrivals_over_budget(archived_events) and workflow.patched(CARRY_ARRIVALS):
            # a flood arrived during the archive steps: archive it too, until what is carried fits its budget
            del events[:archived_events]
            del st.activity_log[:archived_lines]
            archived_events = archived_lines = 0
            late += 1
            await self._archive_beyond_kept(f"{run:03d}-late{late}", over_bytes_only=False)
            await workflow.wait_condition(workflow.all_handlers_finished)
        if self.s.ended and workflow.patched(ENDED_NOT_CARRIED):
            del events[:archived_events]            # archived above: the final export reads them from there
            del st.activity_log[:archived_lines]
            self.s.say(workflow.now(), "↻ The interview ended while continuing as new: finishing in this run")
            return
        # nothing awaits from here on: entries/events that arrived meanwhile are all carried
        carried = self.s.carry(run, archived_events=archived_events, archived_lines=archived_lines)
        workflow.continue_as_new(self.inp.model_copy(update={"carried": carried, "plan": None}))

