"""The grounding check (rules/grounding.py): verbatim quotes pass; near misses are flagged, never verified."""

from __future__ import annotations

import pytest

from rules.grounding import check_quote, clean_quote, flag_unverified, quoted_spans

ANSWERS = [
    "Honestly, by accident: I kept answering the pager at night and after a year it became my job.",
    "We deleted every alert nobody had acted on in ninety days and cut our pages by seventy percent.",
    "Blameless reviews only work if the person who pushed the button is in the room and not afraid.",
    "Wir haben jeden Alarm gelöscht, auf den niemand reagiert hat.",
]


@pytest.mark.parametrize("quote", [
    "I kept answering the pager at night",
    '"I kept answering the pager at night and after a year it became my job."',
    "“cut our pages by seventy percent.”",
    "We deleted every   alert nobody\nhad acted on",          # whitespace only
    "Wir haben jeden Alarm gelöscht, auf den niemand reagiert hat.",
])
def test_verbatim_quotes_are_verified(quote: str) -> None:
    check = check_quote(quote, ANSWERS)
    assert check.verified and check.status == "verified" and check.flag == ""
    assert check.source is not None and clean_quote(quote) in " ".join(ANSWERS[check.source].split())


def test_one_word_changed_is_a_near_miss() -> None:
    check = check_quote("We deleted every alert nobody had acted on in sixty days", ANSWERS)
    assert not check.verified and check.status == "near_miss"
    assert check.source == 1 and "1 word differs" in check.reason


def test_one_word_dropped_or_added_is_a_near_miss() -> None:
    assert check_quote("I kept answering the pager at night and after one year it became my job",
                       ANSWERS).status == "near_miss"
    assert check_quote("I kept answering the pager at night and after a year became my job",
                       ANSWERS).status == "near_miss"


def test_different_punctuation_is_a_near_miss() -> None:
    check = check_quote("Honestly by accident, I kept answering the pager at night", ANSWERS)
    assert check.status == "near_miss" and "punctuation" in check.reason


def test_changed_capitalisation_is_a_near_miss() -> None:
    assert check_quote("blameless reviews only work if the person who pushed the button", ANSWERS).status == \
        "near_miss"


def test_a_quote_spliced_from_two_answers_is_a_near_miss() -> None:
    check = check_quote("I kept answering the pager at night and cut our pages by seventy percent", ANSWERS)
    assert not check.verified and check.status == "near_miss" and "spliced from answers 1 and 2" in check.reason


def test_a_quote_spliced_within_one_answer_is_a_near_miss() -> None:
    check = check_quote("Honestly, by accident: it became my job.", ANSWERS)
    assert check.status == "near_miss" and "spliced" in check.reason


def test_invented_and_empty_quotes() -> None:
    assert check_quote("Our on-call rotation was the best in the company by far", ANSWERS).status == "not_found"
    assert check_quote('  ""  ', ANSWERS).status == "empty"


def test_a_quote_from_another_speaker_is_not_verified() -> None:
    interviewee_only = ANSWERS[:1]
    assert not check_quote("cut our pages by seventy percent", interviewee_only).verified


def test_flag_unverified_unquotes_near_misses_and_keeps_real_quotes() -> None:
    text = ('He said "I kept answering the pager at night" and also "we deleted every alert nobody had acted on '
            'in sixty days".')
    flagged, checks = flag_unverified(text, ANSWERS)
    assert [c.status for c in checks] == ["verified", "near_miss"]
    assert '"I kept answering the pager at night"' in flagged
    assert '"we deleted every alert' not in flagged
    assert "we deleted every alert nobody had acted on in sixty days [unverified quote — near miss" in flagged
    assert quoted_spans(flagged) == ["I kept answering the pager at night"]


def test_long_answers_stay_fast() -> None:
    import time

    long = [" ".join(f"word{i}" for i in range(3000))]
    start = time.perf_counter()
    assert check_quote(" ".join(f"word{i}" for i in range(100, 140)) + " extra", long).status == "near_miss"
    assert check_quote(" ".join(f"other{i}" for i in range(40)), long).status == "not_found"
    assert time.perf_counter() - start < 2.0
