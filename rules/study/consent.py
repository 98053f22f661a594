"""Informed consent: the text a participant agrees to before their interview starts, per language, and its version
(the SHA-256 of the text, so the ledger says exactly which words were agreed to).

A study gives its own texts (`StudyInput.consent`, per language); without them the built-in texts below are used:
one for every language the pages have a catalog for (client/web/i18n.py PAGE_LANGUAGES; a test keeps them equal),
each saying the same four things — taking part, a pseudonym and this study only, stopping at any time, reading
back / correcting / withdrawing through the link until the study closes.
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
    "pt": "Concordo em participar desta entrevista de pesquisa. Minhas respostas são armazenadas sob um pseudônimo e "
          "analisadas somente para este estudo. Posso parar a qualquer momento e, até o encerramento do estudo, "
          "reler, corrigir ou retirar minhas respostas por meio deste link.",
    "it": "Accetto di partecipare a questa intervista di ricerca. Le mie risposte sono conservate sotto uno "
          "pseudonimo e analizzate solo per questo studio. Posso interrompere in qualsiasi momento e, fino alla "
          "chiusura dello studio, rileggere, correggere o ritirare le mie risposte tramite questo link.",
    "nl": "Ik ga ermee akkoord deel te nemen aan dit onderzoeksinterview. Mijn antwoorden worden onder een "
          "pseudoniem opgeslagen en alleen voor dit onderzoek geanalyseerd. Ik kan op elk moment stoppen en tot het "
          "onderzoek wordt afgesloten mijn antwoorden via deze link teruglezen, corrigeren of intrekken.",
    "ja": "私はこの研究インタビューに参加することに同意します。私の回答は仮名で保存され、この研究のためにのみ分析されます。"
          "私はいつでも中止することができ、研究が終了するまでは、このリンクから自分の回答を読み返し、訂正し、"
          "または撤回することができます。",
    "zh": "我同意参加本次研究访谈。我的回答以化名保存，并且仅为本研究进行分析。我可以随时停止；在研究结束之前，"
          "我可以通过此链接重新阅读、更正或撤回我的回答。",
    "ar": "أوافق على المشاركة في هذه المقابلة البحثية. تُحفَظ إجاباتي باسم مستعار وتُحلَّل لأغراض هذه الدراسة فقط. "
          "يمكنني التوقف في أي وقت، ويمكنني حتى إغلاق الدراسة أن أعيد قراءة إجاباتي أو أصحّحها أو أسحبها عبر هذا "
          "الرابط.",
    "hi": "मैं इस शोध साक्षात्कार में भाग लेने के लिए सहमत हूँ। मेरे उत्तर एक छद्म नाम से संग्रहीत किए जाते हैं और "
          "केवल इसी अध्ययन के लिए उनका विश्लेषण किया जाता है। मुझे किसी भी समय रुकने का अधिकार है, और अध्ययन बंद "
          "होने तक इस लिंक के माध्यम से अपने उत्तर दोबारा पढ़ने, सुधारने या वापस लेने का अधिकार है।",
    "sw": "Ninakubali kushiriki katika mahojiano haya ya utafiti. Majibu yangu yanahifadhiwa kwa jina bandia na "
          "kuchambuliwa kwa ajili ya utafiti huu pekee. Ninaweza kuacha wakati wowote, na hadi utafiti utakapofungwa "
          "ninaweza kusoma tena, kusahihisha au kuondoa majibu yangu kupitia kiungo hiki.",
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
