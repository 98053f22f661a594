"""Every refusal names its reason with a language-free code (issue 37): each place that raises EntryError gives a
code of the closed set (rules/interview/entries.py REFUSAL_CODES) and the numbers its sentence needs; an entry,
control or assistant query that is wrong in one way is refused with that way's code; the English message is the
same as before (the CLI and logs read it); every code has a sentence a page can translate."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client.web.interview.refusals import REASONS, refusal_text
from models.interview.entries import AssistantQuery, SessionControl, TranscriptEntry
from models.interview.names import CONTROL_ACTIONS, ENTRY_KINDS, SPEAKER_ALIASES
from rules.interview import entries
from rules.interview.entries import (
    MAX_ENTRY_ID_CHARS,
    REFUSAL_CODES,
    EntryError,
    validate_action,
    validate_entry,
)
from rules.interview.session_base import MAX_ASSISTANT_QUERY_CHARS
from tests.unit.interview.test_session import at, started

ROOT = Path(__file__).resolve().parents[3]
MAX_CHARS = 300
DEFECTS = ("entry_id_missing", "entry_id_too_long", "unknown_speaker", "unknown_kind", "empty_text", "too_long")
words = st.text(st.characters(codec="utf-8"), min_size=1, max_size=40)


def raise_sites() -> list[tuple[str, ast.Call]]:
    """Every `EntryError(...)` call in the code (not the tests; not the one that rebuilds a pickled error)."""
    found = []
    for floor in ("rules", "workflows", "activities", "client", "core"):
        for path in (ROOT / floor).rglob("*.py"):
            tree = ast.parse(path.read_text())
            rebuild = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "_entry_error"]
            skip = {id(n) for f in rebuild for n in ast.walk(f)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "EntryError" \
                        and id(node) not in skip:
                    found.append((f"{path.relative_to(ROOT)}:{node.lineno}", node))
    return found


def test_every_raise_site_names_a_code_of_the_closed_set():
    sites = raise_sites()
    assert len(sites) >= 14              # the 14 of issue 37 (more may come: each with its code)
    for where, call in sites:
        code = next((k.value for k in call.keywords if k.arg == "code"), None)
        assert isinstance(code, ast.Name), f"{where}: EntryError without a code constant"
        assert getattr(entries, code.id, None) in REFUSAL_CODES, f"{where}: {code.id} is not a refusal code"


def test_every_code_has_a_sentence_and_the_error_survives_pickling():
    assert set(REASONS) == REFUSAL_CODES
    err = pickle.loads(pickle.dumps(EntryError("the limit is 3", code=entries.TOO_LONG, length=4, limit=3)))
    assert (str(err), err.code, err.params) == ("the limit is 3", entries.TOO_LONG, {"length": 4, "limit": 3})


@st.composite
def bad_entries(draw: st.DrawFn) -> tuple[str, TranscriptEntry]:
    """(the one defect, an entry that has only that defect)."""
    defect = draw(st.sampled_from(DEFECTS))
    fields: dict[str, Any] = {"entry_id": draw(st.text("abcxyz-0123", min_size=1, max_size=20)),
              "speaker": draw(st.sampled_from(sorted(SPEAKER_ALIASES))),
              "kind": draw(st.sampled_from(ENTRY_KINDS)), "text": draw(words.filter(str.strip))}
    if defect == "entry_id_missing":
        fields["entry_id"] = draw(st.sampled_from(["", " ", "\t\n"]))
    elif defect == "entry_id_too_long":
        fields["entry_id"] = "e" * draw(st.integers(MAX_ENTRY_ID_CHARS + 1, MAX_ENTRY_ID_CHARS + 50))
    elif defect == "unknown_speaker":
        fields["speaker"] = draw(words.filter(lambda w: w.strip().lower() not in SPEAKER_ALIASES))
    elif defect == "unknown_kind":
        fields["kind"] = draw(words.filter(lambda w: w not in ENTRY_KINDS))
    elif defect == "empty_text":
        fields["text"] = draw(st.text(" \t\n\r", max_size=5))
    else:
        fields["text"] = draw(st.text("ab ", min_size=MAX_CHARS + 1, max_size=MAX_CHARS + 80).filter(str.strip))
    return defect, TranscriptEntry.model_construct(**fields)


@settings(max_examples=150, deadline=None)
@given(bad_entries())
def test_an_entry_wrong_in_one_way_is_refused_with_that_ways_code(case: tuple[str, TranscriptEntry]):
    defect, entry = case
    with pytest.raises(EntryError) as err:
        validate_entry(entry, MAX_CHARS)
    assert err.value.code == defect
    if defect == "too_long":
        assert err.value.params == {"length": len(entry.text), "limit": MAX_CHARS}
        assert f"is {len(entry.text)} characters; the limit is {MAX_CHARS} — split it" in str(err.value)
    if defect == "entry_id_too_long":
        assert err.value.params == {"length": len(entry.entry_id), "limit": MAX_ENTRY_ID_CHARS}
    said = refusal_text(_carrying(err.value), "ja")
    assert said is not None and said != str(err.value)          # every code reads in Japanese


@settings(max_examples=60, deadline=None)
@given(words.filter(lambda w: w.strip().lower() not in CONTROL_ACTIONS))
def test_an_unknown_control_action_is_refused_as_unknown(action: str):
    with pytest.raises(EntryError) as err:
        validate_action(action)
    assert err.value.code == entries.UNKNOWN_ACTION


def test_the_sessions_refusals_carry_their_codes():
    s = started()
    for query, code in ((AssistantQuery(query_id=" ", text="hi"), entries.QUERY_ID_MISSING),
                        (AssistantQuery(query_id="q1", text="  "), entries.QUERY_EMPTY),
                        (AssistantQuery(query_id="q1", text="x" * (MAX_ASSISTANT_QUERY_CHARS + 1)),
                         entries.QUERY_TOO_LONG)):
        with pytest.raises(EntryError) as err:
            s.check_assistant_query(query)
        assert err.value.code == code
    assert err.value.params == {"length": MAX_ASSISTANT_QUERY_CHARS + 1, "limit": MAX_ASSISTANT_QUERY_CHARS}
    s.accept_entry(at(1), TranscriptEntry(entry_id="a-2", speaker="interviewee", text="two", client_id="page",
                                          client_seq=2))
    with pytest.raises(EntryError) as err:
        s.check_entry(TranscriptEntry(entry_id="a-1", speaker="interviewee", text="one", client_id="page",
                                      client_seq=1))
    assert (err.value.code, err.value.params) == (entries.OUT_OF_ORDER, {"last": 2, "seq": 1})
    assert "is out of order" in str(err.value)
    s.control(at(2), "end")
    for check, code in ((lambda: s.check_entry(TranscriptEntry(entry_id="late", speaker="interviewee", text="x")),
                         entries.ENDED),
                        (lambda: s.check_control(SessionControl(action="pause")), entries.ENDED),
                        (lambda: s.check_assistant_query(AssistantQuery(query_id="q9", text="hi")),
                         entries.ASSISTANT_CLOSED)):
        with pytest.raises(EntryError) as err:
            check()
        assert err.value.code == code and "has ended" in str(err.value)


def test_an_error_without_a_known_code_keeps_the_english():
    class Failure(Exception):
        def __init__(self, *details: object) -> None:
            super().__init__("x")
            self.details, self.cause = details, None

    assert refusal_text(Failure({"code": "no-such-code"}), "ja") is None
    assert refusal_text(Failure("not a dict"), "ja") is None
    assert refusal_text(Failure({"code": entries.TOO_LONG}), "ja") is None        # its numbers are missing
    assert refusal_text(Failure({"code": entries.EMPTY_TEXT}), None) is None      # English asked for


def _carrying(err: EntryError) -> Exception:
    """What a caller gets: an error whose cause carries the details (as WorkflowUpdateFailedError's does)."""
    class Application(Exception):
        details = (err.details(),)

    outer = Exception("update failed")
    outer.cause = Application(str(err))  # type: ignore[attr-defined]
    return outer
