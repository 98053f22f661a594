"""The study's participant ledger: invitations, links, revocation, outcomes, progress and the findings draft.

Pure (takes `now`): `workflows/study.py` holds one `Ledger` and carries its `StudyState` across continue-as-new.
Validation raises `StudyError` (the workflow turns it into the non-retryable InvalidInput a caller sees).
"""

from __future__ import annotations

import statistics
from collections import Counter
from datetime import datetime

from models.study import (
    AddParticipants,
    DigestSummary,
    Findings,
    InterviewLookup,
    LinkView,
    OpenLink,
    Participant,
    ParticipantView,
    QuestionCoverage,
    QuestionDepth,
    RevokeParticipant,
    StudyInput,
    StudyProgress,
    StudyState,
    Theme,
    interview_id,
)

DRAFT_THEMES = 30


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
        if p.status in ("completed", "abandoned"):
            raise StudyError(f"this link's interview has ended ({p.status})")
        self._check_language(req.language)
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

    def start(self, now: datetime, p: Participant, language: str) -> str:
        p.status, p.language, p.started_at = "started", language, now
        p.interview_id = interview_id(self.study_id, p.participant_id)
        return p.interview_id

    def running(self) -> list[Participant]:
        return [p for p in self.state.participants if p.status == "started"]

    def finished(self, now: datetime, p: Participant, found: InterviewLookup) -> None:
        """A running interview ended: completed, or abandoned (the study ended it for absence, it failed, or the
        participant gave fewer than `min_answers` answers)."""
        p.ended_at, p.exit_reason, p.answers = now, found.exit_reason or found.state, found.answers
        p.transcript, p.length_seconds = found.transcript, found.length_seconds
        done = found.state == "finished" and not p.abandon_requested and found.answers >= self.inp.min_answers
        p.status = "completed" if done else "abandoned"
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
            quota=self.inp.quota, close_at=self.inp.close_at, closed_reason=self.state.closed_reason,
            median_length_seconds=statistics.median(lengths) if lengths else None, languages=dict(sorted(langs.items())),
            digests=sum(1 for p in ps if p.digest is not None), continued=self.state.continued, as_of=now)

    def views(self) -> list[ParticipantView]:
        return [view(p) for p in self.state.participants]

    def link(self, token_sha256: str) -> LinkView:
        p = self.by_token.get(token_sha256)
        topic = self.state.plan.topic if self.state.plan else self.inp.topic
        if p is None:
            return LinkView(status="unknown")
        status = "closed" if p.status == "invited" and self.state.closed else p.status
        return LinkView(status=status, participant_id=p.participant_id, language=p.language,  # type: ignore[arg-type]
                        interview_id=p.interview_id, topic=topic, languages=self.inp.languages)

    def digested(self, p: Participant, summary: DigestSummary) -> None:
        """A completed interview's digest: its themes and coverage join the draft."""
        p.digest, p.themes, p.digest_error = summary.digest, summary.themes[:8], None
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
                        notes=["draft: themes as each interview's digest names them; the final analysis merges "
                               "them, adds quotes, disagreements and minority views"], as_of=now)


def view(p: Participant) -> ParticipantView:
    return ParticipantView(participant_id=p.participant_id, language=p.language, status=p.status,
                           interview_id=p.interview_id, started_at=p.started_at, ended_at=p.ended_at,
                           length_seconds=p.length_seconds, answers=p.answers, exit_reason=p.exit_reason)


def add_coverage(cov: QuestionCoverage, row: QuestionDepth) -> None:
    cov.interviews += 1
    cov.asked += int(row.asked)
    cov.answered += int(row.answered)
    cov.depth[row.depth] = cov.depth.get(row.depth, 0) + 1
