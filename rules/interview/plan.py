"""Plans: normalising the Planner's output, the default 003 schema, and the fallback plan."""

from __future__ import annotations

from collections.abc import Callable

from models.interview.plan import DimensionSpec, PlanSnapshot, QuestionSnapshot, SectionSnapshot

from .plan_texts import ENGLISH as ENGLISH_TEXTS
from .plan_texts import plan_texts
from .similarity import words

DEFAULT_FOLLOWUP_CAPS = (3, 4, 2, 1)          # 003 §12
DEFAULT_SECTION_SHARES = (10, 15, 15, 5)      # 003 §12 (minutes of 45)


def has_blank_question(plan: PlanSnapshot) -> bool:
    """Whether any question, follow-up or primary prompt of the plan has no words (a weak model writes these)."""
    return any(not q.text.strip() for s in plan.sections for q in s.questions) or any(
        not t.strip() for s in plan.sections for pool in s.followup_pool.values() for t in pool) or any(
        s.primary_prompt is not None and not s.primary_prompt.strip() for s in plan.sections)


def normalize_plan(plan: PlanSnapshot, mode: str, drop_blank: bool = False,
                   keep: Callable[[str], str | None] | None = None, worded: bool = False,
                   language: str | None = None) -> PlanSnapshot:
    """Unique section/question ids, sane priorities, structured sections with budgets and pools; with `drop_blank`,
    questions, follow-ups and primary prompts without words are left out (a blank question is never asked).

    `keep` (a model's plan): the text to ask for each question, follow-up and primary prompt, or None to leave it out
    (not a question, or answered in an earlier session). A structured section is then left with a prompt that `keep`
    takes (its own, its first question, its goal or title) or is dropped. With `keep` or `worded`, a dimension's
    default follow-up names it in words ("failure modes", not "failure_modes"), in `language` (the plan's own
    language wins; English when neither is set)."""
    sections: list[SectionSnapshot] = []
    seen_sections: set[str] = set()
    seen_questions: set[str] = set()
    for i, s in enumerate(plan.sections, start=1):
        sid = s.id.strip() if s.id and s.id.strip() and s.id not in seen_sections else f"s{i}"
        seen_sections.add(sid)
        questions = []
        kept = [q for q in s.questions if q.text.strip()] if drop_blank else s.questions
        if keep is not None:
            kept = [q.model_copy(update={"text": text}) for q in kept if (text := keep(q.text)) is not None]
        for j, q in enumerate(kept, start=1):
            qid = q.id.strip() if q.id and q.id.strip() and q.id not in seen_questions else f"{sid}-q{j}"
            seen_questions.add(qid)
            questions.append(q.model_copy(update={"id": qid, "priority": min(3, max(1, q.priority))}))
        update: dict = {"id": sid, "questions": questions}
        if mode == "structured":
            dims = s.required_dimensions or [DimensionSpec(name=s.title, keywords=sorted(words(s.title))[:4])]
            given = {name: [t for t in pool if t.strip()] if drop_blank else pool
                     for name, pool in s.followup_pool.items()}
            if keep is not None:
                given = {name: [k for t in pool if (k := keep(t)) is not None] for name, pool in given.items()}
            pool = {d.name: list(given.get(d.name) or _default_followups(d.name, keep, worded,
                                                                         plan.language or language)) for d in dims}
            prompt = None if drop_blank and s.primary_prompt is not None and not s.primary_prompt.strip() \
                else s.primary_prompt
            if keep is None:
                prompt = prompt or (questions[0].text if questions else s.goal or s.title)
            else:
                candidates = [prompt or "", *([questions[0].text] if questions else []), s.goal, s.title]
                prompt = next((k for t in candidates if t.strip() and (k := keep(t)) is not None), None)
                if prompt is None:
                    continue        # nothing in it to ask: a model's section with no question is left out
            update.update(required_dimensions=dims, followup_pool=pool, primary_prompt=prompt)
        sections.append(s.model_copy(update=update))
    return plan.model_copy(update={"sections": sections})


def _default_followups(dimension: str, keep: Callable[[str], str | None] | None, worded: bool,
                       language: str | None = None) -> list[str]:
    words_of = plan_texts(language)
    in_words = " ".join(dimension.replace("_", " ").split())
    if words_of is ENGLISH_TEXTS:
        if keep is None and not worded:
            return [f"Could you say more about {dimension.lower()}?"]
        text: str | None = f"Could you say more about {in_words.lower()}?"
    else:                                   # the dimension as the plan names it (no lower(): German nouns)
        text = words_of.more_about.format(d=in_words if keep is not None or worded else dimension)
    if keep is not None and text is not None:
        text = keep(text)
    return [text] if text is not None else []


def scale_shares(total_seconds: int, shares: tuple[int, ...] = DEFAULT_SECTION_SHARES) -> list[int]:
    out = [int(total_seconds * s / sum(shares)) for s in shares]
    out[-1] += total_seconds - sum(out)
    return out


_PRONOUNS = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself", "i'm": "you're",
             "i've": "you've", "i'd": "you'd", "i'll": "you'll", "am": "are", "we": "you", "us": "you", "our": "your",
             "ours": "yours", "ourselves": "yourselves", "we're": "you're", "we've": "you've"}


def topic_phrase(topic: str) -> str:
    """The topic as a phrase that fits inside a question put to the interviewee, whatever its phrasing: a title
    ("What on-call taught me"), a question ("Why did I leave Google?") or a noun phrase ("Running on-call").
    First person becomes second ("me" → "you"), a capital that only starts a sentence is lowered, the closing
    punctuation goes."""
    t = " ".join(topic.strip().split()).rstrip("?.!:;")
    out: list[str] = []
    for n, word in enumerate(t.split(" ")):
        core = word.strip("\"'“”‘’(),")
        key = core.lower()
        swap = _PRONOUNS.get(key)
        if key == "am" and not (out and out[-1].lower().endswith("you")):
            swap = None
        if swap is not None and (key != "us" or n > 0):
            word = word.replace(core, swap)
        elif n == 0 and len(core) > 1 and core[0].isupper() and core[1:].islower():
            word = word.replace(core, core[0].lower() + core[1:])
        out.append(word)
    return " ".join(out)


def default_plan(topic: str, context: str, mode: str, total_seconds: int,
                 language: str | None = None) -> PlanSnapshot:
    """A deterministic plan derived from the topic: the Planner's fallback (and the offline demo's answer), in the
    interview's language (rules/interview/plan_texts.py; English when it has none).

    The questions never make the topic the object of a verb ("What drew you to what on-call taught me"): they
    frame it ("When you think about what on-call taught you, ..."), so any phrasing of a topic reads well. In
    another language the topic is quoted as the person wrote it (the English phrase rewrite is English grammar)."""
    words_of = plan_texts(language)
    title = " ".join(topic.strip().split()).rstrip("?.!:;") or "this subject"
    if words_of is not ENGLISH_TEXTS:
        title = title.rstrip("？。！؟") or title
    t = (topic_phrase(topic) or "this subject") if words_of is ENGLISH_TEXTS else words_of.quote.format(t=title)
    opening, story, tensions, reflection = words_of.opening, words_of.story, words_of.tensions, words_of.reflection
    specs = [
        ("opening", words_of.titles[0], "high",
         [(opening[0].format(t=t), 1), (opening[1].format(t=t), 2)],
         [("stakes", ["matter", "stake", "important", "why"]), ("background", ["started", "first", "began", "years"])]),
        ("story", words_of.titles[1], "high",
         [(story[0].format(t=t), 1), (story[1], 2)],
         [("story", ["when", "happened", "time", "once"]), ("lesson", ["learned", "changed", "lesson", "afterwards"])]),
        ("tensions", words_of.titles[2], "medium",
         [(tensions[0].format(t=t), 1), (tensions[1], 2), (tensions[2], 3)],
         [("trade_offs", ["trade", "cost", "instead", "but"]), ("metrics", ["measure", "metric", "number", "percent"])]),
        ("reflection", words_of.titles[3], "low",
         [(reflection[0].format(t=t), 1), (reflection[1], 3)],
         [("reflection", ["wish", "differently", "understood", "advice"])]),
    ]
    durations = scale_shares(total_seconds) if mode == "structured" else [None] * len(specs)
    sections = []
    for n, (sid, section_title, importance, questions, dims) in enumerate(specs):
        qs = [QuestionSnapshot(id=f"{sid}-q{i}", text=text, priority=p,
                               notes_for_interviewer="Let them tell it their way; ask for one concrete example.")
              for i, (text, p) in enumerate(questions, start=1)]
        section = SectionSnapshot(id=sid, title=section_title, importance=importance, goal=section_title,  # type: ignore[arg-type]
                                  duration_seconds=durations[n], questions=qs)
        if mode == "structured":
            section.required_dimensions = [DimensionSpec(name=d, priority=i + 1, keywords=kw)
                                           for i, (d, kw) in enumerate(dims)]
            section.followup_pool = {d: [words_of.example.format(d=d.replace('_', ' ')),
                                         words_of.add.format(d=d.replace('_', ' '))] for d, _ in dims}
            section.followup_cap = DEFAULT_FOLLOWUP_CAPS[n]
            section.primary_prompt = qs[0].text
        sections.append(section)
    goal = f"Understand the lived experience behind “{title}”{': ' + context.strip()[:200] if context.strip() else ''}"
    return normalize_plan(PlanSnapshot(topic=topic.strip(), research_goal=goal,
                                       angle=f"The hard-won opinions behind “{title}”, in the interviewee's own words",
                                       sections=sections,
                                       language=None if words_of is ENGLISH_TEXTS else language), mode)


#: The one question of a plan whose every question was answered in an earlier session (a follow-up on a topic the
#: earlier session already went through).
LAST_RESORT_QUESTION = ENGLISH_TEXTS.last_resort


def last_resort_plan(plan: PlanSnapshot, mode: str, language: str | None = None) -> PlanSnapshot:
    """`plan` left with no question to ask: one section that asks LAST_RESORT_QUESTION (in the language)."""
    words_of = plan_texts(language)
    section = SectionSnapshot(id="more", title=words_of.more_title, importance="high", goal="Anything to add",
                              questions=[QuestionSnapshot(id="more-q1", text=words_of.last_resort, priority=1)])
    return normalize_plan(plan.model_copy(update={"sections": [section]}), mode)


def follow_up_plan(base: PlanSnapshot, topic: str, summary: str, questions: list[str],
                   previous_session_id: str) -> PlanSnapshot:
    """000 follow-up: one focused section of starter questions, linked to the previous session (with none, one
    opening question in the earlier plan's language)."""
    words_of = plan_texts(base.language if base else None)
    opener = words_of.go_deeper.format(t=topic if words_of is ENGLISH_TEXTS else words_of.quote.format(t=topic))
    qs = [QuestionSnapshot(id=f"fu-q{i}", text=q, priority=1 if i == 1 else 2)
          for i, q in enumerate(questions or [opener], start=1)]
    section = SectionSnapshot(id="follow-up", title=topic, importance="high", goal=f"Go deeper on {topic}",
                              questions=qs)
    return PlanSnapshot(topic=topic, research_goal=base.research_goal if base else topic,
                        angle=base.angle if base else topic, sections=[section], is_follow_up=True,
                        previous_session_id=previous_session_id, follow_up_context=summary,
                        language=base.language if base else None)   # the starter questions' (or opener's) language
