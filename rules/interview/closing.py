"""What the interview engine says itself, in the interview's language: the closing question when no model chose one
(rules/interview/decisions.py), the request for a brief outline when an interviewee wants to move on too early, and
the assistant's "unavailable" answer. The same texts as the pages' catalogs (client/web/locale/*/LC_MESSAGES/
colloquy.po, the English text is the msgid; client/web/i18n.py marks them; a test keeps them equal). Pure data:
the interview workflow's sandbox reads it, never a file."""

from __future__ import annotations

ENGLISH = "Is there anything else you'd like to add that we haven't covered?"

CLOSING_QUESTIONS: dict[str, str] = {
    "en": ENGLISH,
    "es": "¿Hay algo más que quiera añadir y de lo que no hayamos hablado?",
    "fr": "Y a-t-il autre chose que vous aimeriez ajouter et dont nous n'avons pas parlé ?",
    "de": "Gibt es noch etwas, das Sie ergänzen möchten und über das wir noch nicht gesprochen haben?",
    "pt": "Há mais alguma coisa que você gostaria de acrescentar e que ainda não tenhamos abordado?",
    "it": "C'è altro che desidera aggiungere e di cui non abbiamo ancora parlato?",
    "nl": "Is er nog iets wat u wilt toevoegen en waar we het nog niet over hebben gehad?",
    "ja": "ほかに、まだお話ししていないことで付け加えたいことはありますか？",
    "zh": "还有什么我们没有谈到、而您想补充的吗？",
    "ar": "هل هناك أي شيء آخر تودّ إضافته ولم نتطرق إليه؟",
    "hi": "क्या आप कुछ और जोड़ना चाहेंगे जिसके बारे में हमने अभी तक बात नहीं की है?",
    "sw": "Je, kuna jambo jingine ungependa kuongeza ambalo hatujalizungumzia?",
}


def closing_question(language: str | None) -> str:
    """The closing question in a language (its base language's: 'pt-BR' → 'pt'); English when none is shipped."""
    code = (language or "en").strip()
    return CLOSING_QUESTIONS.get(code) or CLOSING_QUESTIONS.get(code.replace("_", "-").split("-")[0].lower(),
                                                                 ENGLISH)


MINIMUM_CONTENT_PROMPT = "Please provide a brief outline so we can proceed."
ASSISTANT_UNAVAILABLE = "The assistant is unavailable right now."

#: English text -> language -> the text in that language (every shipped catalog language: a test)
ENGINE_TEXTS: dict[str, dict[str, str]] = {
    MINIMUM_CONTENT_PROMPT: {
        "es": "¿Podría dar un breve resumen para que podamos continuar?",
        "fr": "Pourriez-vous donner un bref aperçu pour que nous puissions continuer ?",
        "de": "Könnten Sie kurz einen Überblick geben, damit wir weitermachen können?",
        "pt": "Você poderia dar um breve resumo para que possamos continuar?",
        "it": "Potrebbe dare una breve sintesi, così possiamo proseguire?",
        "nl": "Kunt u een korte schets geven, zodat we verder kunnen gaan?",
        "ja": "先に進めるよう、簡単な概要を教えていただけますか？",
        "zh": "您能简要概述一下，以便我们继续吗？",
        "ar": "هل يمكنك تقديم لمحة موجزة حتى نتمكن من المتابعة؟",
        "hi": "क्या आप एक संक्षिप्त रूपरेखा दे सकते हैं ताकि हम आगे बढ़ सकें?",
        "sw": "Je, unaweza kutoa muhtasari mfupi ili tuweze kuendelea?",
    },
    ASSISTANT_UNAVAILABLE: {
        "es": "El asistente no está disponible en este momento.",
        "fr": "L'assistant n'est pas disponible pour le moment.",
        "de": "Der Assistent ist gerade nicht verfügbar.",
        "pt": "O assistente não está disponível no momento.",
        "it": "L'assistente non è disponibile in questo momento.",
        "nl": "De assistent is op dit moment niet beschikbaar.",
        "ja": "アシスタントは現在ご利用いただけません。",
        "zh": "助手目前无法使用。",
        "ar": "المساعد غير متاح حاليًا.",
        "hi": "सहायक अभी उपलब्ध नहीं है।",
        "sw": "Msaidizi hapatikani kwa sasa.",
    },
}


def engine_text(english: str, language: str | None) -> str:
    """One of ENGINE_TEXTS in a language (its base language's: 'pt-BR' → 'pt'); the English text when none is
    shipped."""
    texts = ENGINE_TEXTS.get(english, {})
    code = (language or "en").strip()
    return texts.get(code) or texts.get(code.replace("_", "-").split("-")[0].lower(), english)
