"""QueryWorkflow's query flow: PLAN → RETRIEVE → ANALYZE → SYNTHESIZE → EVALUATE, and OBSERVE."""

from __future__ import annotations

import asyncio

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.query.analyze_evidence import analyze_evidence
    from activities.query.evaluate_answer import evaluate_answer
    from activities.query.observe_context import observe_context
    from activities.query.plan_query import plan_query
    from activities.query.retriever import retrieve_notes
    from activities.query.storage import (
        notes_apply_context_updates,
        notes_read_global_context,
    )
    from activities.query.synthesize_answer import synthesize_answer
    from models.common import AgentResult
    from models.query import patches as query_patches
    from models.query.agents import (
        AnalyzeInput,
        AnalyzerOutput,
        EvaluateInput,
        EvaluatorOutput,
        Finding,
        ObserveInput,
        ObserverOutput,
        PlanInput,
        PlannerOutput,
        RetrieveInput,
        RetrieverOutput,
        SubQuery,
        SynthesizeInput,
        SynthesizerOutput,
    )
    from models.query.parts import InputType, QueryType, Verdict
    from models.query.workflow import ApplyContextInput, ApplyContextResult, NotesLocation
    from rules.query.domains import known_domains
    from rules.query.evaluation import (
        accumulate_feedback,
        aggregate_verdict,
        feedback_from,
        missing_items,
        partial_response,
    )
    from rules.query.evidence import asked_periods, empty_period_answer
    from rules.query.machine import (
        State,
        decide_after_analyze,
        decide_after_evaluate,
        decide_after_plan,
        expansion_targets,
    )
    from rules.query.planning import (
        chunk_ids,
        ensure_instructions,
        execution_groups,
        instructions_for,
        mark_searched,
        merge_analyses,
        merge_gaps_status,
    )
    from rules.query.summaries import (
        entries_summary,
        scope_note,
    )
    from workflows.calls import call_activity, call_agent
from workflows.query.base import QueryStepsBase


class QueryAnswerSteps(QueryStepsBase):
    async def _plan(self) -> State:
        assert self.st.req is not None and self.st.ctx is not None and self.st.catalog is not None
        workflow.set_current_details(f"planning (attempt {self.st.evaluations + 1})")
        if not self.st.global_context:
            self.st.global_context = await call_activity(notes_read_global_context,
                                                      NotesLocation(notes_dir=self.st.req.notes_dir),
                                                      summary="read global context", result_type=str)
        result: AgentResult[PlannerOutput] = await call_agent(
            plan_query, PlanInput(
                query=self.st.query_text, today=self.st.today, domain_context=self.st.ctx,
                retrieval_history=self.st.retrieval_history, gaps_from_analyzer=self.st.gaps,
                evaluation_feedback=self.st.feedback, gaps_status=self.st.gaps_status, user_responses=self.st.user_responses,
                global_context_summary=self.st.global_context or None,
                clarification_allowed=self.st.counters.left("clarification", self.st.limits) > 0),
            summary=f"Planner: {self.st.query_text[:60]}", result_type=AgentResult[PlannerOutput])
        self.st.count(result.usage)
        plan = ensure_instructions(result.output, self.st.today)
        self.st.plan = plan
        self.st.gaps_status = merge_gaps_status(self.st.gaps_status, plan.gaps_status)
        self.st.pending_expansion = expansion_targets(plan.domain_expansion_request or [], self.st.selected,
                                                   known_domains(self.st.catalog))
        if plan.next_action == "expand_domain" and not self.st.pending_expansion:
            self.st.warnings.append("the Planner asked for domain(s) "
                                 f"{plan.domain_expansion_request or []} that are unknown or already loaded")
        self.st.planner_questions = list(plan.clarify_questions or [])
        searched = True
        if plan.next_action == "clarify" and not self.st.retrieval_history:
            searched = not workflow.patched(query_patches.SEARCH_BEFORE_CLARIFY)  # always search before asking
        nxt = decide_after_plan(plan, counters=self.st.counters, limits=self.st.limits,
                                expandable=self.st.pending_expansion, gaps=self.st.gaps,
                                has_analysis=self.st.analysis is not None, searched=searched)
        if self.st.reanalyze and nxt == State.SYNTHESIZE:
            nxt = State.RETRIEVE  # the user's answer has not been analyzed yet
        self.st.reanalyze = False
        if nxt == State.SYNTHESIZE and self.st.analysis is not None and self.st.analysis.verdict != Verdict.SUFFICIENT:
            self.st.partial = True  # searched and not found: answer with what exists, gaps disclosed
        return nxt

    async def _retrieve(self) -> State:
        """Every sub-query's instructions at once (parallel retrieval for multiple gaps / sub-queries)."""
        assert self.st.req is not None and self.st.ctx is not None and self.st.plan is not None
        await self._join_backlog()
        subs = [s for stage in execution_groups(self.st.plan) for s in stage]
        workflow.set_current_details(f"retrieving for {len(subs)} sub-quer{'y' if len(subs) == 1 else 'ies'}")
        round_no = sum(1 for p in self.st.counters.path if p == State.RETRIEVE.value)
        start = len(self.st.retrieval_history) + 1
        calls = []
        for n, sub in enumerate(subs):
            ins = instructions_for(self.st.plan, sub.id)
            calls.append(call_activity(
                retrieve_notes, RetrieveInput(
                    scope=workflow.info().workflow_id, label=f"retrieval-{round_no}-sq{sub.id}", instructions=ins,
                    vocabulary=self.st.ctx.vocabulary, max_entries=self.st.req.max_entries,
                    attempt_start=start + 100 * n, notes_dir=self.st.req.notes_dir),
                summary=f"Retriever: {len(ins)} instruction(s) for sub-query {sub.id or 'all'}",
                result_type=RetrieverOutput))
        outputs: list[RetrieverOutput] = list(await asyncio.gather(*calls))
        found = 0
        for sub, out in zip(subs, outputs, strict=True):
            if out.entries_ref is not None:
                self.st.refs.setdefault(sub.id, []).append(out.entries_ref)
            self.st.retrieval_history.extend(out.retrieval_summary)
            self.st.warnings.extend(w for w in out.warnings if w not in self.st.warnings)
            self.st.entry_ids.extend(i for i in out.entry_ids if i not in self.st.entry_ids)
            mine = self.st.ids_by_sub.setdefault(sub.id, [])
            mine.extend(i for i in out.entry_ids if i not in mine)
            found += out.total_entries_found
            self.st.in_scope = max(self.st.in_scope, out.total_entries_found)
            if out.truncated:  # the scope was not read in full: the answer says so
                self.st.partial = True
                note = scope_note(len(out.entry_ids), out.total_entries_found)
                if note not in self.st.scope_notes:
                    self.st.scope_notes.append(note)
        self.st.gaps = mark_searched(self.st.gaps, self.st.gaps_status)
        periods = asked_periods([i for sub in subs for i in instructions_for(self.st.plan, sub.id)])
        if round_no == 1 and found == 0 and periods and workflow.patched(query_patches.EMPTY_PERIOD):
            # The asked period holds no notes: that is the answer — never the nearest notes outside it.
            self.st.empty_period = True
            self.st.response = empty_period_answer(periods)
            self.st.draft = SynthesizerOutput(response=self.st.response, confidence="high")
            return State.OBSERVE
        return State.ANALYZE

    async def _analyze(self) -> State:
        """DEPENDENT sub-queries run stage by stage (each sees earlier findings); INDEPENDENT ones in parallel;
        COUPLED as one pass. The verdict comes from the model's last field; merged: SUFFICIENT only if all are."""
        assert self.st.req is not None and self.st.ctx is not None and self.st.plan is not None and self.st.catalog is not None
        qtype = self.st.plan.query_type
        prior: list[Finding] = []
        parts: list[AnalyzerOutput] = []
        for stage in execution_groups(self.st.plan):
            workflow.set_current_details(f"analyzing {len(self.st.entry_ids)} entries")
            results = await asyncio.gather(*(self._analyze_one(sub, qtype, prior) for sub in stage))
            for r in results:
                parts.append(r)
                prior = prior + r.findings
        self.st.analysis = merge_analyses(self.st.query_text, parts)
        self.st.gaps = [g.model_copy(update={"searched": g.searched or bool(self.st.retrieval_history)})
                     for g in self.st.analysis.gaps_identified]
        suspected = [g.suspected_domain for g in self.st.gaps if g.outside_current_expertise and g.suspected_domain]
        self.st.pending_expansion = expansion_targets(suspected, self.st.selected, known_domains(self.st.catalog))
        nxt = decide_after_analyze(self.st.analysis, counters=self.st.counters, limits=self.st.limits,
                                   expandable=self.st.pending_expansion)
        if nxt == State.SYNTHESIZE and self.st.analysis.verdict != Verdict.SUFFICIENT:
            self.st.partial = True  # the Analyze→Plan cycle is spent: answer with what exists, gaps disclosed
        return nxt

    async def _analyze_one(self, sub: SubQuery, qtype: QueryType, prior: list[Finding]) -> AnalyzerOutput:
        """One (sub-)query. Over `analysis_chunk_size` entries: divide and conquer (§7.1) — analyzers read the
        chunks in parallel, one more call combines their analyses (verdict last, for the whole query)."""
        assert self.st.ctx is not None and self.st.req is not None
        refs = [r for rs in self.st.refs.values() for r in rs] if sub.id == 0 else self.st.refs.get(sub.id, [])
        ids = self.st.entry_ids if sub.id == 0 else self.st.ids_by_sub.get(sub.id, [])
        question = sub.question if sub.id else self.st.query_text
        base = AnalyzeInput(
            query=question, query_type=qtype, sub_query_id=sub.id or None, entries_refs=refs,
            domain_context=self.st.ctx, global_context=self.st.global_context or None,
            retrieval_history=self.st.retrieval_history, user_responses=self.st.user_responses, prior_findings=prior)
        chunks = chunk_ids(ids, self.st.req.analysis_chunk_size)
        if len(chunks) == 1:
            return await self._call_analyzer(base, f"Analyzer: {question[:60]}")
        total, n = len(ids), len(chunks)
        starts = [sum(len(c) for c in chunks[:i]) for i in range(n)]
        parts = await asyncio.gather(*(
            self._call_analyzer(base.model_copy(update={
                "entry_ids": chunk, "chunk": f"chunk {i + 1} of {n} (entries {starts[i] + 1}-{starts[i] + len(chunk)} "
                                             f"of {total}, {chunk[0].split('#')[0]} to {chunk[-1].split('#')[0]})"}),
                f"Analyzer: chunk {i + 1}/{n} of {question[:40]}")
            for i, chunk in enumerate(chunks)))
        return await self._call_analyzer(
            base.model_copy(update={"entries_refs": [], "chunk_analyses": list(parts)}),
            f"Analyzer: combine {n} chunks of {question[:40]}")

    async def _call_analyzer(self, inp: AnalyzeInput, summary: str) -> AnalyzerOutput:
        result: AgentResult[AnalyzerOutput] = await call_agent(
            analyze_evidence, inp, summary=summary, result_type=AgentResult[AnalyzerOutput])
        self.st.count(result.usage)
        return result.output

    async def _synthesize(self) -> State:
        assert self.st.req is not None and self.st.ctx is not None
        analysis = self.st.analysis or AnalyzerOutput(query_intent=self.st.query_text, verdict=Verdict.INSUFFICIENT,
                                                   verdict_reasoning="no analysis was possible")
        partial = self.st.partial or self.st.final_partial
        missing = missing_items(self.st.gaps, (self.st.all_feedback or self.st.feedback) if self.st.final_partial else [],
                                self.st.declined) + self.st.scope_notes if partial else []
        workflow.set_current_details("writing the final partial answer" if self.st.final_partial else "writing the answer")
        result: AgentResult[SynthesizerOutput] = await call_agent(
            synthesize_answer, SynthesizeInput(
                query=self.st.query_text, query_type=self.st.plan.query_type if self.st.plan else QueryType.SIMPLE,
                analysis=analysis, vocabulary=self.st.ctx.vocabulary, is_partial=partial, unanswered_gaps=missing,
                evaluation_feedback=self.st.feedback, user_responses=self.st.user_responses,
                response_style=self.st.req.response_style,
                entries_refs=[ref for refs in self.st.refs.values() for ref in refs]),
            summary=f"Synthesizer{' (partial)' if partial else ''}: {self.st.query_text[:50]}",
            result_type=AgentResult[SynthesizerOutput])
        self.st.count(result.usage)
        draft = result.output
        if partial:
            draft = draft.model_copy(update={"response": partial_response(draft.response, missing),
                                             "gaps_disclosed": missing})
        self.st.draft = draft
        self.st.response = draft.response
        return State.OBSERVE if self.st.final_partial else State.EVALUATE

    async def _evaluate(self) -> State:
        assert self.st.ctx is not None and self.st.draft is not None and self.st.catalog is not None
        self.st.evaluations += 1
        analysis = self.st.analysis or AnalyzerOutput(query_intent=self.st.query_text, verdict=Verdict.INSUFFICIENT)
        result: AgentResult[EvaluatorOutput] = await call_agent(
            evaluate_answer, EvaluateInput(
                query=self.st.query_text, response=self.st.draft.response, analysis=analysis,
                entries_summary=entries_summary(self.st.retrieval_history, self.st.entry_ids),
                evaluation_rules=self.st.ctx.evaluation_rules, attempt_number=self.st.evaluations,
                previous_feedback=self.st.feedback),
            summary=f"Evaluator: attempt {self.st.evaluations}", result_type=AgentResult[EvaluatorOutput])
        self.st.count(result.usage)
        passed, reasons = aggregate_verdict(result.output)
        if not passed:
            self.st.feedback = feedback_from(result.output, reasons)
            self.st.all_feedback = accumulate_feedback(self.st.all_feedback, self.st.feedback)
        suspected = [g.suspected_domain for g in self.st.gaps if g.outside_current_expertise and g.suspected_domain]
        self.st.pending_expansion = expansion_targets(suspected, self.st.selected, known_domains(self.st.catalog))
        nxt = decide_after_evaluate(passed, counters=self.st.counters, limits=self.st.limits,
                                    expandable=self.st.pending_expansion)
        if nxt == State.SYNTHESIZE:
            self.st.final_partial = True  # retries spent (§7.5): partial answer + exactly what is missing
        return nxt

    async def _observe(self) -> State:
        if self.st.unrouted or self.st.empty_period:
            return State.COMPLETE  # nothing was understood, or nothing was there: nothing to learn
        assert self.st.req is not None and self.st.ctx is not None
        guidance = self.st.ctx.context_guidance
        if self.st.input_type == InputType.CORRECTION:
            observe = ObserveInput(trigger="user_correction", correction=self.st.log_text,
                                   what_was_corrected=self.st.stored[0].entry_id if self.st.stored else None,
                                   context_management_guidance=guidance)
        elif self.st.input_type == InputType.LOG:
            if not (self.st.parsed and self.st.parsed.domain_data):
                return State.COMPLETE  # nothing structured: not a significant log
            observe = ObserveInput(trigger="significant_log", new_entry=self.st.stored_entry(self._timestamp()),
                                   context_management_guidance=guidance)
        else:
            observe = ObserveInput(trigger="post_query", query=self.st.query_text, analysis=self.st.analysis,
                                   response=self.st.response, context_management_guidance=guidance)
        trigger = observe.trigger
        workflow.set_current_details(f"Observer: {trigger}")
        current = self.st.global_context or await call_activity(
            notes_read_global_context, NotesLocation(notes_dir=self.st.req.notes_dir), summary="read global context",
            result_type=str)
        result: AgentResult[ObserverOutput] = await call_agent(
            observe_context, observe.model_copy(update={"current_global_context": current}),
            summary=f"Observer: {trigger}", result_type=AgentResult[ObserverOutput])
        self.st.count(result.usage)
        out = result.output
        if out.should_update and out.updates:
            applied: ApplyContextResult = await call_activity(
                notes_apply_context_updates, ApplyContextInput(
                    notes_dir=self.st.req.notes_dir, updates=out.updates, today=self.st.today,
                    max_tokens=self.st.req.max_global_context_tokens),
                summary=f"global context: {len(out.updates)} update(s)", result_type=ApplyContextResult)
            if applied.skipped:
                self.st.warnings.append("global context kept: " + "; ".join(applied.skipped))
        return State.COMPLETE
