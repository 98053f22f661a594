"""The measured table in force (rules/voice/offered.py decides with it): the operator's own when
`COLLOQUY_VOICE_MEASURED` names one (a larger Whisper model or the `config` profile, measured with
`python -m bench.voice --skip-latency --out FILE`), else the one shipped for Whisper base
(`rules/voice/measured.json`). Read once per file; a file that cannot be used is a clear error (serve refuses to
start with it, `colloquy study create` says so)."""

from __future__ import annotations

import json
import os
from functools import lru_cache
from importlib import resources

from rules.voice.offered import MeasuredTableError, VoiceTable, parse_table

MEASURED_ENV = "COLLOQUY_VOICE_MEASURED"
SHIPPED = "measured.json"
MAX_BYTES = 1 << 20


@lru_cache(maxsize=4)
def _table(path: str) -> VoiceTable:
    where = path or f"rules/voice/{SHIPPED}"
    try:
        if path:
            with open(path, "rb") as f:
                raw = f.read(MAX_BYTES + 1)
        else:
            raw = resources.files("rules.voice").joinpath(SHIPPED).read_bytes()
    except OSError as exc:
        raise MeasuredTableError(f"{MEASURED_ENV}: cannot read {where}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise MeasuredTableError(f"{MEASURED_ENV}: {where} is over {MAX_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MeasuredTableError(f"{where} is not JSON: {exc}") from None
    try:
        return parse_table(data)
    except MeasuredTableError as exc:
        raise MeasuredTableError(f"{where}: {exc}") from None


def voice_table() -> VoiceTable:
    """The table in force (MeasuredTableError when the operator's file cannot be used)."""
    return _table(os.environ.get(MEASURED_ENV, "").strip())


def voice_offered(language: str | None) -> bool:
    return voice_table().offered(language or "en")


def table_source() -> str:
    given = os.environ.get(MEASURED_ENV, "").strip()
    return f"{MEASURED_ENV}={given}" if given else f"rules/voice/{SHIPPED}"


def voice_summary(languages: list[str]) -> dict[str, object]:
    """For the researcher's study page: voice per language (the page languages and the study's participants'),
    the threshold and where the measurement comes from."""
    table = voice_table()
    rows = [{"language": x, "offered": table.offered(x), "said": table.describe(x)} for x in dict.fromkeys(languages)]
    return {"threshold": table.threshold, "model": table.model, "measured": table.measured,
            "source": table_source(), "languages": rows}


def unmeasured_model() -> str | None:
    """A warning when the speech model in use is not the one the table in force measured: another Whisper folder
    (COLLOQUY_WHISPER_DIR) or the `config` profile with only the shipped Whisper base table."""
    if os.environ.get(MEASURED_ENV, "").strip():
        return None
    profile = os.environ.get("COLLOQUY_SPEECH_PROFILE", "").strip() or os.environ.get("COLLOQUY_PROFILE", "").strip()
    other = ("COLLOQUY_WHISPER_DIR" if os.environ.get("COLLOQUY_WHISPER_DIR", "").strip() and profile == "local"
             else "the config speech profile" if profile == "config" else None)
    if other is None:
        return None
    return (f"voice languages follow Whisper base's measurement, not the model of {other}: measure it with "
            f"`python -m bench.voice --skip-latency --out FILE` and set {MEASURED_ENV}=FILE (docs/voice.md)")
