"""Section boundaries and warnings in words (rules/interview/notices.py): what the room, console and join show."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from models.interview.workflow import InterviewEvent
from rules.interview.notices import Notices

AT = datetime(2026, 1, 1, tzinfo=UTC)


def ev(event_id: int, type_: str, section: str | None = "origins", **payload) -> InterviewEvent:  # noqa: ANN003
    return InterviewEvent(event_id=event_id, timestamp=AT, actor="system", type=type_, section_id=section,
                          payload=payload)


def test_boundaries_and_warnings_in_words_in_order_once():
    n = Notices(keep=3)
    new = n.take([ev(3, "SECTION_TIME_WARNING", seconds_left=120), ev(1, "SECTION_STARTED", title="Origins",
                                                                      goal="How it began", duration_seconds=300),
                  ev(2, "CANDIDATE_MESSAGE", text="hello")])
    assert [x["text"] for x in new] == ["New section: Origins (5:00) — How it began",
                                        "2:00 left in this section (Origins)"]
    assert n.take([ev(3, "SECTION_TIME_WARNING", seconds_left=120)]) == []          # read once
    n.take([ev(4, "SECTION_TIME_WARNING", seconds_left=30), ev(5, "SECTION_ENDED", reason="time_expired"),
            ev(6, "SECTION_STARTED", "practice", title="Practice")])
    assert [x["kind"] for x in n.latest()] == ["time_warning", "section_ended", "section_started"]   # bounded
    assert n.latest()[1]["text"] == "Section ended: Origins (its time is up)"
    assert n.latest()[2]["text"] == "New section: Practice" and n.cursor == 6


def test_an_unknown_reason_and_a_missing_title_still_read():
    n = Notices()
    n.take([ev(7, "SECTION_ENDED", "later", reason="some_new_reason"), ev(8, "SECTION_TIME_WARNING", "later")])
    assert [x["text"] for x in n.latest()] == ["Section ended: later (some new reason)",
                                               "little time left in this section (later)"]


TYPES = ["SECTION_STARTED", "SECTION_ENDED", "SECTION_TIME_WARNING", "CANDIDATE_MESSAGE", "PHASE_CHANGED"]


@given(st.lists(st.lists(st.integers(1, 60).map(lambda i: (i, TYPES[i % len(TYPES)])), max_size=15), max_size=8),
       st.integers(1, 10))
def test_pages_in_any_order_with_repeats_give_each_notice_once_in_order(pages, keep):
    """However the log is read (pages overlapping, out of order, repeated), every boundary/warning after the cursor
    is taken once, in event order; the kept list is the latest `keep`."""
    n, taken = Notices(keep=keep), []
    for page in pages:
        cursor = n.cursor
        new = n.take([ev(i, t) for i, t in page])
        later = sorted({i: t for i, t in page if i > cursor}.items())
        assert [x["event_id"] for x in new] == [i for i, t in later if t.startswith("SECTION_")]
        taken += new
    assert [x["event_id"] for x in taken] == sorted({x["event_id"] for x in taken})
    assert n.latest() == taken[-keep:]
