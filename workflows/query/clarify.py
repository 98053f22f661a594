"""QueryWorkflow's clarification: CLARIFY → WAIT_USER (a durable wait for the `clarify` update)."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.query.clarify_gaps import clarify_gaps
    from activities.query.storage import notes_store_entry
    from core import search_attributes as sa
    from models.common import AgentResult
    from models.query import patches as query_patches
    from models.query.agents import ClarifierOutput, ClarifyInput
    from models.query.workflow import (
        ClarifyAnswer,
        PendingClarification,
        PendingQuestion,
        StoreEntryInput,
        StoreEntryResult,
    )
    from rules.query.corrections import chosen_entry, option_label
    from rules.query.machine import (
        State,
        clarifiable_gaps,
        decide_after_wait,
    )
    from workflows.calls import call_activity, call_agent
from workflows.query.base import QueryStepsBase


class QueryClarifySteps(QueryStepsBase):
    async def _clarify(self) -> State:
        assert self.st.ctx is not None
        if self.st.correction_options:
            return await self._clarify_correction()
        gaps = clarifiable_gaps(self.st.gaps)
        result: AgentResult[ClarifierOutput] = await call_agent(
            clarify_gaps, ClarifyInput(original_query=self.st.query_text, gaps=gaps,
                                       planner_questions=self.st.planner_questions, vocabulary=self.st.ctx.vocabulary,
                                       retrieval_history=self.st.retrieval_history, previous_clarifications=self.st.asked),
            summary=f"Clarifier: {len(gaps)} gap(s)", result_type=AgentResult[ClarifierOutput])
        self.st.count(result.usage)
        fresh = [q for q in result.output.questions if q.question not in self.st.asked]
        if not fresh:
            self.st.warnings.append("the Clarifier had no new question to ask")
            return State.SYNTHESIZE
        self.st.clarify_round += 1
        timeout = self.st.req.clarification_timeout_s if self.st.req else 0
        self.st.pending = PendingClarification(
            request_id=f"clarify-{self.st.clarify_round}",
            questions=[PendingQuestion(id=f"q{i + 1}", question=q.question, options=q.options,
                                       gap_addressed=q.gap_addressed) for i, q in enumerate(fresh)],
            context_explanation=result.output.context_explanation, fallback_action=result.output.fallback_action,
            deadline=workflow.now() + timedelta(seconds=timeout))
        self.st.asked += [q.question for q in fresh]
        return State.WAIT_USER

    async def _clarify_correction(self) -> State:
        """Ask which entry an ambiguous correction is for (the Clarifier words it; the options are the entries)."""
        assert self.st.ctx is not None
        question = "Which entry do you want to correct?"
        result: AgentResult[ClarifierOutput] = await call_agent(
            clarify_gaps, ClarifyInput(original_query=self.st.log_text, gaps=self.st.gaps, planner_questions=[question],
                                       vocabulary=self.st.ctx.vocabulary, previous_clarifications=self.st.asked),
            summary="Clarifier: which entry the correction is for",
            result_type=AgentResult[ClarifierOutput])
        self.st.count(result.usage)
        out = result.output
        if out.questions:
            question = out.questions[0].question
        self.st.clarify_round += 1
        timeout = self.st.req.clarification_timeout_s if self.st.req else 0
        self.st.pending = PendingClarification(
            request_id=f"clarify-{self.st.clarify_round}",
            questions=[PendingQuestion(id="q1", question=question, gap_addressed=self.st.gaps[0].description,
                                       options=[option_label(e) for e in self.st.correction_options])],
            context_explanation=out.context_explanation or self.st.gaps[0].description,
            fallback_action="the correction is kept as a note of its own, flagged, and no entry is changed",
            deadline=workflow.now() + timedelta(seconds=timeout))
        self.st.asked.append(question)
        return State.WAIT_USER

    async def _wait_user(self) -> State:
        """Durable: the workflow waits (no worker needed) until `clarify` answers/declines or the timeout."""
        assert self.st.req is not None and self.st.pending is not None
        pending = self.st.pending
        sa.upsert(status=self.st.status())  # waiting_user
        workflow.set_current_details("waiting for the user: " + " | ".join(q.question for q in pending.questions))
        self.st.answer = None
        try:
            await workflow.wait_condition(lambda: self.st.answer is not None,
                                          timeout=timedelta(seconds=self.st.req.clarification_timeout_s),
                                          timeout_summary=f"clarification {pending.request_id} timeout "
                                                          f"({self.st.req.clarification_timeout_s:g}s)")
        except TimeoutError:
            self.st.warnings.append(f"no answer to the clarifying question(s) within "
                                 f"{self.st.req.clarification_timeout_s:.0f}s; answered with what the notes contain")
        answer, self.st.answer, self.st.pending = self.st.answer, None, None
        sa.upsert(status=self.st.status())  # running again
        answered = answer is not None and not answer.decline and bool(answer.answers)
        if self.st.correction_options:
            options, self.st.correction_options = self.st.correction_options, []
            picked = chosen_entry(next(iter(answer.answers.values())), options) if answered and answer else None
            if picked is not None:
                self.st.correction_target = picked
                return State.PARSE
            self.st.warnings.append("no entry was chosen for the correction; nothing was changed")
            if self.st.parsed is not None:
                self.st.parsed = self.st.parsed.model_copy(update={"target_entry_id": None, "correction_delta": None})
            return State.STORE
        if answered:
            assert answer is not None
            by_id = {q.id: q.question for q in pending.questions}
            for qid, text in answer.answers.items():
                self.st.user_responses[by_id[qid]] = text.strip()
            await self._store_answers(pending, answer)
            replan = workflow.patched(query_patches.CLARIFY_REPLANS)
            self.st.reanalyze = replan
            return decide_after_wait(answered, replan=replan)
        self.st.declined += [q.question for q in pending.questions]
        self.st.partial = True
        return decide_after_wait(answered)

    async def _store_answers(self, pending: PendingClarification, answer: ClarifyAnswer) -> None:
        """Seed §3.2 (2.4): what the user told us goes into today's notes, so it is not lost."""
        assert self.st.req is not None
        lines = [f"[clarification] {q.question} — {answer.answers[q.id].strip()}" for q in pending.questions
                 if q.id in answer.answers]
        result = await call_activity(notes_store_entry, StoreEntryInput(
            notes_dir=self.st.req.notes_dir, raw_input="\n".join(lines), timestamp=self._timestamp(),
            source_key=f"{workflow.info().workflow_id}:{pending.request_id}"),
            summary="store the user's clarification answers", result_type=StoreEntryResult)
        self.st.stored.append(result)
