"""What a study's languages get (issue 37, honest coverage), printed by `colloquy study create`:

    pages        the join, consent, room (voice controls included), read-back and error pages: a message catalog
                 of client/web/locale/ (client/web/i18n.py), else English, marked lang="en", saying so
    consent      the study's own text (--consent LANG=FILE) or a built-in one (rules/study/consent.py), else the
                 default language's text, shown as such
    interviewer  the plan's language, or the plan translated by the study's Translator model
    voice        offered only where the measured error rate of the speech model is at most 0.20 (WER; CER for ja
                 and zh: rules/voice/offered.py, the table client/web/voice/offered.py reads), else typing only;
                 where offered, heard by Whisper and spoken by piper (English) or espeak-ng (a synthetic voice)

A study may list only languages with a page catalog unless the researcher accepts English pages for the others
(`--english-pages`): `unsupported_pages` names them.
"""

from __future__ import annotations

from client.web.i18n import PAGE_LANGUAGES, has_catalog
from client.web.voice.offered import table_source, unmeasured_model, voice_table
from rules.study.consent import BUILT_IN
from rules.voice.voices import LanguageError, voice_for


def study_languages(default_language: str, languages: list[str]) -> list[str]:
    """The languages a participant may get: the study's list (with its default language), else the default language
    and every language with a page catalog (the join page offers those)."""
    return list(dict.fromkeys([default_language, *(languages or PAGE_LANGUAGES)]))


def unsupported_pages(default_language: str, languages: list[str]) -> list[str]:
    return [x for x in dict.fromkeys([default_language, *languages]) if not has_catalog(x)]


def _voice(language: str) -> str:
    """'offered (WER 0.06): spoken by piper' or 'typing only (WER 0.35 > 0.20)' (the measured table in force)."""
    try:
        v = voice_for(language)
    except LanguageError:
        return "typing only (not a language tag)"
    said = voice_table().describe(language)
    if not said.startswith("offered"):
        return said
    return f"{said}: spoken by {v.engine}" + (" (synthetic)" if v.engine == "espeak-ng" else "")


def voice_note() -> str:
    """Where the voice column comes from, and how another model's measurement is given."""
    table = voice_table()
    return (f"voice: offered where the measured error rate is at most {table.threshold:.2f} ({table_source()}: "
            f"{table.model}, {table.measured}); " + (unmeasured_model() or "another model's own measurement: "
                                                     "COLLOQUY_VOICE_MEASURED (docs/voice.md)"))


def coverage_lines(default_language: str, languages: list[str], consent_languages: list[str]) -> list[str]:
    """One line per language: pages, consent, interviewer, voice."""
    consent = consent_languages or list(BUILT_IN)
    lines = [f"{'language':<10} {'pages':<26} {'consent':<22} {'interviewer':<26} voice"]
    for lang in study_languages(default_language, languages):
        base = lang.split("-")[0].lower()
        pages = "translated" if has_catalog(lang) else "English (--english-pages)"
        if lang in consent or base in consent:
            text = "its own text" if consent_languages else "built-in text"
        else:
            fallback = default_language if default_language in consent else "en"
            text = f"shown in {fallback}"
        interviewer = "the plan's language" if lang == default_language else "plan translated by model"
        lines.append(f"{lang:<10} {pages:<26} {text:<22} {interviewer:<26} {_voice(lang)}")
    if not languages:
        lines.append("(no --languages: a participant chooses among these on the join page)")
    lines.append(voice_note())
    return lines
