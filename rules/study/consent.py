"""Informed consent: the text a participant agrees to before their interview starts, per language, and its version
(the SHA-256 of the text, so the ledger says exactly which words were agreed to).

A study gives its own texts (`StudyInput.consent`, per language); without them the built-in texts below are used.
A language without a text of its own gets the study's default language's text (else English)."""

from __future__ import annotations

import hashlib

from models.study.workflow import ConsentGiven, StudyInput

BUILT_IN: dict[str, str] = {
    "en": "I agree to take part in this research interview. My answers are stored under a pseudonym and analysed "
          "for this study only. I may stop at any time, and until the study closes I may read back, correct or "
          "withdraw my answers through this link.",
    "de": "Ich bin einverstanden, an diesem Forschungsinterview teilzunehmen. Meine Antworten werden unter einem "
          "Pseudonym gespeichert und nur für diese Studie ausgewertet. Ich kann jederzeit aufhören und bis zum "
          "Ende der Studie meine Antworten über diesen Link nachlesen, korrigieren oder zurückziehen.",
    "fr": "J'accepte de participer à cet entretien de recherche. Mes réponses sont conservées sous un pseudonyme et "
          "analysées pour cette étude uniquement. Je peux arrêter à tout moment et, jusqu'à la clôture de l'étude, "
          "relire, corriger ou retirer mes réponses grâce à ce lien.",
    "es": "Acepto participar en esta entrevista de investigación. Mis respuestas se guardan bajo un seudónimo y se "
          "analizan solo para este estudio. Puedo parar en cualquier momento y, hasta que el estudio se cierre, "
          "releer, corregir o retirar mis respuestas mediante este enlace.",
}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def texts(inp: StudyInput) -> dict[str, str]:
    """language -> the consent text shown in it (the study's own, else the built-in ones)."""
    return dict(inp.consent) if inp.consent else dict(BUILT_IN)


def text_for(inp: StudyInput, language: str | None) -> tuple[str, str]:
    """(the language of the text shown, the text) for a participant's language."""
    return text_for_texts(texts(inp), language, inp.default_language)


def text_for_texts(all_texts: dict[str, str], language: str | None, default_language: str) -> tuple[str, str]:
    all_texts = all_texts or BUILT_IN
    for lang in (language, (language or "").split("-")[0], default_language, "en"):
        if lang and lang in all_texts:
            return lang, all_texts[lang]
    lang = next(iter(all_texts))
    return lang, all_texts[lang]


def consent_problem(inp: StudyInput, given: ConsentGiven | None) -> str | None:
    """Why this consent does not hold (None: it does)."""
    if given is None:
        return "consent is required: tick the consent box to start the interview"
    all_texts = texts(inp)
    if given.language not in all_texts:
        return f"there is no consent text in {given.language!r} for this study"
    if sha256(all_texts[given.language]) != given.sha256:
        return "the consent text has changed since the page was shown: reload the page and read it again"
    return None


def agreed(all_texts: dict[str, str], language: str | None, default_language: str = "en") -> ConsentGiven:
    """The consent a participant gives by ticking the box under the text shown to them in `language`."""
    lang, text = text_for_texts(all_texts, language, default_language)
    return ConsentGiven(language=lang, sha256=sha256(text))
