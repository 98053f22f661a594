"""DiscussionWorkflow: a team of agents explores a topic (seed 002), phase by phase:

    Kickoff (Team Leader, required)
      → Exploration rounds × MaxRounds: Researcher → Ideation (→ top-up) → Critic → Implementer
                                         (→ deep-dive ideation) → Leader synthesis
      → Validation (Moderator scores five 0-10 criteria) → Selection (highest score wins; leader comments)
      → Visualization (optional HTML report; never fails the discussion)

Agent failures during exploration are logged as events and skipped; every contribution is a message artifact
(history holds refs); the `progress` query and search attributes let the CLI and Web UI follow along.
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, is_cancelled_exception

with workflow.unsafe.imports_passed_through():
    from activities.discussion import (
        discussion_critique,
        discussion_ideate,
        discussion_implement,
        discussion_kickoff,
        discussion_report,
        discussion_research,
        discussion_score,
        discussion_select,
        discussion_synthesize,
        discussion_transcript,
    )
    from core import search_attributes as sa
    from models.common import ArtifactRef, UsageTotals, offline_labelled
    from models.discussion import patches as discussion_patches
    from models.discussion.workflow import (
        MAX_PROGRESS_STEPS,
        QUERY_PROGRESS,
        WORKFLOW_TYPE,
        DiscussionEvent,
        DiscussionInput,
        DiscussionProgress,
        DiscussionResult,
        Idea,
        IdeaDraft,
        MessageRef,
        ReportInput,
        TranscriptInput,
        TurnInput,
    )
    from models.status import CANCELLED, COMPLETED, FAILED, FINAL, PHASE_DONE, RUNNING
    from rules.discussion.ideas import merge_ideas
    from rules.discussion.inputs import normalized_team, topic_keyword, validate_input
    from rules.discussion.levels import LEVELS, rules_for
    from rules.discussion.rounds import deep_dive_due, message_id, step_decision, topup_needed
    from rules.discussion.scoring import apply_evaluations
    from rules.discussion.selection import Outcome, select_idea
    from rules.errors import error_message
    from workflows.calls import call_activity, call_agent
    from workflows.inputs import check_start_input, fail_start

ROLE_STEP = {"researcher": "research", "ideation": "ideation", "critic": "critique", "implementer":
             "implementation", "leader": "synthesis", "moderator": "scoring"}


def _unless_cancelled(err: ActivityError) -> None:
    """A cancelled discussion must stop, not log the cancelled step as a skippable agent failure."""
    if is_cancelled_exception(err):
        raise err



@workflow.defn(name=WORKFLOW_TYPE)
class DiscussionWorkflow:
    @workflow.init
    def __init__(self, raw: Any = None, *extra: Any) -> None:  # *extra: workflows/one_input.py
        parsed, self._input_error = check_start_input(DiscussionInput, raw, WORKFLOW_TYPE)
        inp = parsed or DiscussionInput(topic="(invalid input)")   # the run fails at once; queries still answer
        self._inp = inp
        self._team = normalized_team(inp.team)
        self._rules = LEVELS.get(inp.level, LEVELS["standard"])
        self._status = RUNNING
        self._phase = "kickoff"
        self._round = 0
        self._step = ""
        self._steps: list[str] = []  # every step shown so far (the progress query), bounded
        self._seq = 0
        self._ideas: list[Idea] = []
        self._messages: list[MessageRef] = []
        self._events: list[DiscussionEvent] = []
        self._usage = UsageTotals()
        self._selected_id: str | None = None

    # ------------------------------------------------------------------------------------------- queries
    @workflow.query(name=QUERY_PROGRESS)
    def progress(self) -> DiscussionProgress:
        return DiscussionProgress(
            discussion_id=workflow.info().workflow_id, topic=self._inp.topic, level=self._inp.level,
            status=self._status, phase=self._phase, round=self._round, max_rounds=self._rules.max_rounds,
            current_step=self._step, ideas=self._ideas, messages=len(self._messages), events=self._events,
            selected_idea_id=self._selected_id, usage=self._usage, steps=self._steps[-MAX_PROGRESS_STEPS:],
            offline=self._offline())

    # ------------------------------------------------------------------------------------------ the run
    @workflow.run
    async def run(self, raw: Any = None, *extra: Any) -> DiscussionResult:
        if self._input_error is not None:
            self._status, self._phase = FAILED, PHASE_DONE
            fail_start("discussion", self._input_error)
        try:
            return await self._discuss(self._inp)
        except BaseException as exc:
            if is_cancelled_exception(exc):
                self._set_status(CANCELLED)
            elif isinstance(exc, (ActivityError, ApplicationError)) and self._status not in FINAL:
                self._set_status(FAILED)
            raise

    async def _discuss(self, inp: DiscussionInput) -> DiscussionResult:
        sa.upsert(pipeline="discussion", topic=topic_keyword(inp.topic) or "(empty)")
        errors = validate_input(inp, strict=False)
        strict = validate_input(inp)
        # asked only when the stricter check refuses more (a role named twice, a model id with markup)
        if strict != errors and workflow.patched(discussion_patches.STRICT_INPUT):
            errors = strict
        if errors:
            self._set_status(FAILED)
            raise ApplicationError("invalid discussion input: " + "; ".join(errors), type="ValidationError",
                                   non_retryable=True)
        self._rules = rules_for(inp.level)
        self._set_status(RUNNING)

        await self._kickoff()
        round_transcripts: list[ArtifactRef] = []
        for round_no in range(1, self._rules.max_rounds + 1):
            await self._exploration_round(round_no)
            ref = await self._transcript(f"round-{round_no}.md", f"Round {round_no}: {inp.topic}",
                                         [m for m in self._messages if m.round == round_no])
            if ref is not None:
                round_transcripts.append(ref)

        if not self._ideas and workflow.patched(discussion_patches.NO_IDEAS_FAILS):
            # seed 002: "Final validation fails if no ideas were generated" — the run fails, with its transcript
            transcript = await self._transcript("transcript.md", f"Team discussion: {inp.topic}", self._messages)
            self._set_phase("validation", "failed: no ideas to validate")
            self._set_status(FAILED)
            raise ApplicationError(
                f"final validation failed: no ideas were generated in {self._rules.max_rounds} round(s) — nothing "
                "to score or select (see the events for failed or skipped agents)"
                + (f"; transcript: {transcript.uri}" if transcript else ""), type="NoIdeas", non_retryable=True)
        scoring_problem = await self._validate()
        outcome = await self._select(scoring_problem)
        transcript = await self._transcript("transcript.md", f"Team discussion: {inp.topic}", self._messages)
        self._selected_id = outcome.winner.id if outcome.winner else None
        detail = offline_labelled(outcome.detail, self._offline())  # the scores and ideas it names are the double's

        result = DiscussionResult(
            discussion_id=workflow.info().workflow_id, topic=inp.topic, rules=self._rules, team=self._team,
            models=inp.models, rounds_completed=self._rules.max_rounds, outcome=outcome.kind,  # type: ignore[arg-type]
            outcome_detail=detail, ideas=self._ideas, selected=outcome.winner,
            selection=outcome.decision, messages=self._messages, round_transcripts=round_transcripts,
            transcript=transcript, events=self._events, usage=self._usage, offline=self._offline())
        if inp.html_report:
            result.report = await self._visualize(result)
            result.events = self._events
        self._set_phase("done", f"{outcome.kind}: {detail}")
        self._set_status(COMPLETED)
        return result

    # ---------------------------------------------------------------------------------------- phase 1
    async def _kickoff(self) -> None:
        self._set_phase("kickoff", "the Team Leader frames the discussion")
        try:
            await self._turn(discussion_kickoff, "leader", 0, step="kickoff")
        except ActivityError as err:
            _unless_cancelled(err)
            self._set_status(FAILED)
            raise ApplicationError(
                f"kickoff failed: the team leader could not frame the discussion ({error_message(err)}); "
                "no discussion without a kickoff", type="KickoffFailed", non_retryable=True) from err

    # ---------------------------------------------------------------------------------------- phase 2
    async def _exploration_round(self, round_no: int) -> None:
        self._round = round_no
        self._set_phase("exploration", f"round {round_no}/{self._rules.max_rounds}")
        await self._explore(discussion_research, "researcher", round_no)

        ideation = await self._explore(discussion_ideate, "ideation", round_no)
        if ideation is not None:
            self._merge(ideation.ideas, round_no, "ideation", ideation.message.offline)
            if topup_needed(len(self._ideas), self._rules):
                topup = await self._explore(discussion_ideate, "ideation", round_no, mode="topup")
                if topup is not None:
                    self._merge(topup.ideas, round_no, "top-up ideation", topup.message.offline)
            if topup_needed(len(self._ideas), self._rules):
                self._event("idea_shortfall", "exploration", round_no, "ideation",
                            f"{len(self._ideas)} distinct idea(s) after round {round_no}; level "
                            f"{self._rules.level} asks for at least {self._rules.min_ideas}")

        critique = await self._explore(discussion_critique, "critic", round_no)
        plan = await self._explore(discussion_implement, "implementer", round_no)
        if deep_dive_due(self._rules, bool(self._ideas), critique is not None or plan is not None):
            refined = await self._explore(discussion_ideate, "ideation", round_no, mode="refine")
            if refined is not None:
                self._merge(refined.ideas, round_no, "deep-dive ideation", refined.message.offline)

        await self._explore(discussion_synthesize, "leader", round_no)

    async def _explore(self, activity: Any, role: str, round_no: int, mode: str = "generate") -> Any | None:
        """One exploration step; a failure is logged as an event and the round goes on (seed 002)."""
        step = ROLE_STEP[role] if mode == "generate" else f"{mode} ideation"
        decision = step_decision(role, self._team, bool(self._ideas))
        if not decision.run:
            if role in self._team:
                self._event("agent_skipped", "exploration", round_no, role, f"{step} skipped: {decision.reason}")
            return None
        try:
            return await self._turn(activity, role, round_no, step=step, mode=mode)
        except ActivityError as err:
            _unless_cancelled(err)
            self._event("agent_failed", "exploration", round_no, role,
                        f"{step} failed and was skipped: {error_message(err)}")
            return None

    def _merge(self, drafts: list[IdeaDraft], round_no: int, source: str, offline: bool = False) -> None:
        before = {i.id: i for i in self._ideas}
        merged = merge_ideas(self._ideas, drafts, round_no)
        # an idea the offline test double proposed or refined carries its answer's mark on
        self._ideas = [i.model_copy(update={"offline": True}) if offline and before.get(i.id) != i else i
                       for i in merged.pool]
        for reason in merged.dropped:
            self._event("ideas_dropped", "exploration", round_no, "ideation", f"{source}: {reason}")

    # ---------------------------------------------------------------------------------------- phase 3
    async def _validate(self) -> str | None:
        """Moderator scoring. Returns why the ideas are unscored, if they are."""
        if "moderator" not in self._team:
            self._set_phase("validation", "no moderator in the team: the Team Leader decides")
            return "no ideas" if not self._ideas else "there is no moderator in the team"
        self._set_phase("validation", f"the Moderator scores {len(self._ideas)} idea(s)")
        if not self._ideas:
            return "no ideas"
        try:
            scoring = await self._turn(discussion_score, "moderator", 0, step="scoring")
        except ActivityError as err:
            _unless_cancelled(err)
            self._event("agent_failed", "validation", 0, "moderator", f"scoring failed: {error_message(err)}")
            return f"the moderator failed: {error_message(err)}"
        applied = apply_evaluations(self._ideas, scoring.evaluations)
        # scores the offline test double gave carry its answer's mark on
        self._ideas = [i.model_copy(update={"offline": True}) if scoring.message.offline and i.overall is not None
                       else i for i in applied.ideas]
        for warning in applied.warnings:
            self._event("score_warning", "validation", 0, "moderator", warning)
        return None if applied.scored else "the moderator's evaluations matched no idea"

    async def _select(self, scoring_problem: str | None) -> Outcome:
        self._set_phase("selection", "the highest-scored idea wins; the Team Leader comments")
        preference: str | None = None
        comment = ""
        leader_decides = (bool(self._ideas) and "moderator" not in self._team and "leader" in self._team
                          and workflow.patched(discussion_patches.SELECT_WITHOUT_MODERATOR))
        if any(i.overall is not None for i in self._ideas) or leader_decides:
            try:
                turn = await self._turn(discussion_select, "leader", 0, step="selection")
                preference, comment = turn.preferred_idea_id, turn.explanation_excerpt
            except ActivityError as err:
                _unless_cancelled(err)
                self._event("selection_comment_failed", "selection", 0, "leader",
                            f"the leader's selection comment failed (the score decides anyway): {error_message(err)}")
        return select_idea(self._ideas, self._rules.min_score_threshold, leader_preference=preference,
                           leader_comment=comment, rounds=self._rules.max_rounds, scoring_problem=scoring_problem,
                           leader_decides=leader_decides)

    # ---------------------------------------------------------------------------------------- phase 4
    async def _visualize(self, result: DiscussionResult) -> ArtifactRef | None:
        self._set_phase("visualization", "rendering the HTML report")
        report_input = ReportInput(
            discussion_id=result.discussion_id, topic=result.topic, rules=result.rules, team=result.team,
            models=result.models, outcome=result.outcome, outcome_detail=result.outcome_detail, ideas=result.ideas,
            selection=result.selection, messages=result.messages, events=self._events, usage=self._usage,
            offline=result.offline)
        try:
            return await call_activity(discussion_report, report_input, kind="artifact",
                                       summary="HTML report (report.html)")
        except ActivityError as err:
            _unless_cancelled(err)
            self._event("report_failed", "visualization", 0, "",
                        f"the HTML report could not be made (the discussion is complete): {error_message(err)}")
            return None

    # ------------------------------------------------------------------------------------------ helpers
    def _offline(self) -> bool:
        """Whether the offline test double wrote any message (each carries its call's mark)."""
        return any(m.offline for m in self._messages)

    async def _turn(self, activity: Any, role: str, round_no: int, *, step: str, mode: str = "generate") -> Any:
        """Run one agent turn with the discussion so far (by reference) and record its message."""
        self._seq += 1
        label = step.replace(" ", "-")
        model = self._inp.models.get(role)
        turn = TurnInput(
            discussion_id=workflow.info().workflow_id, topic=self._inp.topic, role=role, model=model,
            team=self._team, round=round_no, max_rounds=self._rules.max_rounds, min_ideas=self._rules.min_ideas,
            mode=mode, messages=list(self._messages), ideas=list(self._ideas),  # type: ignore[arg-type]
            message_id=message_id(self._seq, round_no, label))
        where = f"round {round_no} · " if round_no else ""
        self._step = f"{where}{step} ({role})"
        self._note_step()
        workflow.set_current_details(self._details())
        result = await call_agent(activity, turn,
                                  summary=f"{where}{step} by {role}{f' [{model}]' if model else ''}")
        self._usage.add(result.usage)
        self._messages.append(result.output.message.model_copy(update={"at": workflow.now()}))
        return result.output

    async def _transcript(self, name: str, title: str, messages: list[MessageRef]) -> ArtifactRef | None:
        try:
            return await call_activity(discussion_transcript, TranscriptInput(
                discussion_id=workflow.info().workflow_id, name=name, title=title, messages=messages),
                kind="artifact", summary=f"save {name}")
        except ActivityError as err:
            _unless_cancelled(err)
            self._event("transcript_failed", self._phase, self._round, "", f"{name} not saved: {error_message(err)} "
                        "(every message is still its own artifact)")
            return None

    def _event(self, kind: str, phase: str, round_no: int, role: str, message: str) -> None:
        workflow.logger.warning("discussion event %s: %s", kind, message)
        self._events.append(DiscussionEvent(kind=kind, phase=phase, round=round_no, role=role,  # type: ignore[arg-type]
                                            message=message))

    def _details(self) -> str:
        return (f"{self._phase}: {self._step} · {len(self._ideas)} idea(s), {len(self._messages)} message(s), "
                f"{len(self._events)} event(s)")

    def _note_step(self) -> None:
        self._steps = (self._steps + [f"{self._phase}: {self._step}"])[-MAX_PROGRESS_STEPS:]

    def _set_phase(self, phase: str, detail: str) -> None:
        self._phase = phase
        self._step = detail
        self._note_step()
        sa.upsert(phase=phase)
        workflow.set_current_details(f"{phase}: {detail}")

    def _set_status(self, status: str) -> None:
        """One upsert; a final status ends the phase too (ColloquyPhase="done")."""
        self._status = status
        if status in FINAL:
            self._phase = PHASE_DONE
        sa.upsert(phase=PHASE_DONE if status in FINAL else None, status=status)


WORKFLOWS: list[type] = [DiscussionWorkflow]
