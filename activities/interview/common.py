"""Helpers shared by the interview agents: transcript loading from the artifact store, prompt text."""

from __future__ import annotations

import json
from collections.abc import Sequence

from babel import Locale, UnknownLocaleError

from activities.artifacts import store
from models.common import ArtifactRef
from models.interview.activities import NoteTakerInput, OrchestratorInput
from models.interview.entries import TranscriptEntry, WindowLine
from models.interview.notes import NotesState
from rules.interview.entries import format_transcript
from rules.interview.notes import summary_text


def load_transcript(ref: ArtifactRef) -> list[TranscriptEntry]:
    """The full transcript (a JSON list of entries) the workflow saved with `interview_save_transcript`."""
    data = json.loads(store().get(ref))
    return [TranscriptEntry.model_validate(e) for e in data]


def read_entries(ref: ArtifactRef) -> list[TranscriptEntry]:
    """Entries from an archived part (JSON lines) or a saved transcript (a JSON list)."""
    text = store().get(ref)
    if text.lstrip().startswith("["):
        return [TranscriptEntry.model_validate(e) for e in json.loads(text)]
    return [TranscriptEntry.model_validate_json(line) for line in text.splitlines() if line.strip()]


def transcript_text(entries: Sequence[TranscriptEntry | WindowLine]) -> str:
    return format_transcript(entries) or "(nothing said yet)"


def entries_context(entries: Sequence[TranscriptEntry | WindowLine]) -> list[dict]:
    """Small structured view of a transcript for the offline responders (speaker + text)."""
    return [{"speaker": e.speaker, "text": e.text, "kind": e.kind} for e in entries]


def notes_text(inp: NoteTakerInput | OrchestratorInput) -> str:
    """The notes as the prompt shows them: sent as text by the workflow (inputs scheduled before that carry
    the whole notes)."""
    if inp.notes_text:
        return inp.notes_text
    return summary_text(inp.notes) if inp.notes is not None else summary_text(NotesState())


def language_label(code: str | None) -> str:
    """A language as the prompts name it: its English name, its own name and its code ('ja' → 'Japanese (日本語, ja)',
    'pt-BR' → 'Portuguese (Brazil) (português (Brasil), pt-BR)'); the code alone when CLDR does not know it; ''
    when none is set (the prompts then say nothing: English)."""
    code = (code or "").strip()
    if not code:
        return ""
    try:
        loc = Locale.parse(code.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return code
    english, own = loc.get_display_name("en"), loc.get_display_name(loc)
    if not english:
        return code
    return f"{english} ({code})" if not own or own == english else f"{english} ({own}, {code})"
