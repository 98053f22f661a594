"""Small stop-word lists (English, French, German, Spanish) and the content words of a text: what the grounding
checks compare when they ask whether a sentence is supported by what a person said (rules/grounding.py
`support`). The language is the one whose stop words cover most of the source text; a text in a language without
a list is compared word for word with no stop words removed (stricter, never looser).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_TOKEN = re.compile(r"\w+(?:['’]\w+)*", re.UNICODE)

STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset("""
a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing done down during each even ever every few for from further get gets got
had has have having he her here hers herself him himself his how however i if in into is it its itself just
let like lot lots me might more most much must my myself no nor not now of off often on once one only or other
our ours ourselves out over own quite rather really said same say says she should so some something still such
than that the their theirs them themselves then there these they thing things this those though through thus
to too under until up upon us very was way we well were what when where which while who whom whose why will
with within without would yet you your yours yourself yourselves isn aren wasn weren hasn haven hadn don doesn
didn won wouldn shan shouldn can cannot couldn mustn ll ve re im ive id youre thats theres its oh yeah yes ok
okay maybe kind sort actually basically going gonna want know think mean right back make made many
""".split()),
    "fr": frozenset("""
a au aux avec ce ces cet cette dans de des du elle elles en et être eu il ils je j la le les leur leurs lui
ma mais me mes moi mon même ne nos notre nous on ou où par pas pour qu que qui sa se ses son sur ta te tes toi
ton tu un une vos votre vous c d l n s t y été était étais avait avais ai as avons avez ont est sont suis es
sommes êtes fait faire plus très bien aussi alors donc comme si tout tous toute toutes cela ça ceci
""".split()),
    "de": frozenset("""
aber als also am an auch auf aus bei bin bis bist da damit dann das dass dem den der des die dies diese dieser
dieses doch du durch ein eine einem einen einer eines er es euch euer für hab habe haben hat hatte hatten hier
ich ihr ihre im in ist ja jede jeder jedes kann kein keine man mein meine mich mir mit muss nach nicht noch nun
nur ob oder ohne sehr sein seine sich sie sind so über um und uns unser unsere von vor war waren warst was weil
wenn wer wie wir wird wo zu zum zur schon immer mal gibt gab wurde wurden werden
""".split()),
    "es": frozenset("""
a al algo algunos ante antes como con contra cual cuando de del desde donde durante e el él ella ellas ellos
en entre era eran es esa esas ese eso esos esta estaba estado estar estas este esto estos fue fueron ha había
han hasta hay la las le les lo los me mi mis mucho muy más nada ni no nos nosotros o os otra otro para pero poco
por porque que quien se sea ser si sido sin sobre son su sus también tan te tengo tenía ti tiene todo todos tu
tus un una uno unos y ya yo
""".split()),
}

_SUFFIXES = ("ings", "ing", "edly", "ed", "ies", "es", "s", "ly")
STEM_CHARS = 6


def tokens(text: str) -> list[str]:
    """Lower-cased words; an apostrophe splits a word (wasn't → wasn, l'équipe → l équipe is not split: the part
    before the apostrophe is kept only when it is the longer one)."""
    out: list[str] = []
    for t in _TOKEN.findall(text):
        t = t.lower().replace("’", "'")
        if "'" in t:
            head, _, tail = t.partition("'")
            t = head if len(head) >= len(tail) else tail
        out.append(t)
    return out


def detect_language(texts: Iterable[str]) -> str | None:
    """The language whose stop words cover most of the words of `texts` (None when no list covers 15 %)."""
    words = [w for t in texts for w in tokens(t)][:5000]
    if not words:
        return None
    best, share = None, 0.15
    for lang, stops in STOPWORDS.items():
        s = sum(w in stops for w in words) / len(words)
        if s > share:
            best, share = lang, s
    return best


def stem(word: str) -> str:
    """A crude, language-neutral stem: a common English suffix removed (when 4 letters stay), then the first
    STEM_CHARS letters ("paging" and "paged" → "pag", "settlement" → "settle")."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    return word[:STEM_CHARS]


def content_words(text: str, lang: str | None) -> list[str]:
    """The stems of the words of `text` that are not stop words of `lang` (and not one- or two-letter words)."""
    stops = STOPWORDS.get(lang or "", frozenset())
    return [stem(w) for w in tokens(text) if w not in stops and len(w) > 2]
