"""The study's pure parts: the ledger (links, revocation, outcomes, progress, draft), coverage per interview, the
reduce step (counts, positions → disagreements and minority views) and the report renderers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.common import ArtifactRef
from models.interview.entries import TranscriptEntry
from models.interview.plan import PlanSnapshot, QuestionSnapshot, SectionSnapshot
from models.study.activities import (
    DigestQuote,
    DigestSummary,
    DigestTheme,
    InterviewDigest,
    InterviewLookup,
    QuestionDepth,
)
from models.study.workflow import (
    AddParticipants,
    FindingQuote,
    Invitation,
    OpenLink,
    RevokeParticipant,
    StudyInput,
    StudyState,
)
from rules.study.analysis import question_coverage, reduce_digests
from rules.study.ledger import Ledger, StudyError
from rules.study.report import to_html, to_markdown

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
PLAN = PlanSnapshot(topic="On-call", research_goal="g", angle="a", sections=[
    SectionSnapshot(id="s1", title="Origins", questions=[QuestionSnapshot(id="q1", text="How did you start on call?")]),
    SectionSnapshot(id="s2", title="Alerts", questions=[QuestionSnapshot(id="q2", text="What about noisy alerts?")])])
REF = ArtifactRef(name="x", uri="file:///x", sha256="0" * 64, size_bytes=1, content_type="text/plain")


def sha(n: int) -> str:
    return f"{n:064x}"


def ledger(**fields) -> Ledger:
    fields.setdefault("quota", 3)
    return Ledger(StudyInput(topic="On-call", plan=PLAN, **fields), "study-x")


def test_links_open_once_revoked_ones_are_refused_and_tokens_are_unique():
    lg = ledger(languages=["en", "de"])
    added = lg.add(NOW, AddParticipants(invitations=[Invitation(token_sha256=sha(i)) for i in range(3)]))
    assert [p.participant_id for p in added] == ["P001", "P002", "P003"]
    with pytest.raises(StudyError, match="given twice"):
        lg.check_add(AddParticipants(invitations=[Invitation(token_sha256=sha(1))]))
    lg.revoke(RevokeParticipant(participant_id="P002"))
    with pytest.raises(StudyError, match="revoked"):
        lg.check_open(OpenLink(token_sha256=sha(1)))
    with pytest.raises(StudyError, match="no such study link"):
        lg.check_open(OpenLink(token_sha256=sha(9)))
    with pytest.raises(StudyError, match="not offered"):
        lg.check_open(OpenLink(token_sha256=sha(0), language="fr"))
    p = lg.check_open(OpenLink(token_sha256=sha(0), language="de"))
    assert lg.start(NOW, p, lg.language_for(p, OpenLink(token_sha256=sha(0), language="de"))) == "study-x--P001"
    assert lg.link(sha(0)).status == "started" and lg.link(sha(1)).status == "revoked"
    assert lg.link(sha(5)).status == "unknown"
    lg.close(NOW, "closed by the researcher")
    assert lg.link(sha(2)).status == "closed"
    with pytest.raises(StudyError, match="closed"):
        lg.check_open(OpenLink(token_sha256=sha(2)))


def test_outcomes_progress_quota_and_carried_state():
    lg = ledger(min_answers=2, abandon_after_seconds=60)
    lg.add(NOW, AddParticipants(invitations=[Invitation(token_sha256=sha(i)) for i in range(4)]))
    ps = [lg.check_open(OpenLink(token_sha256=sha(i))) for i in range(4)]
    for p in ps:
        lg.start(NOW, p, "en")
    running = InterviewLookup(interview_id="x", state="running", paused_reason="disconnect", paused_seconds=61)
    assert lg.to_abandon(running, ps[3]) and not lg.to_abandon(running.model_copy(update={"paused_seconds": 5}), ps[3])
    done = InterviewLookup(interview_id="x", state="finished", exit_reason="closing_detected", answers=3,
                           length_seconds=100)
    lg.finished(NOW, ps[0], done)
    lg.finished(NOW, ps[1], done.model_copy(update={"length_seconds": 300}))
    lg.finished(NOW, ps[2], done.model_copy(update={"answers": 1}))
    ps[3].abandon_requested = True
    lg.finished(NOW, ps[3], done)
    assert [p.status for p in ps] == ["completed", "completed", "abandoned", "abandoned"]
    assert ps[2].exit_reason == "closing_detected (1 of at least 2 answers)"
    progress = lg.progress(NOW, "recruiting")
    assert (progress.completed, progress.abandoned, progress.median_length_seconds) == (2, 2, 200.0)
    assert lg.should_close(NOW) is None
    lg.digested(ps[0], DigestSummary(participant_id="P001", digest=REF, themes=["Pager", "Sleep"],
                                     coverage=[QuestionDepth(question_id="q1", asked=True, answered=True,
                                                             depth="deep")]))
    draft = lg.draft(NOW)
    assert [(t.title, t.count) for t in draft.themes] == [("Pager", 1), ("Sleep", 1)]
    assert draft.coverage[0].depth["deep"] == 1 and draft.status == "draft"
    carried = StudyState.model_validate_json(lg.state.model_dump_json())
    again = Ledger(lg.inp, "study-x", carried)
    assert again.link(sha(0)).participant_id == "P001" and again.progress(NOW, "x").completed == 2


def test_close_date_and_quota():
    lg = ledger(quota=None, close_at=NOW + timedelta(days=1))
    assert lg.should_close(NOW) is None and lg.should_close(NOW + timedelta(days=1)).startswith("close date")
    with pytest.raises(ValueError, match="quota, a close date"):
        StudyInput(topic="t")


def test_coverage_per_interview():
    entries = [TranscriptEntry(entry_id="1", speaker="interviewer", text="[de — not translated] How did you start on "
                                                                        "call?"),
               TranscriptEntry(entry_id="2", speaker="interviewee", text="By accident."),
               TranscriptEntry(entry_id="3", speaker="interviewer", text="Anything else?"),
               TranscriptEntry(entry_id="4", speaker="interviewee", text="no")]
    rows = {r.question_id: r for r in question_coverage(PLAN, entries)}
    assert rows["q1"].asked and rows["q1"].answered and rows["q1"].depth == "shallow"
    assert not rows["q2"].asked and rows["q2"].depth == "none"


def _digest(pid: str, stance: str, quote: str, lang: str = "en") -> InterviewDigest:
    return InterviewDigest(participant_id=pid, interview_id=f"s--{pid}", language=lang, themes=[
        DigestTheme(title="pager duty", stance=stance, quotes=[DigestQuote(text=quote)])],
        coverage=[QuestionDepth(question_id="q1", asked=True, answered=True, depth="adequate")],
        not_in_plan=["pay"] if pid in ("P1", "P2") else [], translation_note="not translated: offline test double")


def test_reduce_counts_positions_disagreements_and_minorities():
    digests = ([_digest(f"P{i}", "It was an accident.", f"quote {i}") for i in range(1, 6)]
               + [_digest(f"P{i}", "I chose it", f"quote {i}") for i in range(6, 9)]
               + [_digest("P9", "It pays well", "Es zahlt sich aus", "de")])
    f = reduce_digests("s", "On-call", "g", "en", PLAN, digests, {"pager duty": "Carrying the pager"}, abandoned=2)
    theme = f.themes[0]
    assert theme.title == "Carrying the pager" and theme.count == 9 and len(theme.quotes) == 3
    assert [(p.position, p.count) for p in theme.positions] == [("it was an accident", 5), ("i chose it", 3),
                                                                ("it pays well", 1)]
    assert f.disagreements[0].theme == "Carrying the pager"
    assert [m.position for m in f.minority_views] == ["it pays well"]      # 1 of 9; 3 of 9 is over 25 %
    assert f.minority_views[0].quote is not None and f.minority_views[0].quote.language == "de"
    assert f.minority_views[0].quote.translation_note == "not translated: offline test double"
    assert f.coverage[0].asked == 9 and f.coverage[0].depth["adequate"] == 9 and f.coverage[1].interviews == 0
    assert [(m.topic, m.count) for m in f.plan_missed] == [("pay", 2)]
    assert f.languages == {"de": 1, "en": 8} and f.abandoned == 2


def test_report_prints_only_verified_quotes_and_escapes_html():
    f = reduce_digests("s", "On <call>", "g", "en", PLAN, [_digest("P1", "x", "We <b>never</b> slept")], {}, 0)
    f.themes[0].quotes[0].verified = True
    f.flagged_quotes.append(FindingQuote(participant_id="P2", text="a made up line", check="near_miss",
                                         flag="near miss: 1 word differs from answer 1"))
    md, html = to_markdown(f), to_html(f, {"P1": [TranscriptEntry(entry_id="e1", speaker="interviewee",
                                                                   text="We <b>never</b> slept")]})
    assert "“We <b>never</b> slept”" in md and "- P2: a made up line — near miss" in md
    assert "“a made up line”" not in md and "“a made up line”" not in html
    assert "<b>never</b>" not in html and "&lt;b&gt;never&lt;/b&gt;" in html and "On &lt;call&gt;" in html
    assert 'id="t-P1"' in html and "<script" not in html and "http" not in html.split("</style>")[1]


def _completed(lg: Ledger, n: int) -> None:
    lg.add(NOW, AddParticipants(invitations=[Invitation(token_sha256=sha(i)) for i in range(n)]))
    for i in range(n):
        p = lg.check_open(OpenLink(token_sha256=sha(i)))
        lg.start(NOW, p, "en")
        lg.finished(NOW + timedelta(minutes=5), p, InterviewLookup(interview_id=p.interview_id or "", state="finished",
                                                                    answers=3, transcript=REF, length_seconds=200))
        lg.digested(p, DigestSummary(participant_id=p.participant_id, digest=REF, themes=["Origins"]))


def test_member_checking_corrections_beside_the_original_and_withdrawal_leaves_the_findings():
    from models.study.workflow import MemberCheck

    lg = ledger(quota=10)
    _completed(lg, 3)
    lg.member_check(NOW, MemberCheck(token_sha256=sha(0), action="checked"))
    lg.member_check(NOW, MemberCheck(token_sha256=sha(1), action="correct", entry_id="a1", text="What I meant."))
    lg.member_check(NOW, MemberCheck(token_sha256=sha(1), action="correct", entry_id="a1", text="Better still."))
    lg.member_check(NOW, MemberCheck(token_sha256=sha(2), action="withdraw"))
    p1 = lg.by_id["P002"]
    assert [c.text for c in p1.corrections] == ["What I meant.", "Better still."] and p1.transcript == REF
    draft = lg.draft(NOW)
    assert draft.completed == 2 and draft.themes[0].participants == ["P001", "P002"]
    assert (draft.member_checking.checked, draft.member_checking.corrected, draft.member_checking.withdrew) == (2, 1, 1)
    exported = {p.participant_id: p for p in lg.export().participants}
    assert exported["P003"].transcript is None and exported["P002"].corrections
    with pytest.raises(StudyError, match="withdrawn"):
        lg.member_check(NOW, MemberCheck(token_sha256=sha(2), action="checked"))
    lg.close(NOW, "done")
    with pytest.raises(StudyError, match="closed"):
        lg.member_check(NOW, MemberCheck(token_sha256=sha(0), action="withdraw"))


def test_running_answers_are_counted_and_an_abandoned_interview_lasts_until_it_ended():
    """Defects: the researcher page showed "Answers 0" for running participants who had answered, and an
    abandoned ~80 s interview as "6s" (the time of its last answer)."""
    lg = ledger()
    lg.add(NOW, AddParticipants(invitations=[Invitation(token_sha256=sha(0))]))
    p = lg.check_open(OpenLink(token_sha256=sha(0)))
    lg.start(NOW, p, "en")
    lg.seen_running(p, InterviewLookup(interview_id="i", state="running", answers=2))
    assert lg.views()[0].answers == 2
    lg.finished(NOW + timedelta(seconds=80), p, InterviewLookup(interview_id="i", state="finished", answers=1,
                                                                 length_seconds=6.0))
    assert p.status == "abandoned" and p.length_seconds == 80.0


def test_plan_review_refuses_links_and_bad_edits():
    from models.study.workflow import ReviewPlan

    lg = ledger(review=True)
    lg.add(NOW, AddParticipants(invitations=[Invitation(token_sha256=sha(0))]))
    assert lg.link(sha(0)).status == "not_open" and lg.phase(False, False) == "reviewing"
    with pytest.raises(StudyError, match="still being reviewed"):
        lg.check_open(OpenLink(token_sha256=sha(0)))
    empty = PLAN.model_copy(deep=True)
    for sec in empty.sections:
        sec.questions = []
    with pytest.raises(StudyError, match="at least one question"):
        lg.review(ReviewPlan(action="edit", plan=empty))
    lg.review(ReviewPlan(action="approve"))
    assert lg.check_open(OpenLink(token_sha256=sha(0))).participant_id == "P001"
    with pytest.raises(StudyError, match="not started for review"):
        ledger().check_review(ReviewPlan(action="approve"))


def test_the_heat_map_never_colours_a_gap_like_coverage_and_the_report_has_landmarks():
    """Defect: the coverage heat map coloured "none" (asked, not answered) like "asked", so gaps looked like
    coverage; report.html had no landmarks."""
    from models.study.workflow import QuestionCoverage

    f = reduce_digests("s", "On-call", "g", "en", PLAN, [], {}, 0)
    f.coverage = [QuestionCoverage(question_id="q1", text="How?", interviews=3, asked=3, answered=0,
                                   depth={"none": 3, "shallow": 0, "adequate": 0, "deep": 0})]
    html = to_html(f)
    row = html.split('<th scope="row">q1: How?</th>')[1].split("</tr>")[0]
    cells = row.split("<td")[1:]
    asked, none = cells[0], cells[2]
    assert "hsl(140" in asked and "hsl(140" not in none and "hsl(4," in none and "gap" in none
    for landmark in ("<header>", "<main>", "<nav ", "</main>"):
        assert landmark in html


actions = st.lists(st.tuples(st.integers(0, 4), st.sampled_from(["checked", "correct", "withdraw", "close"]),
                             st.text(min_size=1, max_size=30).filter(str.strip)), max_size=25)


@settings(max_examples=60, deadline=None)
@given(steps=actions)
def test_member_checking_invariants(steps):
    """Property: whatever participants do in whatever order — a correction never overwrites anything (each is
    appended, the transcript ref unchanged), nothing changes after the study closes or after a withdrawal, a
    withdrawn participant is in no draft theme and no export transcript, and the counts agree with the ledger."""
    from models.study.workflow import MemberCheck

    lg = ledger(quota=10)
    _completed(lg, 5)
    made: dict[str, list[str]] = {}
    for who, action, text in steps:
        if action == "close":
            lg.close(NOW, "closed")
            continue
        req = MemberCheck(token_sha256=sha(who), action=action, entry_id="a1" if action == "correct" else None,
                          text=text if action == "correct" else None)
        p = lg.by_token[sha(who)]
        before = p.model_copy(deep=True)
        try:
            lg.member_check(NOW, req)
        except StudyError:
            assert lg.state.closed or before.status == "withdrawn"
            assert p == before
            continue
        assert p.transcript == REF
        if action == "correct":
            made.setdefault(p.participant_id, []).append(text.strip())
    for p in lg.state.participants:
        assert [c.text for c in p.corrections] == made.get(p.participant_id, [])
    withdrawn = {p.participant_id for p in lg.state.participants if p.status == "withdrawn"}
    draft = lg.draft(NOW)
    assert not withdrawn & {pid for t in draft.themes for pid in t.participants}
    assert draft.member_checking.withdrew == len(withdrawn) and draft.completed == 5 - len(withdrawn)
    assert all(r.transcript is None and not r.corrections for r in lg.export().participants
               if r.participant_id in withdrawn)
