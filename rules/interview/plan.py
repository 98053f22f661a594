"""Plans: normalising the Planner's output, the default 003 schema, and the fallback plan."""

from __future__ import annotations

from models.interview import DimensionSpec, PlanSnapshot, QuestionSnapshot, SectionSnapshot

from .similarity import words

DEFAULT_FOLLOWUP_CAPS = (3, 4, 2, 1)          # 003 §12
DEFAULT_SECTION_SHARES = (10, 15, 15, 5)      # 003 §12 (minutes of 45)


def normalize_plan(plan: PlanSnapshot, mode: str) -> PlanSnapshot:
    """Unique section/question ids, sane priorities, structured sections with budgets and pools."""
    sections: list[SectionSnapshot] = []
    seen_sections: set[str] = set()
    seen_questions: set[str] = set()
    for i, s in enumerate(plan.sections, start=1):
        sid = s.id.strip() if s.id and s.id.strip() and s.id not in seen_sections else f"s{i}"
        seen_sections.add(sid)
        questions = []
        for j, q in enumerate(s.questions, start=1):
            qid = q.id.strip() if q.id and q.id.strip() and q.id not in seen_questions else f"{sid}-q{j}"
            seen_questions.add(qid)
            questions.append(q.model_copy(update={"id": qid, "priority": min(3, max(1, q.priority))}))
        update: dict = {"id": sid, "questions": questions}
        if mode == "structured":
            dims = s.required_dimensions or [DimensionSpec(name=s.title, keywords=sorted(words(s.title))[:4])]
            pool = {d.name: list(s.followup_pool.get(d.name) or [f"Could you say more about {d.name.lower()}?"])
                    for d in dims}
            update.update(required_dimensions=dims, followup_pool=pool,
                          primary_prompt=s.primary_prompt or (questions[0].text if questions else s.goal or s.title))
        sections.append(s.model_copy(update=update))
    return plan.model_copy(update={"sections": sections})


def scale_shares(total_seconds: int, shares: tuple[int, ...] = DEFAULT_SECTION_SHARES) -> list[int]:
    out = [int(total_seconds * s / sum(shares)) for s in shares]
    out[-1] += total_seconds - sum(out)
    return out


def default_plan(topic: str, context: str, mode: str, total_seconds: int) -> PlanSnapshot:
    """A deterministic plan derived from the topic: the Planner's fallback (and the offline demo's answer)."""
    t = topic.strip()
    if len(t) > 1 and t[0].isupper() and t[1].islower():
        t = t[0].lower() + t[1:]          # "Running on-call" reads "What drew you to running on-call"
    specs = [
        ("opening", f"Why {t} matters to you", "high",
         [(f"What first drew you to {t}, and why does it still matter to you?", 1),
          (f"What is at stake with {t} that most people miss?", 2)],
         [("stakes", ["matter", "stake", "important", "why"]), ("background", ["started", "first", "began", "years"])]),
        ("story", f"A defining experience with {t}", "high",
         [(f"Tell me about a specific moment when {t} went wrong for you. What happened?", 1),
          ("What did you change afterwards, and what did it cost you?", 2)],
         [("story", ["when", "happened", "time", "once"]), ("lesson", ["learned", "changed", "lesson", "afterwards"])]),
        ("tensions", f"Trade-offs and disagreements in {t}", "medium",
         [(f"Where do you disagree with the conventional wisdom about {t}?", 1),
          ("What trade-off do you make that others would not?", 2),
          (f"How would you measure whether {t} is working?", 3)],
         [("trade_offs", ["trade", "cost", "instead", "but"]), ("metrics", ["measure", "metric", "number", "percent"])]),
        ("reflection", "Looking back and ahead", "low",
         [(f"What is the one thing you wish more people understood about {t}?", 1),
          ("If you could go back and do one thing differently, what would it be?", 3)],
         [("reflection", ["wish", "differently", "understood", "advice"])]),
    ]
    durations = scale_shares(total_seconds) if mode == "structured" else [None] * len(specs)
    sections = []
    for n, (sid, title, importance, questions, dims) in enumerate(specs):
        qs = [QuestionSnapshot(id=f"{sid}-q{i}", text=text, priority=p,
                               notes_for_interviewer="Let them tell it their way; ask for one concrete example.")
              for i, (text, p) in enumerate(questions, start=1)]
        section = SectionSnapshot(id=sid, title=title, importance=importance, goal=title,  # type: ignore[arg-type]
                                  duration_seconds=durations[n], questions=qs)
        if mode == "structured":
            section.required_dimensions = [DimensionSpec(name=d, priority=i + 1, keywords=kw)
                                           for i, (d, kw) in enumerate(dims)]
            section.followup_pool = {d: [f"Can you give a concrete example of the {d.replace('_', ' ')}?",
                                         f"What would you add about the {d.replace('_', ' ')}?"] for d, _ in dims}
            section.followup_cap = DEFAULT_FOLLOWUP_CAPS[n]
            section.primary_prompt = qs[0].text
        sections.append(section)
    goal = f"Understand what {t} really looks like from the inside{': ' + context.strip()[:200] if context.strip() else ''}"
    return normalize_plan(PlanSnapshot(topic=topic.strip(), research_goal=goal,
                                       angle=f"The lived experience and hard-won opinions behind {t}",
                                       sections=sections), mode)


def follow_up_plan(base: PlanSnapshot, topic: str, summary: str, questions: list[str],
                   previous_session_id: str) -> PlanSnapshot:
    """000 follow-up: one focused section of starter questions, linked to the previous session."""
    qs = [QuestionSnapshot(id=f"fu-q{i}", text=q, priority=1 if i == 1 else 2)
          for i, q in enumerate(questions or [f"Let's go deeper on {topic}: where should we start?"], start=1)]
    section = SectionSnapshot(id="follow-up", title=topic, importance="high", goal=f"Go deeper on {topic}",
                              questions=qs)
    return PlanSnapshot(topic=topic, research_goal=base.research_goal if base else topic,
                        angle=base.angle if base else topic, sections=[section], is_follow_up=True,
                        previous_session_id=previous_session_id, follow_up_context=summary)
