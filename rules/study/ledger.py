"""The study's participant ledger: invitations, links, revocation, outcomes, progress and the findings draft.

Pure (takes `now`): `workflows/study/workflow.py` holds one `Ledger` and carries its `StudyState` across continue-as-new.
Validation raises `StudyError` (the workflow turns it into the non-retryable InvalidInput a caller sees).
"""

from __future__ import annotations

import statistics
from collections import Counter
from datetime import datetime

from models.interview.plan import PlanSnapshot
from models.study.activities import DigestSummary, InterviewLookup, QuestionDepth
from models.study.workflow import (
    AddParticipants,
    ConsentGiven,
    ConsentRecord,
    ConsentVersion,
    Correction,
    EraseParticipant,
    Findings,
    LinkView,
    MemberCheck,
    MemberChecking,
    MemberCheckView,
    OpenLink,
    Participant,
    ParticipantRecord,
    ParticipantView,
    PlanReview,
    QuestionCoverage,
    ReviewPlan,
    RevokeParticipant,
    StudyExport,
    StudyInput,
    StudyProgress,
    StudyState,
    Theme,
    interview_id,
)
from rules.study import consent

DRAFT_THEMES = 30
MAX_CORRECTIONS_PER_PARTICIPANT = 50
MISSING_GRACE_SECONDS = 60.0      # a confirmed interview no look-up finds this long: abandoned (revisable)


class StudyError(ValueError):
    """Input a person must fix: one clear line."""


def participant_label(number: int) -> str:
    """Pseudonymous participant ids: P001, P002, ... (P1000 and on when a study grows past 999)."""
    return f"P{number:03d}"


class Ledger:
    def __init__(self, inp: StudyInput, study_id: str, state: StudyState | None = None) -> None:
        self.inp, self.study_id = inp, study_id
        self.state = state or StudyState(plan=inp.plan)
        self.by_token = {p.token_sha256: p for p in self.state.participants}
        self.by_id = {p.participant_id: p for p in self.state.participants}

    # ----------------------------------------------------------------------------------------- checks
    def check_add(self, req: AddParticipants) -> None:
        if self.state.closed:
            raise StudyError(f"study {self.study_id} is closed ({self.state.closed_reason}): no new participants")
        seen: set[str] = set()
        for inv in req.invitations:
            if inv.token_sha256 in self.by_token or inv.token_sha256 in seen:
                raise StudyError("a link token was given twice: make a new token for every participant")
            seen.add(inv.token_sha256)
            self._check_language(inv.language)

    def check_revoke(self, req: RevokeParticipant) -> Participant:
        p = self.by_id.get(req.participant_id)
        if p is None:
            raise StudyError(f"no participant {req.participant_id!r} in study {self.study_id}")
        if p.status == "revoked":
            raise StudyError(f"participant {p.participant_id}'s link is already revoked")
        if p.status in ("completed", "abandoned"):
            raise StudyError(f"participant {p.participant_id} has already finished ({p.status}): nothing to revoke")
        return p

    def check_open(self, req: OpenLink) -> Participant:
        p = self.by_token.get(req.token_sha256)
        if p is None:
            raise StudyError("no such study link (check the link you were sent)")
        if p.status == "revoked":
            raise StudyError("this link has been revoked")
        if p.status == "invited" and self.state.closed:
            raise StudyError("this study is closed: it takes no new participants")
        if p.status in ("completed", "abandoned", "withdrawn"):
            raise StudyError(f"this link's interview has ended ({p.status})")
        if self.inp.review and not self.state.plan_approved:
            raise StudyError("this study has not opened yet: its plan is still being reviewed")
        self._check_language(req.language)
        return p

    def check_consent(self, req: OpenLink) -> None:
        """A first opening needs the participant's consent to the text they were shown (a later opening of a
        running interview finds it)."""
        p = self.by_token.get(req.token_sha256)
        if p is not None and p.status == "invited":
            problem = consent.consent_problem(self.inp, req.consent)
            if problem:
                raise StudyError(problem)

    def check_review(self, req: ReviewPlan) -> PlanSnapshot | None:
        """An edit or the approval of the plan: only while it is being reviewed; an edit keeps the plan's shape
        valid (the plan model's bounds, unique ids, at least one question)."""
        if not self.inp.review:
            raise StudyError(f"study {self.study_id} was not started for review (its links open without approval)")
        if self.state.plan is None:
            raise StudyError("the plan is still being written: try again in a moment")
        if self.state.plan_approved:
            raise StudyError("the plan is already approved: links are open, it can no longer change")
        if req.action == "approve":
            return None
        if req.plan is None:
            raise StudyError("an edit needs the edited plan")
        return check_plan(req.plan)

    def review(self, req: ReviewPlan) -> PlanReview:
        edited = self.check_review(req)
        if edited is not None:
            self.state.plan, self.state.plan_edits = edited, self.state.plan_edits + 1
        else:
            self.state.plan_approved = True
        return self.plan_review()

    def plan_review(self) -> PlanReview:
        return PlanReview(review=self.inp.review, approved=self.state.plan_approved or not self.inp.review,
                          plan=self.state.plan, edits=self.state.plan_edits)

    def check_member(self, req: MemberCheck) -> Participant:
        p = self.by_token.get(req.token_sha256)
        if p is None:
            raise StudyError("no such study link (check the link you were sent)")
        if p.status == "withdrawn":
            raise StudyError("you have withdrawn from this study: your answers are no longer part of it")
        if p.status != "completed":
            raise StudyError(f"there is no finished interview to read back on this link ({p.status})")
        if self.state.closed:
            raise StudyError("the study has closed: answers can no longer be corrected or withdrawn")
        if req.action == "correct" and len(p.corrections) >= MAX_CORRECTIONS_PER_PARTICIPANT:
            raise StudyError(f"at most {MAX_CORRECTIONS_PER_PARTICIPANT} corrections per participant")
        return p
    def _check_language(self, language: str | None) -> None:
        if language and self.inp.languages and language not in self.inp.languages:
            raise StudyError(f"language {language!r} is not offered by this study ({', '.join(self.inp.languages)})")

    # ---------------------------------------------------------------------------------------- changes
    def add(self, now: datetime, req: AddParticipants) -> list[Participant]:
        self.check_add(req)
        added = []
        for inv in req.invitations:
            p = Participant(participant_id=participant_label(self.state.next_number), token_sha256=inv.token_sha256,
                            language=inv.language, invited_at=now)
            self.state.next_number += 1
            self.state.participants.append(p)
            self.by_token[p.token_sha256], self.by_id[p.participant_id] = p, p
            added.append(p)
        return added

    def revoke(self, req: RevokeParticipant) -> Participant:
        p = self.check_revoke(req)
        p.status, p.revoked_reason = "revoked", req.reason
        return p

    def language_for(self, p: Participant, req: OpenLink) -> str:
        return req.language or p.language or self.inp.default_language

    def member_check(self, now: datetime, req: MemberCheck) -> Participant:
        """Kept beside the original: a correction is appended (never overwriting the answer); a withdrawal takes
        the participant's data out of the findings (as revoking does)."""
        p = self.check_member(req)
        if req.action == "checked":
            p.checked_at = now          # the latest confirmation (the read-back page says which step came last)
        elif req.action == "correct":
            p.corrections.append(Correction(entry_id=str(req.entry_id), text=str(req.text).strip(), at=now))
            p.checked_at = p.checked_at or now
        else:
            p.status, p.withdrawn_at = "withdrawn", now
        return p

    def check_erase(self, req: EraseParticipant) -> Participant:
        p = self.by_id.get(req.participant_id)
        if p is None:
            raise StudyError(f"no participant {req.participant_id!r} in study {self.study_id}")
        if p.erased_at is not None or p.erase_pending:
            raise StudyError(f"participant {p.participant_id}'s data is already erased")
        if p.status == "started":
            raise StudyError(f"participant {p.participant_id}'s interview is still running: revoke it first, then "
                             "erase it once it has ended")
        if p.status not in ("completed", "abandoned", "withdrawn", "revoked") or not p.interview_id:
            raise StudyError(f"participant {p.participant_id} has no interview to erase ({p.status})")
        if self.state.closed:
            raise StudyError("the study has closed: its findings include the participants it analysed")
        return p

    def erase(self, now: datetime, req: EraseParticipant) -> Participant:
        """The researcher's delete: the participant is withdrawn (if not already) and their data erased."""
        p = self.check_erase(req)
        p.status, p.withdrawn_at = "withdrawn", p.withdrawn_at or now
        p.erase_pending = True
        return p

    def to_erase(self) -> list[Participant]:
        return [p for p in self.state.participants if p.erase_pending]

    def erased(self, now: datetime, p: Participant) -> None:
        """Their data was erased (activities/study/erasure.py): the ledger keeps only that they took part and
        withdrew, and when — no transcript, digest, theme label or correction of theirs."""
        p.erase_pending, p.erased_at = False, now
        p.transcript = p.digest = None
        p.themes, p.corrections, p.digest_error, p.exit_reason = [], [], None, None

    def start(self, now: datetime, p: Participant, language: str, given: ConsentGiven | None = None) -> str:
        """The interview's start is asked (its child workflow is being started): `started`, start pending until
        `start_confirmed` (a look-up in between finds no such interview: that is 'not yet started')."""
        if given is not None:
            p.consent = ConsentRecord(language=given.language, sha256=given.sha256, at=now)
        p.status, p.language, p.started_at = "started", language, now
        p.start_pending, p.missing_since = True, None
        p.interview_id = interview_id(self.study_id, p.participant_id)
        return p.interview_id

    def start_confirmed(self, p: Participant) -> None:
        p.start_pending = False

    def start_failed(self, p: Participant, legacy: bool = False) -> None:
        """The interview could not be started: the link is unused again, unless it was revoked (or the study
        ended it) meanwhile: a revoked link stays revoked."""
        p.start_pending = False
        if legacy or p.status == "started":
            p.status, p.interview_id, p.started_at = "invited", None, None

    def running(self) -> list[Participant]:
        return [p for p in self.state.participants if p.status == "started"]

    def to_look_up(self) -> list[Participant]:
        """The interviews a look-up asks about: the running ones, and (while the study is open) those abandoned
        only because a look-up found no such interview (the verdict is revised if one turns up)."""
        return [p for p in self.state.participants if p.status == "started" or (
            not self.state.closed and revisable(p))]

    def racy(self, p: Participant, found: InterviewLookup) -> bool:
        """A look-up answer that the ledger before the look-up fix (patch study-lookup-race) took as final:
        no such interview, or an answer about a participant who is no longer running (revoked meanwhile)."""
        return found.state == "missing" or p.status != "started"

    def looked_up(self, now: datetime, p: Participant, found: InterviewLookup, pending_when_asked: bool) -> str:
        """One look-up answer (asked while `p`'s start was pending or not): "running", "waiting" (nothing
        known yet), "ended" (completed or abandoned now) or "ignored" (revoked, withdrawn or already ended).

        No such interview is 'not yet started' while its start is pending (or was when the look-up was asked);
        after that it is abandoned only once it stays missing for `missing_grace` seconds, and that verdict is
        revised when the interview later turns up (running or finished)."""
        if not (p.status == "started" or revisable(p)):
            return "ignored"
        if found.state == "missing":
            if p.status != "started" or p.start_pending or pending_when_asked:
                return "waiting"
            if p.missing_since is None:
                p.missing_since = now
            if (now - p.missing_since).total_seconds() < self.missing_grace():
                return "waiting"
            self.finished(now, p, found)
            return "ended"
        if p.status != "started":                  # abandoned by absence, and there it is after all
            p.status, p.ended_at, p.exit_reason, p.length_seconds = "started", None, None, None
        p.missing_since = None
        if found.state == "running":
            self.seen_running(p, found)
            return "running"
        self.finished(now, p, found)
        return "ended"

    def missing_grace(self) -> float:
        return max(MISSING_GRACE_SECONDS, 3 * self.inp.check_seconds)

    def seen_running(self, p: Participant, found: InterviewLookup) -> None:
        """A running interview's answers so far (the researcher page shows them while it runs)."""
        p.answers = max(p.answers, found.answers)

    def finished(self, now: datetime, p: Participant, found: InterviewLookup) -> None:
        """A running interview ended: completed, or abandoned (the study ended it for absence, it failed, or the
        participant gave fewer than `min_answers` answers)."""
        p.ended_at, p.exit_reason, p.answers = now, found.exit_reason or found.state, found.answers
        p.transcript, p.length_seconds = found.transcript, found.length_seconds
        done = found.state == "finished" and not p.abandon_requested and found.answers >= self.inp.min_answers
        p.status = "completed" if done else "abandoned"
        if not done and p.started_at is not None:
            # an abandoned interview lasted from its start until it ended, not until its last answer
            p.length_seconds = max(p.length_seconds or 0.0, (now - p.started_at).total_seconds())
        if found.state != "finished":
            p.exit_reason = f"{found.state}: {found.error or 'no result'}"
        elif p.abandon_requested:
            p.exit_reason = "abandoned (disconnected)"
        elif not done:
            p.exit_reason = f"{found.exit_reason} ({found.answers} of at least {self.inp.min_answers} answers)"

    def to_abandon(self, found: InterviewLookup, p: Participant) -> bool:
        """Disconnected (presence pause) for `abandon_after_seconds`: the study ends it (counted abandoned)."""
        return (not p.abandon_requested and found.state == "running" and found.paused_reason == "disconnect"
                and (found.paused_seconds or 0) >= self.inp.abandon_after_seconds)

    def close(self, now: datetime, reason: str) -> bool:
        if self.state.closed:
            return False
        self.state.closed, self.state.closed_reason, self.state.closed_at = True, reason, now
        return True

    def should_close(self, now: datetime) -> str | None:
        if self.state.closed:
            return None
        if self.inp.quota is not None and self.count("completed") >= self.inp.quota:
            return f"quota reached ({self.inp.quota} completed)"
        if self.inp.close_at is not None and now >= self.inp.close_at:
            return f"close date reached ({self.inp.close_at.isoformat()})"
        return None

    # ------------------------------------------------------------------------------------------ views
    def count(self, status: str) -> int:
        return sum(1 for p in self.state.participants if p.status == status)

    def phase(self, analysing: bool, done: bool) -> str:
        if done:
            return "done"
        if analysing:
            return "analysing"
        if self.state.plan is None:
            return "planning"
        if self.inp.review and not self.state.plan_approved:
            return "reviewing"
        return "closing" if self.state.closed else "recruiting"

    def progress(self, now: datetime, phase: str) -> StudyProgress:
        ps = self.state.participants
        lengths = [p.length_seconds for p in ps if p.status == "completed" and p.length_seconds is not None]
        langs = Counter(p.language or self.inp.default_language for p in ps if p.status in ("started", "completed",
                                                                                           "abandoned"))
        return StudyProgress(
            study_id=self.study_id, topic=self.inp.topic, phase=phase, open=not self.state.closed,
            invited=len(ps), started=sum(1 for p in ps if p.started_at is not None), running=self.count("started"),
            completed=self.count("completed"), abandoned=self.count("abandoned"), revoked=self.count("revoked"),
            withdrawn=self.count("withdrawn"), quota=self.inp.quota, close_at=self.inp.close_at, closed_reason=self.state.closed_reason,
            median_length_seconds=statistics.median(lengths) if lengths else None, languages=dict(sorted(langs.items())),
            digests=sum(1 for p in ps if p.digest is not None), continued=self.state.continued, as_of=now)

    def views(self) -> list[ParticipantView]:
        return [view(p) for p in self.state.participants]

    def link(self, token_sha256: str) -> LinkView:
        p = self.by_token.get(token_sha256)
        topic = self.state.plan.topic if self.state.plan else self.inp.topic
        if p is None:
            return LinkView(status="unknown")
        status: str = "closed" if p.status == "invited" and self.state.closed else p.status
        if status == "invited" and self.inp.review and not self.state.plan_approved:
            status = "not_open"
        return LinkView(status=status, participant_id=p.participant_id, language=p.language,  # type: ignore[arg-type]
                        interview_id=p.interview_id, topic=topic, languages=self.inp.languages,
                        default_language=self.inp.default_language, interview_seconds=self.inp.interview_seconds,
                        consent=consent.texts(self.inp), study_open=not self.state.closed,
                        close_at=self.inp.close_at)

    def member_view(self, token_sha256: str) -> MemberCheckView:
        p = self.by_token.get(token_sha256)
        if p is None:
            return MemberCheckView(status="unknown")
        return MemberCheckView(status=p.status, participant_id=p.participant_id, language=p.language,
                               transcript=p.transcript if p.status == "completed" else None,
                               corrections=list(p.corrections), checked_at=p.checked_at, withdrawn_at=p.withdrawn_at,
                               study_open=not self.state.closed)

    def member_checking(self) -> MemberChecking:
        ps = self.state.participants
        return MemberChecking(checked=sum(1 for p in ps if p.status == "completed" and p.checked_at is not None),
                              corrected=sum(1 for p in ps if p.status == "completed" and p.corrections),
                              withdrew=self.count("withdrawn"))

    def consent_versions(self) -> list[ConsentVersion]:
        counts = Counter((p.consent.language, p.consent.sha256) for p in self.state.participants
                         if p.consent is not None and p.status != "withdrawn")
        return [ConsentVersion(language=lang, sha256=sha, participants=n) for (lang, sha), n in sorted(counts.items())]

    def export(self) -> StudyExport:
        """The ledger for the exports: a withdrawn participant's transcript and corrections are left out."""
        return StudyExport(study_id=self.study_id, topic=self.inp.topic, consent=consent.texts(self.inp),
                           participants=[ParticipantRecord(
                               participant_id=p.participant_id, language=p.language, status=p.status,
                               started_at=p.started_at, ended_at=p.ended_at, length_seconds=p.length_seconds,
                               consent=p.consent, transcript=p.transcript if p.status == "completed" else None,
                               corrections=list(p.corrections) if p.status == "completed" else [],
                               checked_at=p.checked_at) for p in self.state.participants])

    def digested(self, p: Participant, summary: DigestSummary, corrections: int | None = None,
                 redone: bool = False) -> None:
        """A completed interview's digest: its themes and coverage join the draft. `corrections`: how many of the
        participant's corrections it read; `redone`: a digest redone on the corrected transcript replaces the
        first one's themes (its coverage was counted once already)."""
        p.digest, p.themes, p.digest_error = summary.digest, summary.themes[:8], None
        if corrections is not None:
            p.digested_corrections = corrections
        if redone:
            return
        plan = self.state.plan
        texts = {q.id: (sec.id, q.text) for sec in (plan.sections if plan else []) for q in sec.questions}
        for row in summary.coverage:
            cov = self.state.coverage.get(row.question_id)
            if cov is None:
                sid, text = texts.get(row.question_id, ("", ""))
                cov = self.state.coverage[row.question_id] = QuestionCoverage(question_id=row.question_id,
                                                                              section_id=sid, text=text)
            add_coverage(cov, row)

    def draft(self, now: datetime) -> Findings:
        """The findings draft, refreshed as interviews finish: digest themes as the digests name them (merged
        into one catalogue only by the final analysis), counts, languages and the coverage so far."""
        done = [p for p in self.state.participants if p.status == "completed"]
        by_theme: dict[str, list[str]] = {}
        for p in done:
            for title in dict.fromkeys(p.themes):
                by_theme.setdefault(title, []).append(p.participant_id)
        themes = sorted((Theme(title=t, participants=ids, count=len(ids)) for t, ids in by_theme.items()),
                        key=lambda t: (-t.count, t.title))[:DRAFT_THEMES]
        langs = Counter(p.language or self.inp.default_language for p in done)
        return Findings(study_id=self.study_id, topic=self.inp.topic, research_goal=self.inp.research_goal,
                        status="draft", analysis_language=self.inp.analysis_language, completed=len(done),
                        abandoned=self.count("abandoned"), languages=dict(sorted(langs.items())), themes=themes,
                        coverage=list(self.state.coverage.values()),
                        member_checking=self.member_checking(), consent=self.consent_versions(),
                        notes=["draft: themes as each interview's digest names them; the final analysis merges "
                               "them, adds quotes, disagreements and minority views"], as_of=now)


def check_plan(plan: PlanSnapshot) -> PlanSnapshot:
    """A researcher's edited plan: unique section and question ids, no empty question, at least one question."""
    sections, questions = set(), set()
    for sec in plan.sections:
        if sec.id in sections:
            raise StudyError(f"section id {sec.id!r} is used twice")
        sections.add(sec.id)
        for q in sec.questions:
            if q.id in questions:
                raise StudyError(f"question id {q.id!r} is used twice")
            if not q.text.strip():
                raise StudyError(f"question {q.id!r} has no text")
            questions.add(q.id)
    if not questions:
        raise StudyError("the plan needs at least one question")
    return plan


def revisable(p: Participant) -> bool:
    """Abandoned only because look-ups found no such interview: revised if it turns up."""
    return p.status == "abandoned" and p.missing_since is not None


def view(p: Participant) -> ParticipantView:
    return ParticipantView(participant_id=p.participant_id, language=p.language, status=p.status,
                           interview_id=p.interview_id, started_at=p.started_at, ended_at=p.ended_at,
                           length_seconds=p.length_seconds, answers=p.answers, exit_reason=p.exit_reason,
                           consented_at=p.consent.at if p.consent else None, corrections=len(p.corrections),
                           checked=p.checked_at is not None, withdrawn_at=p.withdrawn_at, erased_at=p.erased_at)


def add_coverage(cov: QuestionCoverage, row: QuestionDepth) -> None:
    cov.interviews += 1
    cov.asked += int(row.asked)
    cov.answered += int(row.answered)
    cov.depth[row.depth] = cov.depth.get(row.depth, 0) + 1
