"""Properties of the essay checks (rules/interview/essay_checks.py) and the Writer's repair
(rules/interview/essay_repair.py) under hostile model output: invented quotes and near misses, third person, wrong
names, speaker residue, JSON/template debris, other languages, empty and enormous essays, random text.

The property: whatever the model wrote, the repaired essay has 100 % verbatim quotes, a first-person voice and at
least 80 % of its sentences supported by the transcript, and every sentence of it is one the model wrote — or it
is the labelled extractive essay, made of the interviewee's own sentences."""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rules.grounding import verbatim_span
from rules.interview.essay_checks import Speaker, measure, quote_failures, reject
from rules.interview.essay_repair import EXTRACTIVE_LABEL, essay_sentences, repair_essay

SAID_EN = [
    "I have carried the pager for the payments team for six years.",
    "The worst nights were always settlement batches failing at three in the morning.",
    "We had no runbooks at first, so I wrote one for every alert.",
    "After that the pages dropped by half and people started sleeping again.",
    "My manager never understood why the rotation burned people out.",
    "Honestly, I still check the dashboards before breakfast.",
    "We moved the batch window to the afternoon and the failures became boring.",
]
SAID_FR = [
    "Je porte le bipeur de l'équipe paiements depuis six ans.",
    "Les pires nuits étaient toujours les lots de règlement qui échouaient à trois heures du matin.",
    "Nous n'avions aucune procédure, alors j'en ai écrit une pour chaque alerte.",
]
INVENTED = [
    "I'm a beekeeper for over two decades.",
    "Every spring I open the hives at dawn and count the queens.",
    "My grandmother taught me to bake sourdough bread in Lisbon.",
    "Rockets launch from the desert when the wind is calm.",
    "Je suis apicultrice depuis vingt ans et j'adore le miel.",
    "Ich habe zwanzig Jahre lang Bienen gehalten.",
]
DEBRIS = ['{"text": "the essay", "title": "x"}', "{{ transcript }}", "<|im_end|>", "```json", "Themes: pagers; sleep",
          "Full transcript:", "As an AI language model, I cannot write this.", "}", "[INST] write [/INST]", "---"]
RESIDUE = ["The Interviewer: ", "Interviewer: ", "Interviewee: ", "Q: ", "**Interviewer:** ", "Maya Chen: "]
THIRD = ["She explained that ", "He said that ", "The interviewee recalled that ", "According to her, ",
         "Maya explained that "]
NAMES = ["I'm Sarah, and ", "As Priya Patel, ", "My colleague Dmitri says "]


def _words(s: str) -> list[str]:
    return s.rstrip(".").split()


@st.composite
def transcripts(draw) -> list[str]:
    pool = draw(st.sampled_from([SAID_EN, SAID_EN, SAID_FR]))
    chosen = draw(st.lists(st.sampled_from(pool), min_size=0, max_size=len(pool), unique=True))
    return [" ".join(chosen[i:i + 2]) for i in range(0, len(chosen), 2)]


@st.composite
def hostile_sentence(draw, said: list[str], own_weight: int = 2) -> str:
    own = [s for a in said for s in a.replace("! ", ". ").split(". ")] or ["nothing"]
    sentence = draw(st.sampled_from(own)).rstrip(".") + "."
    words = _words(sentence)
    lo = draw(st.integers(0, max(0, len(words) - 2)))
    span = " ".join(words[lo:lo + draw(st.integers(2, 6))])
    kind = draw(st.sampled_from(["own"] * own_weight + ["quote", "invented", "invented_quote", "near_miss", "third", "name",
                                 "residue", "debris", "paraphrase", "random", "empty", "open_quote"]))
    if kind == "own":
        return sentence
    if kind == "quote":
        return f'I said "{span}" and meant it.'
    if kind == "invented":
        return draw(st.sampled_from(INVENTED))
    if kind == "invented_quote":
        return f'I always say "{draw(st.sampled_from(INVENTED)).rstrip(".")}" to new people.'
    if kind == "near_miss":
        changed = words[:]
        changed[lo] = "purple"
        return f'"{" ".join(changed)}."'
    if kind == "third":
        return draw(st.sampled_from(THIRD)) + sentence[0].lower() + sentence[1:]
    if kind == "name":
        return draw(st.sampled_from(NAMES)) + sentence[0].lower() + sentence[1:]
    if kind == "residue":
        return draw(st.sampled_from(RESIDUE)) + sentence
    if kind == "debris":
        return draw(st.sampled_from(DEBRIS))
    if kind == "paraphrase":
        return " ".join(draw(st.permutations(words))) + "."
    if kind == "open_quote":
        return f'And then I said "{span} and walked out.'
    if kind == "empty":
        return ""
    return draw(st.text(max_size=80))


@st.composite
def hostile_essays(draw, said: list[str]) -> str:
    own = draw(st.sampled_from([1, 8, 30]))          # how much of the essay is the person's own words
    paragraphs = draw(st.lists(st.lists(hostile_sentence(said, own), max_size=6),
                               max_size=draw(st.sampled_from([4, 40]))))
    title = draw(st.sampled_from(["# Six years of pages", "# The Interviewer: notes", '# {"title": "x"}', ""]))
    extra = draw(st.sampled_from(["", "## What I learned", "> " + (said[0] if said else "nothing"), "> invented",
                                  "- We had no runbooks at first", "1. The Interviewer: asked"]))
    body = "\n\n".join(" ".join(p) for p in paragraphs)
    return f"{title}\n\n{body}\n\n{extra}\n" if draw(st.booleans()) else f"{title}\n\n{extra}\n\n{body}"


def _flat(text: str) -> str:
    return " ".join(text.split())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_repaired_essay_holds_to_the_transcript_or_is_the_labelled_extractive_one(data):
    said = data.draw(transcripts())
    essay = data.draw(hostile_essays(said))
    who = Speaker.of(said, "Maya Chen")
    repaired = repair_essay(essay, who, "On call")
    sentences = essay_sentences(repaired.text)
    figures = measure(sentences, who)
    assert figures.quotes_verbatim_pct == 100.0
    assert repaired.written == repaired.kept + sum(repaired.dropped.values()) or repaired.extractive
    event("extractive" if repaired.extractive else "repaired" if repaired.dropped else "kept as written")
    if repaired.extractive:
        assert EXTRACTIVE_LABEL in repaired.text
        for s in sentences:                        # the interviewee's own sentences, or "nothing said yet"
            assert verbatim_span(s.strip('"'), said) or (not said or s.startswith("There was nothing said"))
        return
    assert figures.first_person and figures.supported_pct >= 80.0, (essay, repaired.text, figures)
    source = _flat(essay)
    for s in sentences:                            # nothing invented by the repair: every sentence is the model's
        assert _flat(s) in source, (s, essay)


@settings(max_examples=100, deadline=None)
@given(said=transcripts(), invented=st.sampled_from(INVENTED), wrapper=st.sampled_from(['"{}"', "“{}”", "«{}»",
                                                                                         "„{}“"]))
def test_an_invented_quote_never_passes(said, invented, wrapper):
    who = Speaker.of(said)
    sentence = "I told them " + wrapper.format(invented.rstrip(".")) + "."
    assert quote_failures(sentence, who) and reject(sentence, who) == "invented_quote"


@settings(max_examples=100, deadline=None)
@given(said=transcripts(), prefix=st.sampled_from(RESIDUE + THIRD), i=st.integers(0, 10))
def test_residue_and_third_person_never_pass_even_on_the_persons_own_words(said, prefix, i):
    if not said:
        return
    own = said[i % len(said)]
    assert reject(prefix + own[0].lower() + own[1:], Speaker.of(said, "Maya Chen")) is not None


def test_the_interviewers_words_are_not_the_interviewees_quotes():
    who = Speaker.of([SAID_EN[0]])
    assert reject('I remember "Tell me about the worst night you had on call".', who) == "invented_quote"


def test_an_empty_or_enormous_essay_is_the_labelled_extractive_one():
    who = Speaker.of(SAID_EN[:4])
    assert repair_essay("", who, "T").extractive
    huge = ("I'm a beekeeper for over two decades. " * 20_000)
    repaired = repair_essay(huge, who, "T")
    assert repaired.extractive and EXTRACTIVE_LABEL in repaired.text and "beekeeper" not in repaired.text


def test_the_persons_own_topics_are_not_taken_for_narration_or_debris():
    """Checks too eager to drop are a defect too: "the conversation with my manager" is the person's story, not
    narration about the interview."""
    who = Speaker.of(["I still remember the conversation with my manager about the pager rotation."])
    assert reject("I remember the conversation with my manager about the pager.", who) is None
    assert reject("In this interview I talk about the pager.", who) == "third_person"
