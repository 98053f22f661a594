"""The study ledger's invariants (docs/study.md "The ledger's invariants"), checked on generated sequences: links
opened, interviews started (asked, confirmed, failed) and finished in any order and timing relative to the periodic
look-ups (asked, then answered, seeing the interview as it was when asked or when answered), revocations,
withdrawals, corrections, digests, the quota and the close date racing each other.

The workflow's steps are mirrored as it takes them (workflows/study/workflow.py): `open_link` checks the link, waits
for the plan in the participant's language, checks again, starts (`Ledger.start`), then the child's start is
confirmed or fails; `_check` snapshots the look-ups with whether each start was pending and hands each answer to
`Ledger.looked_up`. The regression tests below are the sequences the machine found against the ledger before the
fix (issue 36, item 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from models.common import ArtifactRef
from models.interview.entries import TranscriptEntry
from models.interview.plan import PlanSnapshot, QuestionSnapshot, SectionSnapshot
from models.study.activities import DigestSummary, InterviewLookup
from models.study.workflow import (
    AddParticipants,
    Invitation,
    MemberCheck,
    OpenLink,
    Participant,
    RevokeParticipant,
    StudyInput,
    StudyState,
)
from rules.grounding import check_quote
from rules.study.corrections import corrected_entries, stale
from rules.study.ledger import Ledger, StudyError, revisable

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PLAN = PlanSnapshot(topic="On-call", research_goal="g", angle="a", sections=[
    SectionSnapshot(id="s1", title="Origins", questions=[QuestionSnapshot(id="q1", text="How did you start?")])])
REF = ArtifactRef(name="t", uri="file:///t", sha256="0" * 64, size_bytes=1, content_type="application/json")
MIN_ANSWERS = 2
SAID = [TranscriptEntry(entry_id="q1", speaker="interviewer", text="How did you start?"),
        TranscriptEntry(entry_id="a1", speaker="interviewee", text="What I said.")]   # every interview's transcript
MAX_PEOPLE = 6


def token(n: int) -> str:
    return f"{n:064x}"


@dataclass
class Interview:
    """The interview as the Temporal server knows it."""

    exists: bool = False
    finished: bool = False
    answers: int = 0


@dataclass
class Lookup:
    asked: dict[str, tuple[Participant, bool]]                      # interview id -> (participant, start pending)
    seen: dict[str, InterviewLookup] = field(default_factory=dict)  # what the describe saw when asked


def observe(iid: str, iv: Interview | None) -> InterviewLookup:
    if iv is None or not iv.exists:
        return InterviewLookup(interview_id=iid, state="missing", error="no such interview")
    if not iv.finished:
        return InterviewLookup(interview_id=iid, state="running", answers=iv.answers)
    return InterviewLookup(interview_id=iid, state="finished", exit_reason="closing_detected", answers=iv.answers,
                           transcript=REF, length_seconds=60.0)


class StudyLedgerMachine(RuleBasedStateMachine):
    LEGACY: frozenset[str] = frozenset()    # {"recheck", "lookup", "failed"}: those steps as before the fix

    def __init__(self) -> None:
        super().__init__()
        self.now = T0
        self.lg: Ledger | None = None
        self.server: dict[str, Interview] = {}          # interview id -> interview
        self.opening: set[str] = set()                  # participants whose open_link waits for their plan
        self.starting: set[str] = set()                 # start asked, not yet confirmed or failed
        self.lookup: Lookup | None = None
        self.miss_next = False
        self.ever: dict[str, set[str]] = {}             # participant -> every status it had
        self.started_closed: set[str] = set()           # participants started after their study closed

    # ------------------------------------------------------------------------------------------ setup
    @rule(quota=st.integers(1, 4), close_in=st.none() | st.integers(1, 600))
    @precondition(lambda self: self.lg is None)
    def begin(self, quota: int, close_in: int | None) -> None:
        close_at = T0 + timedelta(seconds=close_in) if close_in is not None else None
        self.lg = Ledger(StudyInput(topic="On-call", plan=PLAN, quota=quota, close_at=close_at,
                                    min_answers=MIN_ANSWERS, check_seconds=5.0), "study-m")

    def started(self) -> bool:
        return self.lg is not None

    @property
    def ledger(self) -> Ledger:
        assert self.lg is not None
        return self.lg

    def person(self, n: int) -> Participant | None:
        ps = self.ledger.state.participants
        return ps[n % len(ps)] if ps else None

    # ------------------------------------------------------------------------------------ researcher
    @rule(n=st.integers(1, 3))
    @precondition(started)
    def invite(self, n: int) -> None:
        have = len(self.ledger.state.participants)
        n = min(n, MAX_PEOPLE - have)
        if n <= 0:
            return
        req = AddParticipants(invitations=[Invitation(token_sha256=token(have + i)) for i in range(n)])
        try:
            self.ledger.add(self.now, req)
        except StudyError:
            assert self.ledger.state.closed

    @rule(n=st.integers(0, MAX_PEOPLE))
    @precondition(started)
    def revoke(self, n: int) -> None:
        p = self.person(n)
        if p is None:
            return
        try:
            self.ledger.revoke(RevokeParticipant(participant_id=p.participant_id, reason="r"))
        except StudyError:
            assert p.status in ("revoked", "completed", "abandoned", "withdrawn")

    @rule()
    @precondition(started)
    def close(self) -> None:
        self.ledger.close(self.now, "closed by the researcher")

    @rule(seconds=st.sampled_from([1, 5, 30, 61, 200]))
    @precondition(started)
    def time_passes(self, seconds: int) -> None:
        self.now += timedelta(seconds=seconds)

    @rule()
    @precondition(started)
    def loop(self) -> None:
        """The workflow's loop: the quota or the close date closes the study."""
        reason = self.ledger.should_close(self.now)
        if reason:
            assert self.ledger.close(self.now, reason)

    # ------------------------------------------------------------------------------------ participant
    @rule(n=st.integers(0, MAX_PEOPLE))
    @precondition(started)
    def open_link(self, n: int) -> None:
        p = self.person(n)
        if p is None or p.participant_id in self.opening or p.participant_id in self.starting:
            return
        try:
            self.ledger.check_open(OpenLink(token_sha256=p.token_sha256))
        except StudyError:
            return
        if p.status == "invited":
            self.opening.add(p.participant_id)

    @rule(n=st.integers(0, MAX_PEOPLE))
    @precondition(lambda self: bool(self.opening))
    def plan_ready(self, n: int) -> None:
        """The plan in their language is there: checked again (closed or revoked meanwhile?), then started."""
        pid = sorted(self.opening)[n % len(self.opening)]
        self.opening.discard(pid)
        p = self.ledger.by_id[pid]
        if "recheck" not in self.LEGACY:
            try:
                self.ledger.check_open(OpenLink(token_sha256=p.token_sha256))
            except StudyError:
                return
        if self.ledger.state.closed or p.status != "invited":
            self.started_closed.add(pid)
        iid = self.ledger.start(self.now, p, "en")
        self.server.setdefault(iid, Interview())
        self.starting.add(pid)

    @rule(n=st.integers(0, MAX_PEOPLE))
    @precondition(lambda self: bool(self.starting))
    def child_exists(self, n: int) -> None:
        """The server creates the child (before the workflow hears that it started)."""
        pid = sorted(self.starting)[n % len(self.starting)]
        self.server[self.iid(pid)].exists = True

    @rule(n=st.integers(0, MAX_PEOPLE), fails=st.booleans())
    @precondition(lambda self: bool(self.starting))
    def start_answered(self, n: int, fails: bool) -> None:
        pid = sorted(self.starting)[n % len(self.starting)]
        iv, p = self.server[self.iid(pid)], self.ledger.by_id[pid]
        self.starting.discard(pid)
        if fails and not iv.exists:
            self.ledger.start_failed(p, legacy="failed" in self.LEGACY)
            del self.server[self.iid(pid)]
        else:
            iv.exists = True
            self.ledger.start_confirmed(p)

    @rule(n=st.integers(0, MAX_PEOPLE), answers=st.integers(0, 4))
    @precondition(started)
    def answer(self, n: int, answers: int) -> None:
        p = self.person(n)
        iv = self.server.get(self.iid(p.participant_id)) if p else None
        if iv is not None and iv.exists and not iv.finished:
            iv.answers = max(iv.answers, answers)

    @rule(n=st.integers(0, MAX_PEOPLE))
    @precondition(started)
    def interview_finishes(self, n: int) -> None:
        p = self.person(n)
        iv = self.server.get(self.iid(p.participant_id)) if p else None
        if iv is not None and iv.exists:
            iv.finished = True

    @rule(n=st.integers(0, MAX_PEOPLE), action=st.sampled_from(["checked", "correct", "withdraw"]))
    @precondition(started)
    def member_check(self, n: int, action: Literal["checked", "correct", "withdraw"]) -> None:
        p = self.person(n)
        if p is None:
            return
        req = MemberCheck(token_sha256=p.token_sha256, action=action, entry_id="a1" if action == "correct" else None,
                          text="What I meant." if action == "correct" else None)
        try:
            self.ledger.member_check(self.now, req)
        except StudyError:
            assert p.status != "completed" or self.ledger.state.closed

    @rule()
    @precondition(lambda self: self.started() and self.lookup is None and not self.opening and not self.starting)
    def continue_as_new(self) -> None:
        """The ledger goes on in a fresh run, its state carried as JSON (the workflow waits for its handlers and
        starts first; no look-up is in flight then)."""
        carried = StudyState.model_validate_json(self.ledger.state.model_dump_json())
        self.lg = Ledger(self.ledger.inp, self.ledger.study_id, carried)

    # --------------------------------------------------------------------------------------- look-ups
    @rule()
    @precondition(lambda self: self.started() and self.lookup is None)
    def ask_lookup(self) -> None:
        asked = {p.interview_id: (p, p.start_pending) for p in self.ledger.to_look_up() if p.interview_id}
        self.lookup = Lookup(asked, {iid: observe(iid, self.server.get(iid)) for iid in asked})

    @rule()
    @precondition(lambda self: self.started())
    def transient_miss(self) -> None:
        """The next look-up's describe does not find an interview that exists (say, a failover)."""
        self.miss_next = True

    @rule(late=st.booleans())
    @precondition(lambda self: self.lookup is not None)
    def answer_lookup(self, late: bool) -> None:
        lookup, self.lookup = self.lookup, None
        assert lookup is not None
        missed, self.miss_next = self.miss_next, False
        for iid, (p, pending) in lookup.asked.items():
            found = observe(iid, None) if missed else observe(iid, self.server.get(iid)) if late else lookup.seen[iid]
            if "lookup" in self.LEGACY and self.ledger.racy(p, found):
                self.ledger.finished(self.now, p, found)
                outcome = "ended"
            else:
                outcome = self.ledger.looked_up(self.now, p, found, pending)
            if outcome == "ended" and p.status == "completed":
                self.ledger.digested(p, DigestSummary(participant_id=p.participant_id, digest=REF,
                                                      themes=[f"theme {p.participant_id}", "shared"]),
                                     corrections=len(p.corrections))
            if found.state == "finished" and found.answers >= MIN_ANSWERS and not p.abandon_requested:
                assert p.status in ("completed", "revoked", "withdrawn"), (p.participant_id, p.status)

    def iid(self, pid: str) -> str:
        return f"study-m--{pid}"

    # ------------------------------------------------------------------------------------- invariants
    @invariant()
    def statuses_only_move_forward(self) -> None:
        if self.lg is None:
            return
        for p in self.ledger.state.participants:
            seen = self.ever.setdefault(p.participant_id, set())
            if "revoked" in seen:
                assert p.status == "revoked", f"{p.participant_id}: revoked, then {p.status}"
            if "withdrawn" in seen:
                assert p.status == "withdrawn", f"{p.participant_id}: withdrawn, then {p.status}"
            if "completed" in seen:
                assert p.status in ("completed", "withdrawn"), f"{p.participant_id}: completed, then {p.status}"
            seen.add(p.status)

    @invariant()
    def a_finished_interview_is_never_counted_abandoned_for_good(self) -> None:
        if self.lg is None:
            return
        for p in self.ledger.state.participants:
            iv = self.server.get(self.iid(p.participant_id))
            if p.status == "abandoned" and iv is not None and iv.exists and not p.abandon_requested \
                    and (not iv.finished or iv.answers >= MIN_ANSWERS):
                # abandoned although its interview runs or finished well: only by absence, and revisable
                assert revisable(p), f"{p.participant_id} abandoned ({p.exit_reason}) though its interview exists"

    @invariant()
    def the_quota_counts_each_participant_once(self) -> None:
        if self.lg is None:
            return
        ps = self.ledger.state.participants
        ids = [p.participant_id for p in ps]
        assert len(ids) == len(set(ids))
        assert len({p.token_sha256 for p in ps}) == len(ps)
        progress = self.ledger.progress(self.now, "recruiting")
        completed = {p.participant_id for p in ps if p.status == "completed"}
        assert progress.completed == len(completed) == self.ledger.count("completed")
        assert progress.completed + progress.abandoned + progress.running + progress.revoked + progress.withdrawn \
            + self.ledger.count("invited") == progress.invited
        iids = [p.interview_id for p in ps if p.interview_id]
        assert len(iids) == len(set(iids))

    @invariant()
    def a_withdrawn_or_revoked_participant_is_in_no_finding(self) -> None:
        if self.lg is None:
            return
        gone = {p.participant_id for p in self.ledger.state.participants if p.status in ("withdrawn", "revoked")}
        draft = self.ledger.draft(self.now)
        assert not gone & {pid for t in draft.themes for pid in t.participants}
        export = self.ledger.export()
        assert all(r.transcript is None and not r.corrections for r in export.participants
                   if r.participant_id in gone)
        assert draft.completed == self.ledger.count("completed")

    @invariant()
    def a_corrected_answer_is_never_quoted_in_its_original_words(self) -> None:
        """The analysis as the workflow runs it (patch study-corrections): a digest that read fewer corrections
        than were saved is redone on the corrected transcript, and every quote is checked against the answers as
        corrected. The digest here quotes every answer it read, in the words it read."""
        if self.lg is None:
            return
        for p in self.ledger.state.participants:
            if p.status != "completed" or p.digest is None:
                continue
            assert p.digested_corrections <= len(p.corrections)
            read = p.corrections if stale(len(p.corrections), p.digested_corrections) \
                else p.corrections[:p.digested_corrections]
            quotes = [e.text for e in corrected_entries(SAID, read)[0] if e.speaker == "interviewee"]
            answers, changed = corrected_entries(SAID, p.corrections)
            kept = [q for q in quotes if check_quote(q, [e.text for e in answers]).verified]
            original = {e.text for e in SAID if e.entry_id in changed}
            assert not original & set(kept), (p.participant_id, kept, p.corrections)

    @invariant()
    def a_closed_study_starts_no_one_new(self) -> None:
        if self.lg is None:
            return
        assert not self.started_closed, f"started after the study closed or the link was revoked: {self.started_closed}"
        assert not self.ledger.state.closed or self.ledger.should_close(self.now) is None


def _run(examples: int, steps: int) -> None:
    run_state_machine_as_test(StudyLedgerMachine, settings=settings(
        max_examples=examples, stateful_step_count=steps, deadline=None, suppress_health_check=list(HealthCheck)))


def test_study_ledger_machine():
    """600 generated sequences of up to 40 steps, every invariant after every step."""
    _run(600, 40)


@pytest.mark.deep
def test_study_ledger_machine_long():
    _run(10000, 60)


# ------------------------------------------------------------------------------------ regressions
def _study(quota: int = 3) -> Ledger:
    lg = Ledger(StudyInput(topic="On-call", plan=PLAN, quota=quota, min_answers=MIN_ANSWERS, check_seconds=5.0),
                "study-m")
    lg.add(T0, AddParticipants(invitations=[Invitation(token_sha256=token(i)) for i in range(2)]))
    return lg


def _opened(lg: Ledger, n: int = 0) -> Participant:
    p = lg.state.participants[n]
    lg.check_open(OpenLink(token_sha256=p.token_sha256))
    lg.start(T0, p, "en")
    return p


def _finished(iid: str, answers: int = 3) -> InterviewLookup:
    return observe(iid, Interview(exists=True, finished=True, answers=answers))


def test_regression_a_look_up_while_the_start_is_pending_finds_no_interview_and_it_is_not_yet_started():
    """Issue 36's race, the machine's first find: begin, invite, open_link, plan_ready, ask_lookup,
    answer_lookup(seen when asked), child_exists — the look-up ran while `open_link` waited for the child's start,
    found no such interview, and the participant was abandoned for good though the interview then ran."""
    lg = _study(quota=1)
    p = _opened(lg)
    asked = {p.interview_id: (p, p.start_pending) for p in lg.to_look_up()}
    assert asked == {"study-m--P001": (p, True)}
    lg.start_confirmed(p)                                   # the start is confirmed while the look-up runs
    assert lg.looked_up(T0, p, observe("study-m--P001", None), pending_when_asked=True) == "waiting"
    assert p.status == "started" and p.missing_since is None
    assert lg.looked_up(T0 + timedelta(seconds=5), p, _finished("study-m--P001"), False) == "ended"
    assert p.status == "completed" and lg.should_close(T0) == "quota reached (1 completed)"


def test_regression_a_confirmed_interview_missing_is_abandoned_after_the_grace_and_revised_when_it_finishes():
    lg = _study()
    p = _opened(lg)
    lg.start_confirmed(p)
    missing = observe("study-m--P001", None)
    assert lg.looked_up(T0, p, missing, False) == "waiting"
    assert lg.looked_up(T0 + timedelta(seconds=59), p, missing, False) == "waiting"
    assert lg.looked_up(T0 + timedelta(seconds=60), p, missing, False) == "ended"
    assert p.status == "abandoned" and revisable(p) and p in lg.to_look_up()
    assert lg.looked_up(T0 + timedelta(seconds=65), p, _finished("study-m--P001"), False) == "ended"
    assert p.status == "completed" and not revisable(p) and lg.count("abandoned") == 0


def test_regression_an_answer_about_a_participant_revoked_while_the_look_up_ran_is_ignored():
    """The machine: begin, invite, open_link, plan_ready, ask_lookup, revoke, answer_lookup — revoked, then
    abandoned (or completed, and in the findings)."""
    lg = _study()
    p = _opened(lg)
    lg.start_confirmed(p)
    lg.revoke(RevokeParticipant(participant_id="P001", reason="asked to leave"))
    assert lg.racy(p, _finished("study-m--P001"))
    assert lg.looked_up(T0, p, _finished("study-m--P001"), False) == "ignored"
    assert p.status == "revoked" and lg.draft(T0).completed == 0


def test_regression_a_failed_start_leaves_a_link_revoked_meanwhile_revoked():
    """The machine: begin, invite, open_link, plan_ready, revoke, start_answered(fails) — revoked, then invited."""
    lg = _study()
    p = _opened(lg)
    lg.revoke(RevokeParticipant(participant_id="P001", reason="r"))
    lg.start_failed(p)
    assert p.status == "revoked"
    q = _opened(lg, 1)
    lg.start_failed(q)
    assert q.status == "invited" and q.interview_id is None and not q.start_pending


def test_regression_a_link_whose_study_closed_while_its_plan_was_translated_starts_nothing():
    """The machine: begin, invite, open_link, close, plan_ready — the interview started after the close (the
    workflow now checks the link again after the translation)."""
    lg = _study()
    p = lg.state.participants[0]
    lg.check_open(OpenLink(token_sha256=p.token_sha256))
    lg.close(T0, "closed by the researcher")
    with pytest.raises(StudyError, match="closed"):
        lg.check_open(OpenLink(token_sha256=p.token_sha256))
