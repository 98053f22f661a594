"""Every door bounded by construction (issue 21): each text, list and mapping of every workflow input, signal and
update model has a declared maximum; the whole encoded argument is measured before use; values that fail before
validation (lone surrogates, deep nesting, numbers out of range, naive datetimes) and the settings that stalled
runs are refused with a message naming the field."""

from __future__ import annotations

import types
import typing
from typing import Any, Union, get_args, get_origin

import annotated_types
import pytest
from pydantic import BaseModel

from activities.rehearsal.interviewee import IntervieweeInput
from models.discussion import workflow as discussion
from models.interview.entries import AssistantQuery, Heartbeat, SessionControl, TranscriptEntry
from models.interview.workflow import InterviewInput
from models.platform import workflow as platform
from models.query import workflow as query
from models.study import workflow as study
from models.writing import workflow as writing
from rules.inputs import MAX_INPUT_BYTES, InvalidInput, Undecodable, parse_input, raw_problems

DOORS: list[type[BaseModel]] = [
    InterviewInput, TranscriptEntry, SessionControl, Heartbeat,
    AssistantQuery, query.QueryRequest, query.ClarifyAnswer, query.ImportRequest, query.ContextRequest,
    query.ReparseRequest, study.StudyInput, study.AddParticipants, study.RevokeParticipant, study.CloseStudy,
    study.OpenLink, study.ReviewPlan, study.MemberCheck, IntervieweeInput, discussion.DiscussionInput,
    platform.ModelCheckRequest,
]
# The state a run carries into its next run (continue-as-new) is the workflow's own, bounded by its own tails and
# budgets (rules/interview/budget.py) and as a whole by the input's MAX_BYTES; field maxima there could stop a
# long run. The writing door is measured as a whole (rules/inputs.py) — its models belong to the writing work.
CARRIED = {"InterviewState", "StudyState", "RunState"}
DEEP: Any = []
for _ in range(40):
    DEEP = [DEEP]


def _flat(meta: list[Any]) -> list[Any]:
    out = []
    for m in meta:
        out.append(m)
        out.extend(getattr(m, "metadata", None) or [])
    return out


def _unbounded(model: type[BaseModel], seen: set[type], out: list[str]) -> list[str]:
    if model in seen or model.__name__ in CARRIED:
        return out
    seen.add(model)
    for name, f in model.model_fields.items():
        _check(f.annotation, list(f.metadata), f"{model.__name__}.{name}", seen, out)
    return out


def _check(ann: Any, meta: list[Any], where: str, seen: set[type], out: list[str]) -> None:
    origin, args = get_origin(ann), get_args(ann)
    if origin is typing.Annotated:
        _check(args[0], meta + list(ann.__metadata__), where, seen, out)
    elif origin in (Union, types.UnionType):
        for a in args:
            if a is not type(None):
                _check(a, meta, where, seen, out)
    elif ann is str or origin in (list, tuple, set, frozenset, dict):
        if not any(isinstance(m, annotated_types.MaxLen) for m in _flat(meta)):
            out.append(where)
        for a in args if ann is not str else ():
            if a is not Ellipsis:
                _check(a, [], f"{where}[]", seen, out)
    elif isinstance(ann, type) and issubclass(ann, BaseModel):
        _unbounded(ann, seen, out)


def test_every_text_and_list_of_every_door_has_a_declared_maximum():
    seen: set[type] = set()
    missing = [where for door in DOORS for where in _unbounded(door, seen, [])]
    assert missing == []


@pytest.mark.parametrize(("raw", "words"), [
    ({"topic": "a\ud800b"}, "lone UTF-16 surrogate"),
    ({"topic": "x", "context": DEEP}, "nested"),
    ({"topic": "x", "cycle_seconds": float("inf")}, "out of range"),
    ({"topic": "x", "cycle_seconds": float("nan")}, "out of range"),
    ({"topic": "x", "context": "y" * (MAX_INPUT_BYTES * 7)}, "too large"),
    (Undecodable("nested too deep"), "not valid JSON: nested too deep"),
])
def test_what_fails_before_validation_is_refused_with_a_clear_message(raw, words):
    with pytest.raises(InvalidInput, match=words):
        parse_input(InterviewInput, raw, "InterviewWorkflow input")


def test_the_size_message_names_the_biggest_field():
    problems = raw_problems({"entry_id": "e", "reply_to_section_id": "s" * 900_000}, MAX_INPUT_BYTES)
    assert problems and "reply_to_section_id" in problems[0] and "at most 262,144" in problems[0]


@pytest.mark.parametrize(("model", "raw", "field"), [
    (TranscriptEntry, {"entry_id": "e", "speaker": "interviewee", "text": "t",
                                 "reply_to_section_id": "s" * 201}, "reply_to_section_id"),
    (SessionControl, {"action": "pause", "reason": "r" * 4001}, "reason"),
    (TranscriptEntry, {"entry_id": "e" * 201, "speaker": "interviewee", "text": "t"}, "entry_id"),
    (AssistantQuery, {"query_id": "q", "text": "t" * 64_001}, "text"),
    (query.ClarifyAnswer, {"answers": {f"q{i}": "a" for i in range(201)}}, "answers"),
    (study.OpenLink, {"token_sha256": "f" * 300}, "token_sha256"),
    (discussion.DiscussionInput, {"topic": "t", "team": ["leader"] * 201}, "team"),
])
def test_oversized_fields_are_refused(model, raw, field):
    with pytest.raises(InvalidInput, match=field):
        parse_input(model, raw, "door")


@pytest.mark.parametrize(("model", "raw", "field"), [
    (InterviewInput, {"topic": "t", "continue_as_new_after_events": 0}, "continue_as_new_after_events"),
    (InterviewInput, {"topic": "t", "continue_as_new_after_events": 1}, "continue_as_new_after_events"),
    (InterviewInput, {"topic": "t", "carried": {}}, "carried"),
    (InterviewInput, {"topic": "t", "max_entry_chars": 0}, "max_entry_chars"),
    (InterviewInput, {"topic": "t", "max_entry_chars": -5}, "max_entry_chars"),
    (InterviewInput, {"topic": "t", "late_grace_seconds": -1}, "late_grace_seconds"),
    (InterviewInput, {"topic": "t", "presence_timeout_seconds": 1e-9}, "presence_timeout_seconds"),
    (writing.WritingInput, {"story_text": "s", "continue_as_new_after": -1}, "continue_as_new_after"),
    (writing.WritingInput, {"story_text": "s", "continue_as_new_after": 0}, "continue_as_new_after"),
    (query.ImportRequest, {"directory": "/notes", "batch_size": 0}, "batch_size"),
    (query.ImportRequest, {"directory": "/notes", "batch_size": -3}, "batch_size"),
    (query.ImportRequest, {"directory": ""}, "directory"),
    (study.StudyInput, {"topic": "t", "close_at": "2030-01-01T10:00:00"}, "close_at"),
    (study.StudyInput, {"topic": "t", "quota": 3, "presence_timeout_seconds": 0.001}, "presence_timeout_seconds"),
])
def test_settings_that_stalled_runs_are_refused(model, raw, field):
    with pytest.raises(InvalidInput, match=field):
        parse_input(model, raw, "input")


def test_sensible_settings_still_pass():
    parse_input(InterviewInput, {"topic": "t", "continue_as_new_after_events": 70, "late_grace_seconds": 0,
                                           "presence_timeout_seconds": 0, "max_entry_chars": 200}, "input")
    parse_input(study.StudyInput, {"topic": "t", "close_at": "2030-01-01T10:00:00+01:00"}, "input")
    parse_input(writing.WritingInput, {"story_text": "s", "continue_as_new_after": 2}, "input")


def test_a_message_never_grows_with_the_input():
    raw = {f"unknown_{i}": i for i in range(5000)} | {"topic": "t"}
    with pytest.raises(InvalidInput) as err:
        parse_input(InterviewInput, raw, "input")
    assert len(str(err.value)) <= 2100 and "more" in str(err.value)
