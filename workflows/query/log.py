"""QueryWorkflow's entry and log flow: ROUTE → BUILD_CONTEXT → PARSE → STORE (and EXPAND_DOMAIN)."""

from __future__ import annotations

import asyncio

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.query.parse_log import parse_log
    from activities.query.route_input import route_input
    from activities.query.storage import (
        notes_load_domains,
        notes_recent_entries,
        notes_store_entry,
    )
    from core import search_attributes as sa
    from models.common import AgentResult
    from models.query import patches as query_patches
    from models.query.agents import ParseInput, ParserOutput, RouteInput, RouterOutput
    from models.query.parts import Entry, Gap, GapType, InputType
    from models.query.workflow import LoadDomainsInput, RecentEntriesInput, StoreEntryInput, StoreEntryResult
    from rules.query.corrections import check_target
    from rules.query.domains import combine_domains, domain_schemas, valid_selection
    from rules.query.imports import clean_text
    from rules.query.machine import State
    from rules.query.parsing import split_both
    from rules.query.summaries import describe_store
    from workflows.calls import call_activity, call_agent
from workflows.query.base import QueryStepsBase
from workflows.query.reparse import reparse_on_the_side


class QueryLogSteps(QueryStepsBase):
    async def _route(self) -> State:
        assert self.st.req is not None
        workflow.set_current_details("routing the input")
        self.st.catalog = await call_activity(notes_load_domains, LoadDomainsInput(app_id=self.st.req.app_id),
                                           summary=f"load domains of app {self.st.req.app_id}")
        if workflow.patched(query_patches.REPARSE_FLAGGED):
            # Notes an earlier Router failure kept unparsed: a few are parsed now, beside this run (joined before
            # the first retrieval, so this question sees them, and before the end).
            self.backlog = asyncio.create_task(reparse_on_the_side(
                self.st.catalog, self.st.req.notes_dir, exclude_source_key=f"{workflow.info().workflow_id}:log",
                on_usage=self.st.usage.add))
        available = [d for d in combine_domains(self.st.catalog, []).available_domains]
        result: AgentResult[RouterOutput] = await call_agent(
            route_input, RouteInput(raw_input=self.st.req.text, session_context=self.st.req.session_context,
                                    available_domains=available),
            summary="Router: classify input + select domains",
            result_type=AgentResult[RouterOutput])
        self.st.count(result.usage)
        route = result.output
        self.st.route = route
        kept, dropped = valid_selection(self.st.catalog, route.selected_domains)
        if dropped:
            self.st.warnings.append(f"the Router named unknown domain(s) {', '.join(dropped)}; ignored")
        self.st.selected = kept
        self.st.input_type = route.input_type
        text = clean_text(self.st.req.text).strip()
        if route.input_type == InputType.BOTH:
            log_part, query_part = route.log_portion, route.query_portion
            if not (log_part and query_part):
                log_part, query_part = split_both(text)
            if not query_part:  # nothing to ask after all
                self.st.input_type = InputType.LOG
                log_part = text
            if not log_part:
                self.st.input_type = InputType.QUERY
            self.st.log_text, self.st.query_text = (log_part or "").strip(), (query_part or text).strip()
        elif route.input_type == InputType.QUERY:
            self.st.query_text = route.query_portion or text
        else:
            self.st.log_text = text
        sa.upsert(topic=self.st.input_type.value)
        return State.BUILD_CONTEXT

    async def _build_context(self) -> State:
        assert self.st.catalog is not None
        self.st.ctx = combine_domains(self.st.catalog, self.st.selected)
        workflow.set_current_details(f"domains: {', '.join(self.st.ctx.domains_loaded)}")
        if self.st.input_type in (InputType.LOG, InputType.CORRECTION, InputType.BOTH) and not self.st.log_done:
            return State.PARSE
        return State.PLAN

    async def _parse(self) -> State:
        assert self.st.req is not None and self.st.ctx is not None and self.st.catalog is not None
        correction = self.st.input_type == InputType.CORRECTION
        recent = []
        if correction and self.st.correction_target is not None:  # the user said which entry: parse against it
            recent = [e for e in self.st.recent if e.id == self.st.correction_target]
        elif correction:
            recent = await call_activity(notes_recent_entries,
                                         RecentEntriesInput(notes_dir=self.st.req.notes_dir, until=self.st.today),
                                         summary="recent entries (correction target)")
            self.st.recent = [e if isinstance(e, Entry) else Entry.model_validate(e) for e in recent]
        workflow.set_current_details("parsing the correction" if correction else "parsing the note")
        result: AgentResult[ParserOutput] = await call_agent(
            parse_log, ParseInput(raw_input=self.st.log_text, timestamp=self._timestamp(),
                                  domain_schemas=domain_schemas(self.st.catalog, self.st.parse_domains(correction)),
                                  vocabulary=self.st.ctx.vocabulary, recent_entries=recent, correction_mode=correction,
                                  correction_target=self.st.correction_target or
                                  (self.st.route.correction_target if self.st.route else None)),
            summary=f"Parser: {'correction' if correction else 'log'} → "
                                  f"{', '.join(self.st.ctx.domains_loaded)}",
            result_type=AgentResult[ParserOutput])
        self.st.count(result.usage)
        self.st.parsed = result.output
        if correction and self.st.correction_target is not None:
            self.st.parsed = self.st.parsed.model_copy(update={"target_entry_id": self.st.correction_target})
        elif correction:
            check = check_target(self.st.log_text, self.st.parsed.target_entry_id, self.st.recent)
            if (check.ambiguous and check.candidates and self.st.counters.left("clarification", self.st.limits) > 0
                    and workflow.patched(query_patches.CONFIRM_CORRECTION)):
                self.st.correction_options = check.candidates
                self.st.gaps = [Gap(description=f"which entry the correction is for: {check.reason}",
                                 gap_type=GapType.CLARIFICATION, searched=True)]
                return State.CLARIFY
        return State.STORE

    async def _store(self) -> State:
        assert self.st.req is not None
        correction = self.st.input_type == InputType.CORRECTION and self.st.parsed is not None
        result: StoreEntryResult = await call_activity(
            notes_store_entry, StoreEntryInput(
                notes_dir=self.st.req.notes_dir, raw_input=self.st.log_text, timestamp=self._timestamp(),
                parsed=None if correction else self.st.parsed, correction=self.st.parsed if correction else None,
                source_key=f"{workflow.info().workflow_id}:log", tags=["needs-parsing"] if self.st.unrouted else []),
            summary="store correction (append + upsert)" if correction else "store raw + parsed entry",
            result_type=StoreEntryResult)
        self.st.stored.append(result)
        self.st.log_done = True
        if result.note and result.note != "already stored":
            self.st.warnings.append(result.note)
        self.st.response = describe_store(result, self.st.parsed, correction=self.st.input_type == InputType.CORRECTION)
        if self.st.unrouted:
            self.st.response = (f"I could not classify your input right now, so I kept it as note {result.entry_id} "
                             "exactly as written (tagged needs-parsing). It is parsed the next time your notes are "
                             "used (or by `colloquy notes reparse`); ask again later for an answer.")
        return State.PLAN if self.st.input_type == InputType.BOTH else State.OBSERVE

    async def _expand_domain(self) -> State:
        added = self.st.pending_expansion
        self.st.selected = self.st.selected + [d for d in added if d not in self.st.selected]
        self.st.expansion_history += added
        self.st.pending_expansion = []
        workflow.set_current_details(f"loading domain(s): {', '.join(added)}")
        return State.BUILD_CONTEXT
