"""The interviewer's closing question when no model chose one (rules/interview/decisions.py), in the plan's
language: the same texts as the pages' catalogs (client/web/locale/*/LC_MESSAGES/colloquy.po, msgid below; a test
keeps them equal). Pure data: the interview workflow's sandbox reads it, never a file."""

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
