"""Which voice speaks and which language is heard, from the participant's language (a BCP 47 tag such as
"en", "en-GB", "de", "pt-BR"). English is spoken by piper (the joe-us voice); every other language by
espeak-ng. Whisper is told the primary language subtag."""

from __future__ import annotations

import re
from dataclasses import dataclass

_TAG = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
#: espeak-ng voice names that differ from the lower-cased tag
ESPEAK_ALIASES = {"zh": "cmn", "zh-cn": "cmn", "zh-tw": "cmn", "pt": "pt", "pt-br": "pt-br", "en": "en-us",
                  "en-us": "en-us", "en-gb": "en-gb", "no": "nb"}


class LanguageError(ValueError):
    pass


@dataclass(frozen=True)
class Voice:
    engine: str       # "piper" | "espeak-ng"
    name: str         # the piper model or espeak-ng voice
    language: str     # the primary subtag (Whisper's language)


def primary(language: str) -> str:
    tag = (language or "en").strip()
    if not _TAG.match(tag):
        raise LanguageError(f"{language[:40]!r} is not a language tag (e.g. en, de, pt-BR)")
    return tag.replace("_", "-").split("-", 1)[0].lower()


def espeak_voice(language: str) -> str:
    tag = (language or "en").strip().replace("_", "-").lower()
    primary(tag)
    return ESPEAK_ALIASES.get(tag) or ESPEAK_ALIASES.get(primary(tag)) or primary(tag)


def voice_for(language: str, prefer: str | None = None) -> Voice:
    """piper for English (unless `prefer` is "espeak-ng"), espeak-ng otherwise."""
    lang = primary(language)
    if lang == "en" and prefer != "espeak-ng":
        return Voice("piper", "en_US-joe-medium", lang)
    return Voice("espeak-ng", espeak_voice(language), lang)
