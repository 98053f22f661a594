"""rules/inputs.py: raw workflow input → the model, or one message naming every bad field."""

from __future__ import annotations

import pytest

from models.interview.entries import TranscriptEntry
from models.interview.workflow import InterviewInput
from models.query.workflow import ContextRequest
from models.writing.workflow import WritingInput
from rules.inputs import InvalidInput, input_problems, parse_input


def test_valid_input_gives_the_same_model_as_the_converter():
    raw = {"topic": "on-call", "duration_seconds": 600, "sections": None}
    assert parse_input(InterviewInput, raw, "x") == InterviewInput.model_validate_json(
        '{"topic": "on-call", "duration_seconds": 600}')
    model = InterviewInput(topic="t")
    assert parse_input(InterviewInput, model, "x") is model


@pytest.mark.parametrize(("model", "raw", "message"), [
    (InterviewInput, {"topic": "x", "duration_seconds": "abc"}, "duration_seconds: expected an integer, got 'abc'"),
    (InterviewInput, {}, "missing field 'topic'"),
    (InterviewInput, {"topic": "x", "duration_second": 60},
     "unknown field 'duration_second' (did you mean 'duration_seconds'? known: topic, context, duration_seconds"),
    (WritingInput, {"story": "x"}, "unknown field 'story' (known: story_text, story_ref, story_name"),
    (WritingInput, {"models": "m1"}, "models: expected a list, got 'm1'"),
    (InterviewInput, {"topic": "x", "sections": [{"titel": "a"}]}, "sections[0]: unknown field 'titel'"),
    (InterviewInput, {"topic": "x", "mode": "zzz"}, "mode: expected 'adaptive' or 'structured', got 'zzz'"),
    (InterviewInput, "abc", "expected a JSON object with the fields of InterviewInput (required: topic), got 'abc'"),
    (ContextRequest, None, "no input given: expected a JSON object with the fields of ContextRequest (known: notes_dir)"),
    (TranscriptEntry, {"entry_id": 1, "speaker": "a", "text": "t"}, "entry_id: expected a string, got 1"),
])
def test_each_problem_names_its_field(model, raw, message):
    assert any(message in p for p in input_problems(model, raw)), input_problems(model, raw)
    with pytest.raises(InvalidInput, match="^invalid the start: "):
        parse_input(model, raw, "the start")
