"""The ledger after an erasure (rules/study/ledger.py `erased`): a withdrawn participant is kept only as having
taken part and withdrawn — no transcript, digest, theme label or correction — whatever they did before."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.study.workflow import AddParticipants, EraseParticipant, Invitation, MemberCheck
from rules.study.ledger import StudyError
from tests.unit.study.test_ledger_and_report import NOW, _completed, ledger, sha

ACTIONS = st.lists(st.sampled_from(["checked", "correct"]), max_size=5)


@given(ACTIONS)
def test_an_erased_participant_keeps_only_their_withdrawal(actions):
    lg = ledger(quota=10)
    _completed(lg, 2)
    for action in actions:
        lg.member_check(NOW, MemberCheck(token_sha256=sha(1), action=action, entry_id="a1",
                                         text="What I really said." if action == "correct" else None))
    p = lg.member_check(NOW, MemberCheck(token_sha256=sha(1), action="withdraw"))
    p.erase_pending = True
    assert lg.to_erase() == [p]
    lg.erased(NOW, p)
    assert lg.to_erase() == [] and p.status == "withdrawn" and p.erased_at == NOW
    assert (p.transcript, p.digest, p.themes, p.corrections, p.digest_error) == (None, None, [], [], None)
    assert "What I really said" not in lg.state.model_dump_json()
    view = {v.participant_id: v for v in lg.views()}["P002"]
    assert view.status == "withdrawn" and view.erased_at == NOW and view.withdrawn_at == NOW
    assert lg.draft(NOW).completed == 1 and all("P002" not in t.participants for t in lg.draft(NOW).themes)
    exported = {r.participant_id: r for r in lg.export().participants}["P002"]
    assert exported.transcript is None and exported.corrections == []


def test_the_researchers_delete_erases_a_finished_participant_and_refuses_what_it_cannot():
    lg = ledger(quota=10)
    _completed(lg, 2)
    lg.add(NOW, AddParticipants(invitations=[Invitation(token_sha256=sha(7))]))
    with pytest.raises(StudyError, match="no interview to erase"):
        lg.erase(NOW, EraseParticipant(participant_id="P003"))      # invited, never started
    with pytest.raises(StudyError, match="no participant"):
        lg.erase(NOW, EraseParticipant(participant_id="P099"))
    p = lg.erase(NOW, EraseParticipant(participant_id="P001"))
    assert p.status == "withdrawn" and p.erase_pending and lg.to_erase() == [p]
    with pytest.raises(StudyError, match="already erased"):
        lg.erase(NOW, EraseParticipant(participant_id="P001"))
    lg.erased(NOW, p)
    with pytest.raises(StudyError, match="already erased"):
        lg.check_erase(EraseParticipant(participant_id="P001"))
    lg.close(NOW, "done")
    with pytest.raises(StudyError, match="closed"):
        lg.erase(NOW, EraseParticipant(participant_id="P002"))
