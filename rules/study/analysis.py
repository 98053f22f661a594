"""The pure half of the cross-interview analysis.

Map (per interview): `question_coverage` — which plan questions were asked (the interviewer's entry is the
question, or Jaccard > 0.6 with it, as the engine marks questions asked), answered (the interviewee said something
before the next question) and how deeply (by the words of the answer). The digest agent adds themes and quotes.

Reduce (all interviews): `reduce_digests` — theme titles mapped onto one catalogue (the theme-merge agent's
mapping), how many participants raised each, representative verbatim quotes (one per participant, at most
QUOTES_PER_THEME), positions per theme → disagreements (two or more positions, each held by two or more
participants) and minority views (held by at most MINORITY_SHARE of those who spoke on it), coverage per plan
question, and what the plan missed (topics raised outside it). Linear in the number of interviews.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from datetime import datetime

from models.interview.entries import TranscriptEntry
from models.interview.plan import PlanSnapshot
from models.study.activities import InterviewDigest, QuestionDepth
from models.study.workflow import (
    DEPTHS,
    Disagreement,
    FindingQuote,
    Findings,
    MinorityView,
    Missed,
    Position,
    QuestionCoverage,
    Theme,
)
from rules.interview.similarity import jaccard
from rules.study.ledger import add_coverage
from rules.study.words import plural

QUOTES_PER_THEME = 3
MINORITY_SHARE = 0.25
ASKED_JACCARD = 0.6
_LABEL = re.compile(r"^\[[^\]]{1,80}\]\s*")      # "[de — not translated: offline test double] " before a question


def depth_of(words: int) -> str:
    """none (no answer) · shallow (< 20 words) · adequate (< 60) · deep."""
    if words <= 0:
        return "none"
    return "shallow" if words < 20 else "adequate" if words < 60 else "deep"


def _same_question(asked: str, planned: str) -> bool:
    a, b = _LABEL.sub("", asked).strip(), _LABEL.sub("", planned).strip()
    return a == b or jaccard(a, b) > ASKED_JACCARD


def answered_questions(plan: PlanSnapshot, entries: list[TranscriptEntry]) -> tuple[set[str], dict[str, str]]:
    """(the plan questions asked, each answer's entry id -> the plan question it answers)."""
    questions = [(q.id, q.text) for sec in plan.sections for q in sec.questions]
    asked: set[str] = set()
    answers: dict[str, str] = {}
    current: str | None = None
    for e in entries:
        if e.speaker == "interviewer":
            current = next((qid for qid, text in questions if _same_question(e.text, text)), None)
            if current is not None:
                asked.add(current)
        elif e.speaker == "interviewee" and current is not None:
            answers[e.entry_id] = current
    return asked, answers


def question_coverage(plan: PlanSnapshot, entries: list[TranscriptEntry]) -> list[QuestionDepth]:
    rows = {q.id: QuestionDepth(question_id=q.id) for sec in plan.sections for q in sec.questions}
    asked, answers = answered_questions(plan, entries)
    for qid in asked:
        rows[qid].asked = True
    words: dict[str, int] = Counter()
    for e in entries:
        if e.entry_id in answers:
            words[answers[e.entry_id]] += len(e.text.split())
    for qid, n in words.items():
        rows[qid].answered = n > 0
        rows[qid].depth = depth_of(n)  # type: ignore[assignment]
    return list(rows.values())


def answers_of(entries: list[TranscriptEntry]) -> list[TranscriptEntry]:
    return [e for e in entries if e.speaker == "interviewee"]


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .!?;:")


def split_views(theme: Theme, quotes: Mapping[tuple[str, str], FindingQuote]) -> tuple[list[Disagreement],
                                                                                    list[MinorityView]]:
    """A theme's disagreement (two or more positions held by two or more people each) and its minority views
    (positions held by at most MINORITY_SHARE of those who took one, and fewer than the largest), with the quote
    kept for each (theme, position)."""
    disagreement = ([Disagreement(theme=theme.title, positions=theme.positions)]
                    if sum(1 for p in theme.positions if p.count >= 2) >= 2 else [])
    spoke = sum(p.count for p in theme.positions)
    views = [MinorityView(theme=theme.title, position=p.position, participants=p.participants, count=p.count,
                          quote=quotes.get((theme.title, p.position)))
             for p in theme.positions
             if len(theme.positions) >= 2 and p.count / spoke <= MINORITY_SHARE and p.count < theme.positions[0].count]
    return disagreement, views


def reduce_digests(study_id: str, topic: str, research_goal: str, analysis_language: str, plan: PlanSnapshot,
                   digests: list[InterviewDigest], mapping: dict[str, str], abandoned: int,
                   now: datetime | None = None) -> Findings:
    catalogue: dict[str, Theme] = {}
    positions: dict[str, dict[str, list[str]]] = {}
    position_quotes: dict[tuple[str, str], FindingQuote] = {}
    missed: dict[str, tuple[str, list[str]]] = {}
    coverage = {q.id: QuestionCoverage(question_id=q.id, section_id=sec.id, text=q.text)
                for sec in plan.sections for q in sec.questions}
    flagged: list[FindingQuote] = []
    languages: Counter[str] = Counter()
    for d in sorted(digests, key=lambda d: d.participant_id):
        languages[d.language] += 1
        flagged.extend(d.flagged_quotes)
        for row in d.coverage:
            if row.question_id in coverage:
                add_coverage(coverage[row.question_id], row)
        for t in d.themes:
            title = mapping.get(t.title, t.title).strip() or t.title
            theme = catalogue.setdefault(title, Theme(title=title, description=t.summary))
            if d.participant_id not in theme.participants:
                theme.participants.append(d.participant_id)
            quote = next(iter(t.quotes), None)
            fq = None if quote is None else FindingQuote(
                participant_id=d.participant_id, text=quote.text, language=d.language, translation=quote.translation,
                translation_note=d.translation_note if d.language != analysis_language else "",
                interview_id=d.interview_id, entry_id=quote.entry_id, corrected=quote.corrected)
            if fq is not None and len(theme.quotes) < QUOTES_PER_THEME and all(
                    q.participant_id != d.participant_id for q in theme.quotes):
                theme.quotes.append(fq)
            if t.stance.strip():
                key = _norm(t.stance)
                positions.setdefault(title, {}).setdefault(key, [])
                if d.participant_id not in positions[title][key]:
                    positions[title][key].append(d.participant_id)
                if fq is not None:
                    position_quotes.setdefault((title, key), fq)
        for topic_raised in d.not_in_plan:
            key = _norm(topic_raised)
            if key:
                label, ids = missed.setdefault(key, (topic_raised.strip(), []))
                if d.participant_id not in ids:
                    ids.append(d.participant_id)
    themes = sorted(catalogue.values(), key=lambda t: (-len(t.participants), t.title))
    disagreements: list[Disagreement] = []
    minority: list[MinorityView] = []
    for theme in themes:
        theme.count = len(theme.participants)
        held = positions.get(theme.title, {})
        theme.positions = sorted((Position(position=p, participants=ids, count=len(ids)) for p, ids in held.items()),
                                 key=lambda p: (-p.count, p.position))
        disagreement, views = split_views(theme, position_quotes)
        disagreements += disagreement
        minority += views
    for cov in coverage.values():
        for level in DEPTHS:
            cov.depth.setdefault(level, 0)
    plan_missed = sorted((Missed(topic=label, participants=ids, count=len(ids)) for label, ids in missed.values()),
                         key=lambda m: (-m.count, m.topic))
    return Findings(study_id=study_id, topic=topic, research_goal=research_goal, status="final",
                    analysis_language=analysis_language, completed=len(digests), abandoned=abandoned,
                    languages=dict(sorted(languages.items())), themes=themes, disagreements=disagreements,
                    minority_views=minority, coverage=list(coverage.values()), plan_missed=plan_missed,
                    flagged_quotes=flagged, as_of=now)


def outline(f: Findings, limit: int = 40) -> str:
    """The reduced findings as text for the synthesis agent (bounded: the top themes only)."""
    lines = [f"{plural(f.completed, 'completed interview')}, {f.abandoned} abandoned; languages: "
             + ", ".join(f"{k} {v}" for k, v in f.languages.items())]
    for t in f.themes[:limit]:
        lines.append(f"- theme {t.title!r}: {plural(t.count, 'participant')}" + "".join(
            f"; position {p.position!r} ({p.count})" for p in t.positions[:4]))
    for c in f.coverage:
        lines.append(f"- question {c.question_id} ({c.text[:80]}): asked {c.asked}/{c.interviews}, answered "
                     f"{c.answered}, deep {c.depth.get('deep', 0)}")
    for m in f.plan_missed[:limit]:
        lines.append(f"- raised outside the plan: {m.topic!r} ({m.count})")
    return "\n".join(lines)
