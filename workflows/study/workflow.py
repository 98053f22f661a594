"""StudyWorkflow: one research goal and plan, many participants, findings across all of them (docs/study.md).

    plan = given, or await planner(topic, goal, interview length)               (fallback: the plan from the topic)
    recruiting: updates add/revoke participants (links: only the token's SHA-256 is held), close now;
                `open_link` (a participant opened their link) → the plan in their language (translator, cached per
                language) → a child InterviewWorkflow `<study id>--<participant id>` (parent close: abandon)
    every check_seconds while interviews run: look them up by id (an activity: describe / session_state / result;
                no child handles held) → finished: completed or abandoned; disconnected longer than
                abandon_after_seconds: the study ends it (abandoned); completed → digest agent (map step);
                no such interview while its start is pending: not yet started (rules/study/ledger.py
                `looked_up`; patch study-lookup-race)
    closes at the quota of completed interviews or the close date (a timer), or when told; waits for the
                interviews still running, then the analysis:
    theme-merge agent per `theme_batch` digests → reduce (counts, quotes, positions, coverage; every quote verified
                verbatim) → synthesis agent → findings.json / findings.md / report.html in the artifact store
    continue-as-new when the history grows: the ledger (participants, translations, coverage so far) is carried

    review (`review=True`): before any link opens the researcher edits (`review_plan` edit) or approves the plan
    consent: `open_link` is refused without the participant's consent to the text shown (its language, SHA-256)
    member checking (`member_check`): after their interview, until the study closes, a participant confirms,
                corrects or withdraws (their data leaves the findings); a correction is kept beside the original
                and replaces it for the analysis: a digest that read fewer corrections than were saved is redone
                on the corrected transcript when the analysis starts, and the quotes are checked against the
                corrected answers and marked corrected (rules/study/corrections.py; patch study-corrections)
    erasure: a withdrawal erases the participant's interview (every run), artifacts, audio and, with encryption
                on, their data key (activities/study/erasure.py; patch study-erasure)

Queries: progress, findings_draft (the draft while open, the final findings after), participants, link,
member_check_view, plan_review, export.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.interview import interview_planner
    from activities.study import (
        study_digest,
        study_lookup_interviews,
        study_publish,
        study_reduce,
        study_synthesis,
        study_theme_merge,
    )
    from core import search_attributes as sa
    from models.common import AgentResult
    from models.interview.activities import PlannerInput
    from models.interview.entries import SessionControl
    from models.interview.names import SIGNAL_SESSION_CONTROL
    from models.interview.names import WORKFLOW_TYPE as INTERVIEW_WORKFLOW_TYPE
    from models.interview.plan import PlanSnapshot
    from models.interview.workflow import InterviewInput
    from models.status import COMPLETED, PARTIAL, PHASE_DONE, RUNNING
    from models.study import patches as study_patches
    from models.study.activities import (
        DigestInput,
        InterviewLookup,
        LookupInput,
        PublishInput,
        ReduceInput,
        SynthesisInput,
        ThemeMergeInput,
    )
    from models.study.workflow import (
        QUERY_EXPORT,
        QUERY_FINDINGS_DRAFT,
        QUERY_LINK,
        QUERY_MEMBER_CHECK,
        QUERY_PARTICIPANTS,
        QUERY_PLAN_REVIEW,
        QUERY_PROGRESS,
        UPDATE_ADD_PARTICIPANTS,
        UPDATE_CLOSE,
        UPDATE_ERASE_PARTICIPANT,
        UPDATE_MEMBER_CHECK,
        UPDATE_OPEN_LINK,
        UPDATE_REVIEW_PLAN,
        UPDATE_REVOKE_PARTICIPANT,
        WORKFLOW_TYPE,
        AddParticipants,
        CloseStudy,
        EraseParticipant,
        Findings,
        LinkView,
        MemberCheck,
        MemberCheckView,
        Missed,
        OpenedLink,
        OpenLink,
        Participant,
        ParticipantView,
        PlanReview,
        ReviewPlan,
        RevokeParticipant,
        StudyExport,
        StudyInput,
        StudyOutputs,
        StudyProgress,
        StudyResult,
    )
    from rules.errors import error_message
    from rules.interview.plan import default_plan, normalize_plan
    from rules.study.analysis import outline
    from rules.study.corrections import stale
    from rules.study.ledger import Ledger, StudyError, view
    from workflows.calls import call_activity, call_agent
    from workflows.inputs import check_start_input, fail_start, invalid, update_input
    from workflows.study.erasure import erase_withdrawn, purge_earlier_runs
    from workflows.study.languages import PlanLanguages

PIPELINE = "study"


def _checked(check: Callable[[Any], Any], arg: Any) -> Any:
    try:
        return check(arg)
    except StudyError as err:
        raise invalid(str(err)) from None


@workflow.defn(name=WORKFLOW_TYPE)
class StudyWorkflow(PlanLanguages):
    @workflow.init
    def __init__(self, raw: Any = None, *extra: Any) -> None:  # *extra: workflows/one_input.py
        parsed, self.input_error = check_start_input(StudyInput, raw, WORKFLOW_TYPE)
        self.inp = parsed or StudyInput(topic="(invalid input)", quota=1)
        self.wid = workflow.info().workflow_id
        self.ledger = Ledger(self.inp, self.wid, self.inp.carried)
        self.st = self.ledger.state
        self.wake = False
        self.tick = False
        self.ticker: asyncio.Task[None] | None = None
        self.starting: set[str] = set()
        self.translating: dict[str, asyncio.Task[None]] = {}
        self.analysing = False
        self.done = False
        self.findings: Findings | None = None
        self.outputs: StudyOutputs | None = None

    # ================================================================================================ run
    @workflow.run
    async def run(self, raw: Any = None, *extra: Any) -> StudyResult:
        if self.input_error is not None:
            fail_start(PIPELINE, self.input_error)
        st, inp = self.st, self.inp
        if inp.carried is None:
            st.created_at = workflow.now()
            sa.upsert(pipeline=PIPELINE, topic=inp.topic, phase="planning", status=RUNNING)
            workflow.set_current_details(f"planning the study on {inp.topic!r}")
            st.plan = normalize_plan(st.plan or await self._write_plan(), "adaptive")
            if inp.review:
                # the researcher reads, edits and approves the plan before any link opens
                sa.upsert(phase="reviewing")
                workflow.set_current_details("reviewing: the plan waits for the researcher's approval")
                await workflow.wait_condition(lambda: st.plan_approved or st.closed)
            sa.upsert(phase="recruiting")
        if st.purge_runs:
            await purge_earlier_runs(self.wid, st)
        if inp.close_at is not None and not st.closed:
            self._close_timer()
        while True:
            if self.ledger.to_erase() and await erase_withdrawn(self.wid, self.ledger):
                await self._continue_as_new()      # their corrections were in this run's updates: purged next run
            reason = self.ledger.should_close(workflow.now())
            if reason:
                self._closed(reason)
            running = self.ledger.running()
            if st.closed and not running and not self.starting:
                break
            self._details()
            if self._should_continue_as_new():
                await self._continue_as_new()
            if running:
                self._ensure_ticker()
            await workflow.wait_condition(lambda: self.wake or (self.tick and bool(self.ledger.running())))
            self.wake = False
            if self.tick and self.ledger.running():
                self.tick = False
                await self._check()
        return await self._analyse()

    def _used(self, result: AgentResult[Any]) -> None:
        self.st.usage.add(result.usage)
        self.st.offline = self.st.offline or result.usage.offline

    def _details(self) -> None:
        p = self.ledger.progress(workflow.now(), self._phase())
        quota = f" of {p.quota}" if p.quota else ""
        workflow.set_current_details(f"{self._phase()}: {p.completed}{quota} completed, {p.running} running, "
                                     f"{p.abandoned} abandoned, {p.invited} invited")

    def _phase(self) -> str:
        return self.ledger.phase(self.analysing, self.done)

    def _closed(self, reason: str) -> None:
        if self.ledger.close(workflow.now(), reason):
            sa.upsert(phase="closing")
            workflow.logger.info("study closed: %s", reason)

    def _close_timer(self) -> None:
        assert self.inp.close_at is not None
        seconds = (self.inp.close_at - workflow.now()).total_seconds()

        async def fire() -> None:
            await workflow.sleep(max(0.001, seconds), summary=f"close date {self.inp.close_at:%Y-%m-%d %H:%M}")
            self.wake = True

        asyncio.create_task(fire())

    def _ensure_ticker(self) -> None:
        """One look-up timer at a time, never cancelled (a fired-then-cancelled timer strands the time-skipping
        server; it also keeps the history free of cancellations)."""
        if self.ticker is not None and not self.ticker.done():
            return

        async def fire() -> None:
            await workflow.sleep(self.inp.check_seconds, summary="look up running interviews")
            self.tick = True

        self.ticker = asyncio.create_task(fire())

    async def _write_plan(self) -> PlanSnapshot:
        inp = self.inp
        request = PlannerInput(topic=inp.topic, context=inp.research_goal, duration_seconds=inp.interview_seconds,
                               language=inp.default_language)     # the plan is written in the study's language
        try:
            result = await call_agent(interview_planner, request, summary=f"Planner: {inp.topic[:60]}")
            self._used(result)
            return result.output
        except ActivityError as err:
            workflow.logger.warning("planner failed, using the plan from the topic: %s", error_message(err))
            return default_plan(inp.topic, inp.research_goal, "adaptive", inp.interview_seconds)

    # =========================================================================================== updates
    @workflow.update(name=UPDATE_ADD_PARTICIPANTS)
    def add_participants(self, raw: Any) -> list[ParticipantView]:
        req = update_input(AddParticipants, raw, UPDATE_ADD_PARTICIPANTS)
        added = _checked(lambda r: self.ledger.add(workflow.now(), r), req)
        self.wake = True
        return [view(p) for p in added]

    @add_participants.validator
    def _validate_add(self, raw: Any) -> None:
        _checked(self.ledger.check_add, update_input(AddParticipants, raw, UPDATE_ADD_PARTICIPANTS))

    @workflow.update(name=UPDATE_REVOKE_PARTICIPANT)
    async def revoke_participant(self, raw: Any) -> ParticipantView:
        """The link is refused from now on; an interview already running is ended and left out of the analysis
        (revoking is withdrawing)."""
        req = update_input(RevokeParticipant, raw, UPDATE_REVOKE_PARTICIPANT)
        running = _checked(self.ledger.check_revoke, req).status == "started"
        p = _checked(self.ledger.revoke, req)
        if running:
            await self._end_interview(p, f"revoked: {req.reason}")
        self.wake = True
        return view(p)

    @revoke_participant.validator
    def _validate_revoke(self, raw: Any) -> None:
        _checked(self.ledger.check_revoke, update_input(RevokeParticipant, raw, UPDATE_REVOKE_PARTICIPANT))

    @workflow.update(name=UPDATE_ERASE_PARTICIPANT)
    def erase_participant(self, raw: Any) -> ParticipantView:
        """The researcher's delete: erased as a withdrawal is (patch study-erasure; workflows/study/erasure.py)."""
        req = update_input(EraseParticipant, raw, UPDATE_ERASE_PARTICIPANT)
        workflow.patched(study_patches.ERASURE)
        p = _checked(lambda r: self.ledger.erase(workflow.now(), r), req)
        self.wake = True
        return view(p)

    @erase_participant.validator
    def _validate_erase(self, raw: Any) -> None:
        _checked(self.ledger.check_erase, update_input(EraseParticipant, raw, UPDATE_ERASE_PARTICIPANT))

    @workflow.update(name=UPDATE_CLOSE)
    async def close_study(self, raw: Any) -> StudyProgress:
        req = update_input(CloseStudy, raw, UPDATE_CLOSE)
        self._closed(req.reason)
        if req.end_running:
            for p in self.ledger.running():
                await self._end_interview(p, f"the study was closed: {req.reason}")
        self.wake = True
        return self.progress()

    @close_study.validator
    def _validate_close(self, raw: Any) -> None:
        update_input(CloseStudy, raw, UPDATE_CLOSE)
        if self.analysing or self.done:
            raise invalid(f"study {self.wid} is already {self._phase()}")

    @workflow.update(name=UPDATE_OPEN_LINK)
    async def open_link(self, raw: Any) -> OpenedLink:
        """A participant opened their link: the first opening starts their interview (in their language)."""
        req = update_input(OpenLink, raw, UPDATE_OPEN_LINK)
        p: Participant = _checked(self.ledger.check_open, req)
        await workflow.wait_condition(lambda: self.st.plan is not None and p.participant_id not in self.starting)
        if p.status == "started" and p.interview_id:
            return OpenedLink(participant_id=p.participant_id, interview_id=p.interview_id,
                              language=p.language or self.inp.default_language, new=False)
        _checked(self.ledger.check_open, req)       # revoked, closed or finished while it waited
        language = self.ledger.language_for(p, req)
        self.starting.add(p.participant_id)
        try:
            plan = await self._plan_in(language)
            try:
                self.ledger.check_open(req)       # revoked or closed while its plan was translated
            except StudyError as err:
                if workflow.patched(study_patches.LOOKUP_RACE):
                    raise invalid(str(err)) from None
            iid = self.ledger.start(workflow.now(), p, language, req.consent)
            try:
                await workflow.start_child_workflow(
                    INTERVIEW_WORKFLOW_TYPE, self._interview_input(p, plan, language), id=iid,
                    task_queue=workflow.info().task_queue, parent_close_policy=workflow.ParentClosePolicy.ABANDON,
                    static_summary=f"{p.participant_id} ({language}) in study {self.wid}")
            except Exception:
                self.ledger.start_failed(p, legacy=p.status != "started"
                                         and not workflow.patched(study_patches.LOOKUP_RACE))
                raise
            self.ledger.start_confirmed(p)
        finally:
            self.starting.discard(p.participant_id)
            self.wake = True
        return OpenedLink(participant_id=p.participant_id, interview_id=iid, language=language, new=True)

    @open_link.validator
    def _validate_open(self, raw: Any) -> None:
        req = update_input(OpenLink, raw, UPDATE_OPEN_LINK)
        _checked(self.ledger.check_open, req)
        _checked(self.ledger.check_consent, req)      # validator only: a recorded opening replays as it was

    @workflow.update(name=UPDATE_REVIEW_PLAN)
    def review_plan(self, raw: Any) -> PlanReview:
        """The researcher edits the plan (validated, bounded by the plan model) or approves it: links open only
        after the approval."""
        req = update_input(ReviewPlan, raw, UPDATE_REVIEW_PLAN)
        review = _checked(self.ledger.review, req)
        if req.action == "edit" and self.st.plan is not None:
            self.st.plan = normalize_plan(self.st.plan, "adaptive")
            review.plan = self.st.plan
        self.wake = True
        return review

    @review_plan.validator
    def _validate_review(self, raw: Any) -> None:
        _checked(self.ledger.check_review, update_input(ReviewPlan, raw, UPDATE_REVIEW_PLAN))

    @workflow.update(name=UPDATE_MEMBER_CHECK)
    def member_check(self, raw: Any) -> MemberCheckView:
        """A participant read back their transcript: confirmed it, corrected an answer (kept beside the original;
        the analysis reads the correction: `_analyse`) or withdrew (their data leaves the findings) — until the
        study closes."""
        req = update_input(MemberCheck, raw, UPDATE_MEMBER_CHECK)
        p = _checked(lambda r: self.ledger.member_check(workflow.now(), r), req)
        if req.action == "withdraw" and workflow.patched(study_patches.ERASURE):
            p.erase_pending = True          # erased by the main loop (`_erase`), the page answered at once
        self.wake = True
        return self.ledger.member_view(req.token_sha256)

    @member_check.validator
    def _validate_member_check(self, raw: Any) -> None:
        _checked(self.ledger.check_member, update_input(MemberCheck, raw, UPDATE_MEMBER_CHECK))

    # =========================================================================================== queries
    @workflow.query(name=QUERY_PROGRESS)
    def progress(self) -> StudyProgress:
        p = self.ledger.progress(workflow.now(), self._phase())
        p.outputs = self.outputs
        return p

    @workflow.query(name=QUERY_FINDINGS_DRAFT)
    def findings_draft(self) -> Findings:
        return self.findings if self.findings is not None else self.ledger.draft(workflow.now())

    @workflow.query(name=QUERY_PARTICIPANTS)
    def participants(self) -> list[ParticipantView]:
        return self.ledger.views()

    @workflow.query(name=QUERY_LINK)
    def link(self, token_sha256: str) -> LinkView:
        return self.ledger.link(str(token_sha256))

    @workflow.query(name=QUERY_MEMBER_CHECK)
    def member_check_view(self, token_sha256: str) -> MemberCheckView:
        return self.ledger.member_view(str(token_sha256))

    @workflow.query(name=QUERY_PLAN_REVIEW)
    def plan_review(self) -> PlanReview:
        return self.ledger.plan_review()

    @workflow.query(name=QUERY_EXPORT)
    def export(self) -> StudyExport:
        return self.ledger.export()

    def _interview_input(self, p: Participant, plan: PlanSnapshot, language: str) -> InterviewInput:
        inp = self.inp
        context = (f"Research goal: {inp.research_goal or plan.research_goal}\nInterview language: {language}. Ask "
                   f"every question in this language; the participant's answers are kept exactly as given.")
        return InterviewInput(topic=plan.topic, context=context, duration_seconds=inp.interview_seconds, plan=plan,
                              cycle_seconds=inp.cycle_seconds, interviewee_name=p.participant_id,
                              candidate_id=p.participant_id, write_essay=inp.write_essays,
                              presence_timeout_seconds=inp.presence_timeout_seconds, language=language)

    # ========================================================================================= look-ups
    async def _check(self) -> None:
        """Look the interviews up; each answer goes through the ledger (rules/study/ledger.py `looked_up`: a
        missing interview whose start is pending is not yet started, never abandoned)."""
        asked = {p.interview_id: (p, p.start_pending) for p in self.ledger.to_look_up() if p.interview_id}
        found = await call_activity(study_lookup_interviews, LookupInput(interview_ids=list(asked)),
                                    kind="storage", summary=f"look up {len(asked)} running interviews")
        completed: list[Participant] = []
        for f in found:
            if f.interview_id not in asked:
                continue
            p, pending = asked[f.interview_id]
            if self.ledger.racy(p, f) and not workflow.patched(study_patches.LOOKUP_RACE):
                outcome = self._looked_up_before_the_fix(p, f)
            else:
                outcome = self.ledger.looked_up(workflow.now(), p, f, pending)
            if outcome == "running" and self.ledger.to_abandon(f, p):
                await self._end_interview(p, f"abandoned: disconnected for {f.paused_seconds or 0:.0f}s")
            elif outcome == "ended" and p.status == "completed":
                completed.append(p)
        if completed:
            await asyncio.gather(*(self._digest(p) for p in completed))

    def _looked_up_before_the_fix(self, p: Participant, f: InterviewLookup) -> str:
        """How a look-up answer was taken before patch study-lookup-race (recorded histories replay it)."""
        if f.state == "running":
            self.ledger.seen_running(p, f)
            return "running"
        self.ledger.finished(workflow.now(), p, f)
        return "ended"

    async def _end_interview(self, p: Participant, reason: str) -> None:
        p.abandon_requested = p.abandon_requested or reason.startswith("abandoned")
        if not p.interview_id:
            return
        try:
            await workflow.get_external_workflow_handle(p.interview_id).signal(
                SIGNAL_SESSION_CONTROL, SessionControl(action="end", reason=reason))
        except Exception as err:       # it ended meanwhile: the next look-up sees how
            workflow.logger.warning("could not end %s: %s", p.interview_id, err)

    async def _digest(self, p: Participant, redone: bool = False) -> None:
        """The participant's digest, on their transcript as they corrected it (`redone`: again, after a
        correction)."""
        st = self.st
        assert st.plan is not None and p.transcript is not None and p.interview_id is not None
        language = p.language or self.inp.default_language
        corrections = list(p.corrections)
        try:
            result = await call_agent(study_digest, DigestInput(
                study_id=self.wid, participant_id=p.participant_id, interview_id=p.interview_id, language=language,
                analysis_language=self.inp.analysis_language, plan=st.translations.get(language, st.plan),
                source_plan=st.plan, transcript=p.transcript, corrections=corrections),
                summary=f"Digest: {p.participant_id} ({language})" + (" corrected" if redone else ""))
            self._used(result)
            self.ledger.digested(p, result.output, corrections=len(corrections), redone=redone)
        except ActivityError as err:
            p.digest_error = error_message(err)
            workflow.logger.warning("digest of %s failed: %s", p.participant_id, p.digest_error)

    # ========================================================================================= analysis
    async def _analyse(self) -> StudyResult:
        st, inp = self.st, self.inp
        assert st.plan is not None
        self.analysing = True
        started = workflow.now()
        sa.upsert(phase="analysing")
        workflow.set_current_details("analysing: digests, themes, quotes, coverage")
        missing = [p for p in st.participants if p.status == "completed" and p.digest is None]
        if missing:
            await asyncio.gather(*(self._digest(p) for p in missing))
        corrections = {p.participant_id: list(p.corrections) for p in st.participants
                       if p.status == "completed" and p.corrections}
        if not (corrections and workflow.patched(study_patches.CORRECTIONS)):
            corrections = {}
        stale_ones = [p for p in st.participants if p.participant_id in corrections and p.digest is not None
                      and stale(len(p.corrections), p.digested_corrections)]
        if stale_ones:      # a correction replaces the answer: that digest is redone on the corrected transcript
            await asyncio.gather(*(self._digest(p, redone=True) for p in stale_ones))
        done = [p for p in st.participants if p.status == "completed" and p.digest is not None]
        errors = [f"{p.participant_id}: digest failed ({p.digest_error})" for p in st.participants
                  if p.status == "completed" and p.digest is None]
        errors += [f"{p.participant_id}: the digest of the corrected transcript failed ({p.digest_error}); quotes "
                   f"of the corrected answers are left out" for p in stale_ones
                   if stale(len(p.corrections), p.digested_corrections)]
        mapping: dict[str, str] = {}
        catalogue: list[str] = []
        for i in range(0, len(done), inp.theme_batch):
            titles = list(dict.fromkeys(t for p in done[i:i + inp.theme_batch] for t in p.themes if t not in mapping))
            if not titles:
                continue
            try:
                result = await call_agent(study_theme_merge, ThemeMergeInput(
                    research_goal=inp.research_goal, catalogue=catalogue, titles=titles),
                    summary=f"Theme merge: batch {i // inp.theme_batch + 1}, {len(titles)} labels")
                self._used(result)
                batch = result.output.mapping
            except ActivityError as err:
                errors.append(f"theme merge failed ({error_message(err)}): labels kept as the digests gave them")
                batch = {t: t for t in titles}
            mapping.update(batch)
            catalogue = list(dict.fromkeys([*catalogue, *batch.values()]))
        findings: Findings = await call_activity(study_reduce, ReduceInput(
            study_id=self.wid, topic=inp.topic, research_goal=inp.research_goal or st.plan.research_goal,
            analysis_language=inp.analysis_language, plan=st.plan, digests=[p.digest for p in done if p.digest],
            mapping=mapping, abandoned=self.ledger.count("abandoned"),
            transcripts={p.participant_id: p.transcript for p in done if p.transcript},
            interviews={p.participant_id: p.interview_id for p in done if p.interview_id},
            corrections=corrections),
            kind="artifact", summary=f"reduce {len(done)} digests")
        try:
            result = await call_agent(study_synthesis, SynthesisInput(
                topic=inp.topic, research_goal=findings.research_goal, outline=outline(findings)),
                summary=f"Synthesis: {len(findings.themes)} themes")
            self._used(result)
            findings.summary = result.output.summary
            known = {m.topic.lower() for m in findings.plan_missed}
            findings.plan_missed += [Missed(topic=t) for t in result.output.plan_missed if t.lower() not in known]
        except ActivityError as err:
            errors.append(f"synthesis failed: {error_message(err)}")
        findings.notes += _notes(st.offline, st.translation_notes) + errors
        findings.member_checking, findings.consent = self.ledger.member_checking(), self.ledger.consent_versions()
        findings.as_of = workflow.now()
        self.outputs = await call_activity(study_publish, PublishInput(
            study_id=self.wid, findings=findings, corrections=corrections),
            kind="artifact", summary="findings.json, findings.md, report.html")
        self.findings = findings
        self.analysing, self.done = False, True
        status = PARTIAL if errors else COMPLETED
        sa.upsert(phase=PHASE_DONE, status=status)
        seconds = (workflow.now() - started).total_seconds()
        workflow.set_current_details(f"done: {findings.completed} interviews analysed in {seconds:.0f}s, "
                                     f"{len(findings.themes)} themes; report {self.outputs.report_html.name}")
        return StudyResult(study_id=self.wid, status=status, completed=self.ledger.count("completed"),  # type: ignore[arg-type]
                           abandoned=self.ledger.count("abandoned"), invited=len(st.participants),
                           revoked=self.ledger.count("revoked"), closed_reason=st.closed_reason or "",
                           outputs=self.outputs, analysis_seconds=seconds, error="; ".join(errors) or None,
                           usage=st.usage)

    # =================================================================================== continue-as-new
    def _should_continue_as_new(self) -> bool:
        info = workflow.info()
        return info.is_continue_as_new_suggested() or \
            info.get_current_history_length() >= self.inp.continue_as_new_after_events

    async def _continue_as_new(self) -> None:
        """The ledger goes on in a fresh run; the interviews are children with parent-close ABANDON, found again
        by id by the next look-up."""
        await workflow.wait_condition(lambda: workflow.all_handlers_finished() and not self.starting)
        self.st.continued += 1
        workflow.continue_as_new(self.inp.model_copy(update={"carried": self.st, "plan": None}))


def _notes(offline: bool, translation_notes: dict[str, str]) -> list[str]:
    notes = [f"plan for {lang}: {note}" for lang, note in sorted(translation_notes.items()) if note]
    if offline:
        notes.insert(0, "analysed by the offline test double: themes are the plan's section titles, quotes the "
                        "longest sentences, nothing is translated")
    return notes


WORKFLOWS: list[type] = [StudyWorkflow]
