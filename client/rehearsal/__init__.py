"""Rehearsal material: personas (YAML) and transcript files (plain "Speaker: text" lines), and their loaders.

Pure Python (no Temporal, no I/O beyond reading the file you name), unit-tested in tests/unit/rehearsal/.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from activities.rehearsal.interviewee import Persona
from core.resources import resource_dir

DATA_DIR = resource_dir(__name__)  # package data (personas/*.yaml, transcripts/*.txt): see pyproject.toml
PERSONAS_DIR = DATA_DIR / "personas"
TRANSCRIPTS_DIR = DATA_DIR / "transcripts"
DEFAULT_TRANSCRIPT = TRANSCRIPTS_DIR / "oncall.txt"
DEFAULT_PERSONA = "maya"

#: Speaker names taken to be the interviewer when a transcript does not say (case-insensitive).
INTERVIEWER_NAMES = {"interviewer", "host", "q", "question", "ai", "interviewer_ai", "colloquy"}
MAX_LINE_CHARS = 20_000

_SPEAKER = re.compile(r"^(?P<speaker>[A-Za-z][\w .'\-]{0,40}?)\s*:\s*(?P<text>.*)$")


class RehearsalDataError(ValueError):
    """A transcript or persona file that cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Line:
    speaker: str
    text: str
    lineno: int


def parse_transcript(text: str, source: str = "transcript") -> list[Line]:
    """Parse plain "Speaker: text" lines. Indented/continuation lines join the previous line; blank lines and
    `#` comments are skipped."""
    lines: list[Line] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _SPEAKER.match(stripped) if not raw[:1].isspace() else None
        if match and match.group("text").strip():
            lines.append(Line(match.group("speaker").strip(), match.group("text").strip(), lineno))
        elif lines:
            prev = lines[-1]
            lines[-1] = Line(prev.speaker, f"{prev.text} {stripped}", prev.lineno)
        else:
            raise RehearsalDataError(f"{source}:{lineno}: expected 'Speaker: text', got {stripped[:60]!r}")
        if len(lines[-1].text) > MAX_LINE_CHARS:
            raise RehearsalDataError(f"{source}:{lineno}: a line of {len(lines[-1].text)} characters is over the "
                                     f"{MAX_LINE_CHARS}-character limit")
    if not lines:
        raise RehearsalDataError(f"{source}: no 'Speaker: text' lines found")
    return lines


def interviewer_speaker(lines: list[Line], interviewer: str | None = None) -> str:
    """Which speaker is the interviewer: the one named, else a conventional name, else the first speaker."""
    speakers = list(dict.fromkeys(line.speaker for line in lines))
    if interviewer:
        for s in speakers:
            if s.lower() == interviewer.lower():
                return s
        raise RehearsalDataError(f"no speaker named {interviewer!r} in the transcript (speakers: {', '.join(speakers)})")
    for s in speakers:
        if s.lower() in INTERVIEWER_NAMES:
            return s
    return speakers[0]


@dataclass(frozen=True)
class TranscriptScript:
    """The interviewee's answers from a transcript file, in order (consecutive lines merged into one turn)."""

    interviewee: str
    answers: list[str]
    questions: list[str]


def answers_from_transcript(text: str, source: str = "transcript", interviewer: str | None = None) -> TranscriptScript:
    lines = parse_transcript(text, source)
    host = interviewer_speaker(lines, interviewer)
    answers: list[str] = []
    questions: list[str] = []
    guest = ""
    previous = host
    for line in lines:
        if line.speaker == host:
            questions.append(line.text)
        else:
            guest = guest or line.speaker
            if previous != host and answers:
                answers[-1] = f"{answers[-1]} {line.text}"
            else:
                answers.append(line.text)
        previous = line.speaker
    if not answers:
        raise RehearsalDataError(f"{source}: only the interviewer ({host}) speaks; a rehearsal needs the "
                                 "interviewee's lines")
    return TranscriptScript(interviewee=guest, answers=answers, questions=questions)


def load_transcript(path: str | Path, interviewer: str | None = None) -> TranscriptScript:
    p = _resolve(path, TRANSCRIPTS_DIR, ".txt")
    return answers_from_transcript(p.read_text(encoding="utf-8"), str(p), interviewer)


def load_persona(name_or_path: str | Path) -> Persona:
    """A persona by name (client/rehearsal/personas/NAME.yaml) or by path to a YAML file."""
    p = _resolve(name_or_path, PERSONAS_DIR, ".yaml")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise RehearsalDataError(f"{p}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise RehearsalDataError(f"{p}: a persona is a mapping with at least `name`")
    try:
        return Persona.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise RehearsalDataError(f"{p}: invalid persona: {problems}") from None


def available_personas() -> list[str]:
    return sorted(p.stem for p in PERSONAS_DIR.glob("*.yaml"))


def _resolve(name_or_path: str | Path, folder: Path, suffix: str) -> Path:
    p = Path(name_or_path)
    candidates = [p, folder / p, folder / f"{p}{suffix}"]
    for c in candidates:
        if c.is_file():
            return c
    known = ", ".join(sorted(x.stem for x in folder.glob(f"*{suffix}")))
    raise RehearsalDataError(f"{name_or_path}: no such file (built-in {folder.name}: {known})")
