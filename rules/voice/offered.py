"""Which languages voice is offered in (issue 37): only where the speech model's measured error rate is at most
`THRESHOLD`; everywhere else the participant types (the room shows no microphone and says so).

The measurement is data, not an opinion: `python -m bench.voice --skip-latency --out FILE` has Whisper transcribe
the bench's held sentences per language (spoken by piper or espeak-ng) and writes a table — word error rate, or
character error rate for languages written without spaces (ja, zh: rules/voice/wer.py). The table shipped with the
code (`rules/voice/measured.json`) is Whisper *base*'s, the `local` profile's model. An operator who configures a
larger model (`COLLOQUY_WHISPER_DIR`) or the `config` profile measures it the same way and gives serve and the CLI
that table instead (`COLLOQUY_VOICE_MEASURED`, read by client/web/voice/offered.py).

A language is judged by its primary subtag ("pt-BR" by "pt") and by the best voice measured for it (the clearest
synthetic speech stands in for a person); a language the table does not measure is not offered.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rules.voice.voices import LanguageError, primary

#: the highest error rate at which voice is offered: about one word in five heard wrong, which a participant can
#: still correct in the answer box before it is sent (docs/voice.md, "Languages")
THRESHOLD = 0.20
METRICS = ("WER", "CER")
MAX_ROWS = 200


class MeasuredTableError(ValueError):
    """A measured table that cannot be used (the message says what is wrong with it)."""


@dataclass(frozen=True)
class Measured:
    language: str        # primary subtag
    voice: str           # what spoke the clips: "piper", "espeak-ng", ...
    metric: str          # "WER" | "CER"
    error_rate: float
    sentences: int


@dataclass(frozen=True)
class VoiceTable:
    model: str           # what heard the clips, e.g. "local: Whisper base (int8, faster-whisper)"
    command: str         # the command that measured it
    measured: str        # the date
    rows: tuple[Measured, ...]
    threshold: float = THRESHOLD

    def best(self, language: str) -> Measured | None:
        """The language's lowest measured error rate (any voice), or None when it was not measured."""
        try:
            lang = primary(language)
        except LanguageError:
            return None
        found = [r for r in self.rows if r.language == lang]
        return min(found, key=lambda r: r.error_rate) if found else None

    def offered(self, language: str) -> bool:
        best = self.best(language)
        return best is not None and best.error_rate <= self.threshold

    def offered_languages(self, languages: list[str]) -> list[str]:
        return [x for x in languages if self.offered(x)]

    def describe(self, language: str) -> str:
        """'offered (WER 0.06)', 'typing only (WER 0.35 > 0.20)' or 'typing only (not measured)'."""
        best = self.best(language)
        if best is None:
            return "typing only (not measured)"
        if best.error_rate <= self.threshold:
            return f"offered ({best.metric} {best.error_rate:.2f})"
        return f"typing only ({best.metric} {best.error_rate:.2f} > {self.threshold:.2f})"


def _text(value: Any, what: str, limit: int = 500) -> str:
    if not isinstance(value, str):
        raise MeasuredTableError(f"{what} must be text")
    return value[:limit]


def parse_table(data: Any, threshold: float = THRESHOLD) -> VoiceTable:
    """The table `bench.voice --out` writes (JSON, already decoded): {"model", "command", "measured", "rows": [{
    "language", "voice", "metric", "error_rate", "sentences", ...}]}; other keys are ignored."""
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise MeasuredTableError("not a measured table: expected an object with a list of \"rows\" "
                                 "(python -m bench.voice --skip-latency --out FILE writes one)")
    if len(data["rows"]) > MAX_ROWS:
        raise MeasuredTableError(f"{len(data['rows'])} rows: at most {MAX_ROWS}")
    rows = []
    for n, row in enumerate(data["rows"], 1):
        if not isinstance(row, dict):
            raise MeasuredTableError(f"row {n} is not an object")
        try:
            lang = primary(_text(row.get("language"), f"row {n}: language", 40))
        except LanguageError as exc:
            raise MeasuredTableError(f"row {n}: {exc}") from None
        metric = row.get("metric", "WER")
        if metric not in METRICS:
            raise MeasuredTableError(f"row {n} ({lang}): metric {str(metric)[:20]!r}: use WER or CER")
        rate, sentences = row.get("error_rate"), row.get("sentences")
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not math.isfinite(rate) or rate < 0:
            raise MeasuredTableError(f"row {n} ({lang}): error_rate must be a number ≥ 0")
        if isinstance(sentences, bool) or not isinstance(sentences, int) or sentences < 1:
            raise MeasuredTableError(f"row {n} ({lang}): sentences must be a whole number ≥ 1")
        rows.append(Measured(lang, _text(row.get("voice", "?"), f"row {n}: voice", 40), metric, float(rate),
                             sentences))
    return VoiceTable(model=_text(data.get("model", "?"), "model", 200),
                      command=_text(data.get("command", "?"), "command"),
                      measured=_text(data.get("measured", "?"), "measured", 40), rows=tuple(rows),
                      threshold=threshold)
