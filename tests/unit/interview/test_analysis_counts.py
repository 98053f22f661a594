"""The analysis's dropped-quote and dropped-claim counts are the grounding check's, never the model's: the schema the
model is given leaves them out, and a value a model writes there anyway is read as 0. Found over llama.cpp's server:
SmolLM2 filled `claims_dropped` with 4359107863460409, the output failed its schema and the call was re-asked."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from activities.llm.schema import json_schema_of
from models.interview.analysis import AnalysisSummary

COUNTS = ("quotes_dropped", "claims_dropped")


def test_the_model_is_not_asked_for_the_counts():
    assert not set(COUNTS) & set(json_schema_of(AnalysisSummary)["properties"])


@given(st.one_of(st.integers(), st.floats(allow_nan=True), st.text(max_size=20), st.none(), st.booleans()))
def test_whatever_a_model_writes_there_validates_and_reads_as_a_bounded_count(value):
    out = AnalysisSummary.model_validate({"quotes_dropped": value, "claims_dropped": value})
    for name in COUNTS:
        count = getattr(out, name)
        assert 0 <= count <= 10_000
        assert count == (value if type(value) is int and 0 <= value <= 10_000 else 0)


def test_the_activitys_counts_travel_whole():
    out = AnalysisSummary(quotes_dropped=2, claims_dropped=5)
    back = AnalysisSummary.model_validate_json(out.model_dump_json())
    assert (back.quotes_dropped, back.claims_dropped) == (2, 5)
