"""A study's next run takes the ledger it carried (continue-as-new) without walking it for unknown fields.

bench.study with 1,000 participants found each new run's first workflow task spending over 2 s in that walk (the
SDK's deadlock detector failed it, the study answered no query meanwhile, participants' pages said "try again");
the walk exists to name a person's typo, and the carried state is the workflow's own, written by its model. A
field it no longer has (written by an older version) is ignored, not a reason to refuse the run; a person's
unknown field at the top is still named."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

import rules.inputs
from bench.study import short_plan
from models.common import ArtifactRef
from models.study.workflow import Participant, StudyInput, StudyState
from rules.inputs import InvalidInput, parse_input


def _carried(n: int) -> dict[str, Any]:
    now = datetime(2026, 11, 28, tzinfo=UTC)
    ref = ArtifactRef(uri="file:///tmp/t.json", name="t.json", sha256="b" * 64, size_bytes=10)
    return StudyInput(topic="On-call", quota=n, carried=StudyState(plan=short_plan(), participants=[
        Participant(participant_id=f"P{i:04d}", token_sha256="a" * 64, status="completed", invited_at=now,
                    interview_id=f"s--P{i:04d}", transcript=ref, digest=ref, themes=["Alert fatigue"])
        for i in range(n)])).model_dump(mode="json")


def test_the_unknown_field_walk_does_not_grow_with_the_carried_ledger(monkeypatch: pytest.MonkeyPatch):
    calls = 0
    walk = rules.inputs._nested_unknown

    def counted(*args: Any) -> list[str]:
        nonlocal calls
        calls += 1
        return walk(*args)

    monkeypatch.setattr(rules.inputs, "_nested_unknown", counted)
    counts = []
    for n in (2, 200):
        calls = 0
        carried = parse_input(StudyInput, _carried(n), "StudyWorkflow input").carried
        assert carried is not None and len(carried.participants) == n
        counts.append(calls)
    assert counts[0] == counts[1]


def test_a_carried_field_this_version_does_not_know_is_ignored_and_a_persons_typo_is_named():
    raw = _carried(2)
    raw["carried"]["participants"][0]["retired_field"] = "from an older version"
    carried = parse_input(StudyInput, raw, "StudyWorkflow input").carried
    assert carried is not None and [p.participant_id for p in carried.participants] == ["P0000", "P0001"]
    with pytest.raises(InvalidInput, match="unknown field 'quotaa'"):
        parse_input(StudyInput, {**_carried(2), "quotaa": 3}, "StudyWorkflow input")
    with pytest.raises(InvalidInput, match="carried"):      # the carried state's types are still checked
        parse_input(StudyInput, {**_carried(2), "carried": {"participants": "none"}}, "StudyWorkflow input")
