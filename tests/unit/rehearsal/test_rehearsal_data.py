"""Rehearsal material: transcript parsing, interviewer detection, personas, and the client's small helpers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import typer

from activities.llm.offline import OfflineRequest
from activities.rehearsal.interviewee import Persona, fallback_answer, offline_answer
from client import rehearsal as data
from client.interview.cli import format_event, parse_duration
from models.interview.workflow import InterviewEvent


def test_parse_transcript_joins_continuations_and_skips_comments():
    lines = data.parse_transcript("# a comment\nHost: Hello there?\n\nDr. Ada: First part\n  second part\n"
                                  "Host: And then?\nDr. Ada: Done.\n")
    assert [(x.speaker, x.text) for x in lines] == [
        ("Host", "Hello there?"), ("Dr. Ada", "First part second part"), ("Host", "And then?"),
        ("Dr. Ada", "Done.")]
    assert lines[1].lineno == 4


def test_consecutive_interviewee_lines_are_one_answer_and_host_is_detected():
    script = data.answers_from_transcript("Maya: I start.\nInterviewer: Why?\nMaya: Because.\nMaya: Also this.\n")
    assert script.interviewee == "Maya"
    assert script.answers == ["I start.", "Because. Also this."]
    assert script.questions == ["Why?"]


def test_first_speaker_is_the_interviewer_when_no_conventional_name():
    script = data.answers_from_transcript("Ann: Question one?\nBob: Answer one.\nAnn: Two?\nBob: Answer two.")
    assert script.interviewee == "Bob" and script.answers == ["Answer one.", "Answer two."]
    named = data.answers_from_transcript("Ann: Hi.\nBob: Tell me?\nAnn: Sure.", interviewer="bob")
    assert named.answers == ["Hi.", "Sure."]


@pytest.mark.parametrize("text, message", [
    ("no speaker here\nA: b", "transcript:1: expected 'Speaker: text'"),
    ("", "no 'Speaker: text' lines"),
    ("# only comments\n\n", "no 'Speaker: text' lines"),
    ("Interviewer: one?\nInterviewer: two?", "only the interviewer (Interviewer) speaks"),
])
def test_unusable_transcripts_say_why(text, message):
    with pytest.raises(data.RehearsalDataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        data.answers_from_transcript(text)


def test_oversized_line_and_unknown_interviewer_are_rejected():
    with pytest.raises(data.RehearsalDataError, match="over the 20000-character limit"):
        data.parse_transcript("A: " + "x" * 20_001)
    with pytest.raises(data.RehearsalDataError, match="no speaker named 'Zed'"):
        data.answers_from_transcript("A: q?\nB: a.", interviewer="Zed")


def test_builtin_transcript_and_personas_load():
    script = data.load_transcript("oncall")
    assert script.interviewee == "Maya" and len(script.answers) == 7
    assert all(len(a) > 40 for a in script.answers)
    assert set(data.available_personas()) >= {"maya", "sam"}
    maya = data.load_persona("maya")
    assert maya.name == "Maya Okafor" and maya.stories and maya.opinions


def test_bad_persona_files_say_why(tmp_path):
    (tmp_path / "empty.yaml").write_text("- just a list\n")
    (tmp_path / "noname.yaml").write_text("role: someone\n")
    (tmp_path / "broken.yaml").write_text("name: [unclosed\n")
    with pytest.raises(data.RehearsalDataError, match="a persona is a mapping"):
        data.load_persona(tmp_path / "empty.yaml")
    with pytest.raises(data.RehearsalDataError, match="invalid persona: name: Field required"):
        data.load_persona(tmp_path / "noname.yaml")
    with pytest.raises(data.RehearsalDataError, match="not valid YAML"):
        data.load_persona(tmp_path / "broken.yaml")
    with pytest.raises(data.RehearsalDataError, match="no such file .*maya"):
        data.load_persona("nobody")


def test_fallback_answer_cycles_through_the_personas_material_deterministically():
    p = Persona(name="X", stories=["s1", "s2"], opinions=["o1"])
    assert [fallback_answer(p, t) for t in range(1, 5)] == ["s1", "s2", "o1", "s1"]
    assert "another way" in fallback_answer(Persona(name="Empty"), 3)


def test_offline_answer_uses_the_persona_and_the_question():
    p = Persona(name="X", stories=["We cut pages by seventy percent."])
    req = OfflineRequest(agent="rehearsal_interviewee", model="m", messages=[], schema=None,
                         context={"persona": p.model_dump(), "question": "What about alerting budgets?", "turn": 1})
    assert offline_answer(req) == {"answer": "On alerting and budgets: We cut pages by seventy percent."}
    assert offline_answer(OfflineRequest("rehearsal_interviewee", "m", [], None, {})) is None


@pytest.mark.parametrize("text, seconds", [("90", 90), ("90s", 90), ("6m", 360), ("1h30m", 5400), ("14:00", 840),
                                           ("1.5m", 90)])
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "5 minutes", "m5", "1x"])
def test_parse_duration_rejects_nonsense(text):
    with pytest.raises(typer.BadParameter, match="is not a duration"):
        parse_duration(text)


def test_format_event_is_one_readable_line():
    ev = InterviewEvent(event_id=7, timestamp=datetime(2026, 1, 1, 12, 0, 5, tzinfo=UTC), actor="candidate",
                        type="CANDIDATE_MESSAGE", section_id="s1",
                        payload={"entry_id": "a1", "text": "x" * 200, "late": False, "empty": ""})
    line = format_event(ev)
    assert line.startswith("12:00:05 #7    candidate      CANDIDATE_MESSAGE [s1]  entry_id=a1, text=xxx")
    assert line.endswith("…, late=False") and "empty" not in line and "\n" not in line
