"""Choosing the next question without the Orchestrator: 000's fallback table and 003's bounded follow-ups."""

from __future__ import annotations

from models.interview.notes import NextQuestion, OrchestratorDecision
from models.interview.plan import PlanSnapshot, SectionSnapshot
from rules.interview.closing import ENGLISH, closing_question
from rules.interview.closing import MINIMUM_CONTENT_PROMPT as MINIMUM_CONTENT_PROMPT

from .coverage import coverage_satisfied

GENERIC_CLOSING_QUESTION = ENGLISH      # in the plan's language: rules/interview/closing.py


def fallback_decision(plan: PlanSnapshot, asked: set[str], phase: str) -> OrchestratorDecision:
    """000 createFallbackDecision: first unasked question P1 > P2 > P3 (plan order), then the generic closing."""
    for priority in (1, 2, 3):
        for section in plan.sections:
            for q in section.questions:
                if q.priority == priority and q.id not in asked:
                    return OrchestratorDecision(
                        phase=phase,  # type: ignore[arg-type]
                        next_question=NextQuestion(text=q.text, target_section_id=section.id, source="plan",
                                                   source_question_id=q.id),
                        interviewer_brief=q.notes_for_interviewer or "Ask it plainly, then listen.")
    return OrchestratorDecision(
        phase=phase,  # type: ignore[arg-type]
        next_question=NextQuestion(text=closing_question(plan.language), source="gap"),
        interviewer_brief="Every planned question has been asked: invite anything the interviewee wants to add.")


def select_followup(section: SectionSnapshot, flags: dict[str, str], used: list[str],
                    budget_remaining: int) -> tuple[str, str] | None:
    """003 §6.3, deterministic: uncovered dimensions first, then partially covered; within each, highest
    priority (lowest number) then schema order; the first unused question of that dimension's pool.
    None when the budget is spent, coverage is satisfied or the pools are exhausted."""
    if budget_remaining <= 0 or coverage_satisfied(flags):
        return None
    ordered = sorted(enumerate(section.required_dimensions), key=lambda p: (p[1].priority, p[0]))
    for wanted in ("not_covered", "partially_covered"):
        for _, dim in ordered:
            if flags.get(dim.name, "not_covered") != wanted:
                continue
            for question in section.followup_pool.get(dim.name, []):
                if question not in used:
                    return dim.name, question
    return None


def primary_prompt(section: SectionSnapshot) -> str:
    if section.primary_prompt:
        return section.primary_prompt
    if section.questions:
        return sorted(section.questions, key=lambda q: q.priority)[0].text
    return section.goal or section.title
