"""Does an essay hold to what the interviewee said? Pure checks of one sentence at a time, shared by the Writer's
repair (rules/interview/essay_repair.py) and by anything that measures an essay (`measure`).

A sentence of a first-person essay in the interviewee's voice is rejected, with one reason, when it
- carries debris: template or JSON residue ("{{", '{"text":', "<|im_end|>", a fence), a prompt's echo ("Themes:",
  "Full transcript:"), "as an AI", or hardly any letters;
- carries speaker residue: "Interviewer:", "The Interviewer:", "Interviewee:", "Q:", "<name>:";
- prints a quote (any "…", “…”, «…», „…“, or a quote mark left open) that is not a run of the interviewee's exact
  words (rules/grounding.py `verbatim_span`: the interviewer's words are not the interviewee's quotes);
- narrates the interviewee in the third person: "she said", "he explains", "the interviewee", "according to
  her", "<their name> was …", "<their name>'s …" (a sentence the interviewee said word for word is their own);
- names someone the interviewee never named (a capitalised word, other than their own name as given, that they
  never said: "I'm Sarah" for Maya, "The Interviewer" residue aside);
- is not supported: no more than half of its content words were said by the interviewee (`supported`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from rules.grounding import Vocabulary, check_quote, clean_quote, supported, verbatim_span
from rules.stopwords import STOPWORDS, content_words, tokens

Reason = Literal["debris", "speaker_residue", "invented_quote", "third_person", "wrong_name", "unsupported"]
REASONS: tuple[Reason, ...] = ("debris", "speaker_residue", "invented_quote", "third_person", "wrong_name",
                               "unsupported")

_SPEECH = (r"(?:said|says|say|explained|explains|told|tells|recalled|recalls|noted|notes|described|describes|"
              r"added|adds|admitted|admits|continued|continues|remembered|remembers|believes|believed|argued|argues|"
              r"shared|shares|reflected|reflects|laughed|laughs|insisted|insists|mentioned|mentions|stated|states|"
              r"emphasi[sz]ed|emphasi[sz]es|pointed out|points out|went on|goes on|confessed|confesses|recounted|"
              r"recounts|observed|observes|acknowledged|acknowledges|thinks|thought|felt|feels|learned|learnt|"
              r"learns|knows|knew|wants|wanted)")
_REPORTING = _SPEECH[:-1] + r"|is|was|has|had|does|did|spent|spends|works|worked|became|becomes)"
_THIRD_PERSON = [re.compile(p, re.IGNORECASE) for p in (
    rf"\b(?:she|he)\s+(?:\w+ly\s+)?{_SPEECH}\b",
    r"\bthey\s+(?:\w+ly\s+)?(?:said|says|explained|explains|told|tells|recalled|recalls|described|describes|"
    r"admitted|admits|remembered|remembers|reflected|reflects|insisted|insists)\b",
    r"\bthe\s+(?:interviewee|interviewer|speaker|guest|subject|narrator|respondent|participant|author|engineer "
    r"we spoke to)\b",
    r"\baccording to (?:her|him|them)\b", r"\b(?:in|during|throughout) this (?:interview|conversation)\b",
    r"\bthe transcript\b",
    r"\b(?:her|his) (?:own )?(?:words|story|career|experience|journey|advice|perspective|answer)\b",
    # other languages: a few reporting forms and the words for "the interviewee"
    r"\b(?:elle|il)\s+(?:a dit|dit|explique|a expliqué|raconte|a raconté|se souvient)\b",
    r"\b(?:la personne interrogée|l['’]interviewée?|l['’]intervieweu?[rs]e?)\b",
    r"\b(?:sie|er)\s+(?:sagte|sagt|erklärte|erklärt|erzählte|erzählt|erinnert sich)\b",
    r"\b(?:der|die) (?:Befragte|Interviewte|Interviewer(?:in)?)\b",
    r"\b(?:ella|él)\s+(?:dijo|dice|explicó|explica|contó|cuenta|recuerda)\b",
    r"\b(?:la|el) entrevistad[oa]\b",
)]
_RESIDUE = [re.compile(p, re.IGNORECASE) for p in (
    r"(?:^|[\s*_(\[>])(?:the\s+)?(?:interviewer|interviewee|intervieweur|interviewte|entrevistador|entrevistad[oa]|"
    r"user|assistant|system|host|guest|moderator|narrator)\s*[*_]*\s*:",
    r"^[\s*_>-]*(?:q|a|question|answer|speaker\s*\d*|s\d+)\s*[*_]*\s*:",
    r"\[(?:interviewer|interviewee|speaker\s*\d*)\]",
)]
_DEBRIS = [re.compile(p, re.IGNORECASE) for p in (
    r"\{\{|\}\}|\{%|%\}|\$\{", r"<\|[^|>]{0,40}\|>", r"</?s>|\[/?INST\]|<<\s*/?SYS\s*>>", r"```|~~~",
    r"[\[{]\s*\"\w+\"\s*:", r"\"\w+\"\s*:\s*[\[{\"\d]", r"^\s*[\[{]\s*$|^\s*[\]}],?\s*$",
    r"\bas an ai\b|\blanguage model\b|\bi cannot (?:help|assist|write)\b|\bhere is (?:the|your|an) essay\b",
    r"^[\s*_#>-]*(?:topic|angle|speaker|analysis|title idea|claims|themes|tensions|quotes|full transcript|"
    r"research goal|notes|style|instructions?)\s*[*_]*\s*:",
    r"\[unverified quote|\(nothing said yet\)|\[offline test double\]|\blorem ipsum\b",
)]
# quoted spans: straight, curly, guillemets, German low-high
_QUOTE = re.compile(r"\"([^\"]*)\"|“([^”“\"]*)”|«([^»]*)»|„([^“”]*)[“”]")
_QUOTE_MARKS = "\"“”«»„"
_FIRST_PERSON = {
    "en": {"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves"},
    "fr": {"je", "j", "me", "moi", "mon", "ma", "mes", "nous", "notre", "nos"},
    "de": {"ich", "mich", "mir", "mein", "meine", "meinen", "meinem", "meiner", "wir", "uns", "unser", "unsere"},
    "es": {"yo", "me", "mi", "mis", "nosotros", "nosotras", "nuestro", "nuestra", "conmigo"},
}
MAX_TITLE_WORDS = 14
_CAPITALISED = re.compile(r"(?<![\w'’])([A-ZÀ-ÖØ-Þ][\w'’-]*)")


@dataclass(frozen=True)
class Speaker:
    """What the checks need about the interviewee: their answers, what they said, their name as given."""
    answers: tuple[str, ...]
    said: Vocabulary
    name_words: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, answers: Sequence[str], name: str = "") -> Speaker:
        generic = {"the", "interviewee", "speaker", "guest", "anonymous", "unknown"}
        words = frozenset(w for w in tokens(name) if w not in generic and len(w) > 1)
        return cls(tuple(answers), Vocabulary.of(answers), words)

    def first_person(self) -> set[str]:
        return _FIRST_PERSON.get(self.said.lang or "en", _FIRST_PERSON["en"])


def quotes_in(sentence: str) -> list[str]:
    """The quoted spans of a sentence (the text between each pair of quote marks)."""
    return [next(g for g in m.groups() if g is not None) for m in _QUOTE.finditer(sentence)]


def _unbalanced(sentence: str) -> bool:
    rest = _QUOTE.sub(" ", sentence)
    return any(c in rest for c in _QUOTE_MARKS)


def said_verbatim(sentence: str, who: Speaker) -> bool:
    """The whole sentence (quote marks and markdown emphasis aside) is a run of the interviewee's exact words."""
    text = clean_quote(sentence.strip(" *_>-"))
    return bool(text) and verbatim_span(text, who.answers)


def quote_failures(sentence: str, who: Speaker) -> list[str]:
    """The quoted spans of the sentence that are not the interviewee's exact words (an open quote mark: the rest of
    the sentence after it)."""
    bad = [q for q in quotes_in(sentence) if q.strip() and not verbatim_span(q, who.answers)]
    if _unbalanced(sentence):
        rest = _QUOTE.sub(" ", sentence)
        at = min(rest.index(c) for c in _QUOTE_MARKS if c in rest)
        bad.append(rest[at + 1:].strip() or "(an open quote mark)")
    return bad


def _third_person(sentence: str, who: Speaker) -> bool:
    if any(p.search(sentence) for p in _THIRD_PERSON):
        return True
    if not who.name_words:
        return False
    name = "|".join(re.escape(w) for w in sorted(who.name_words))
    return bool(re.search(rf"\b(?:{name})(?:['’]s\b|\s+(?:\w+ly\s+)?{_REPORTING}\b)", sentence, re.IGNORECASE))


def _wrong_name(sentence: str, who: Speaker) -> bool:
    """A capitalised word the interviewee never said and that is not their name (quotes, the sentence's first
    word and words after a colon or dash excepted — unless the first word is followed by a reporting verb)."""
    text = _QUOTE.sub(" ", sentence).lstrip(" *_>-#0123456789.)")
    stops = set().union(*STOPWORDS.values())
    for m in _CAPITALISED.finditer(text):
        word = tokens(m.group(1))
        if not word:
            continue
        w = word[0]
        if w in who.said.words or w in who.name_words or w in stops or len(w) < 2:
            continue
        before = text[:m.start()].rstrip(" *_")
        if not before:                                          # the first word: a name only before a verb
            after = text[m.end():]
            if re.match(rf"\s+(?:\w+ly\s+)?{_REPORTING}\b", after, re.IGNORECASE):
                return True
            continue
        if before[-1] in ":;—–-(\"“«„'‘" or before.endswith(("...", "…")):
            continue
        return True
    return False


def _debris(sentence: str) -> bool:
    if any(p.search(sentence) for p in _DEBRIS):
        return True
    letters = sum(c.isalpha() for c in sentence)
    return letters < 2 or letters < 0.5 * len(sentence.strip())


def _residue(sentence: str, who: Speaker) -> bool:
    if any(p.search(sentence) for p in _RESIDUE):
        return True
    if who.name_words:
        name = "|".join(re.escape(w) for w in sorted(who.name_words))
        return bool(re.match(rf"^[\s*_>-]*(?:(?:{name})\s*)+[*_]*\s*:", sentence, re.IGNORECASE))
    return False


def reject(sentence: str, who: Speaker, heading: bool = False) -> Reason | None:
    """Why this sentence does not hold to the transcript (None when it does). A heading is not checked for names
    (title case capitalises every word)."""
    if _debris(sentence):
        return "debris"
    if _residue(sentence, who):
        return "speaker_residue"
    if quote_failures(sentence, who):
        return "invented_quote"
    if said_verbatim(sentence, who):
        return None
    if _third_person(sentence, who):
        return "third_person"
    if not heading and _wrong_name(sentence, who):
        return "wrong_name"
    if not supported(sentence, who.said):
        return "unsupported"
    return None


def title_reject(title: str, who: Speaker) -> Reason | None:
    """A title may be the writer's own words (it is not a claim), but never debris, residue or third person; it is
    one short line (at most MAX_TITLE_WORDS words, no sentence break) and at least half of its content words were
    said by the interviewee ("A Life Among the Hives" for an on-call engineer is not their title)."""
    words = content_words(title, who.said.lang)
    if (not words or sum(w in who.said.stems for w in words) < 0.5 * len(words)
            or len(title.split()) > MAX_TITLE_WORDS or re.search(r"[.!?]\s+\S", title)):
        return "unsupported"
    if _debris(title):
        return "debris"
    if _residue(title, who):
        return "speaker_residue"
    if quote_failures(title, who):
        return "invented_quote"
    if _third_person(title, who):
        return "third_person"
    return None


def first_person(sentences: Sequence[str], who: Speaker) -> bool:
    """The voice is the interviewee's: no sentence narrates them in the third person, and some sentence says
    I / we (or the interviewee never does either)."""
    if any(_third_person(s, who) and not said_verbatim(s, who) for s in sentences):
        return False
    pronouns = who.first_person()
    if not any(w in pronouns for a in who.answers for w in tokens(a)):
        return True
    return any(w in pronouns for s in sentences for w in tokens(s))


@dataclass(frozen=True)
class Measure:
    """An essay's figures: quoted spans and how many are verbatim, sentences and how many are supported."""
    quotes: int
    quotes_verbatim: int
    sentences: int
    supported: int
    first_person: bool

    @property
    def quotes_verbatim_pct(self) -> float:
        return 100.0 if not self.quotes else 100.0 * self.quotes_verbatim / self.quotes

    @property
    def supported_pct(self) -> float:
        return 100.0 if not self.sentences else 100.0 * self.supported / self.sentences


def measure(sentences: Sequence[str], who: Speaker) -> Measure:
    """The figures of an essay's sentences (from rules/interview/essay_repair.py `essay_sentences`)."""
    spans = [q for s in sentences for q in quotes_in(s) if q.strip()]
    ok = sum(verbatim_span(q, who.answers) for q in spans)
    bad_open = sum(_unbalanced(s) for s in sentences)
    sup = sum(said_verbatim(s, who) or supported(s, who.said) for s in sentences)
    return Measure(len(spans) + bad_open, ok, len(sentences), sup, first_person(sentences, who))


__all__ = ["REASONS", "Measure", "Reason", "Speaker", "check_quote", "first_person", "measure", "quote_failures",
           "quotes_in", "reject", "said_verbatim", "title_reject"]
