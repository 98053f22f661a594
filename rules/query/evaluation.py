"""Evaluator aggregation (§11.7) and the partial answer after the retry limit (§7.5)."""

from __future__ import annotations

from models.query import EvaluationFeedback, EvaluatorOutput, Gap, Verdict

DIMENSIONS = ("accuracy", "relevance", "safety", "completeness")


def aggregate_verdict(evaluation: EvaluatorOutput) -> tuple[bool, list[str]]:
    """PASS only if all four dimensions are present and PASS; any FAIL (or a missing dimension) → FAIL.
    The model's own overall_verdict is not trusted over its dimensions. Returns (passed, reasons)."""
    reasons: list[str] = []
    seen = {d.dimension: d for d in evaluation.dimensions}
    for name in DIMENSIONS:
        dim = seen.get(name)
        if dim is None:
            reasons.append(f"{name}: not evaluated")
        elif dim.verdict not in (Verdict.PASS, Verdict.SUFFICIENT):
            reasons.append(f"{name}: " + ("; ".join(dim.issues) or dim.reasoning or "failed"))
    if not reasons and evaluation.overall_verdict == Verdict.FAIL:
        reasons.append("overall: the evaluator failed the response")
    return (not reasons), reasons


def feedback_from(evaluation: EvaluatorOutput, reasons: list[str]) -> list[EvaluationFeedback]:
    """Specific feedback for the retry: the evaluator's own, else one item per failed dimension."""
    if evaluation.feedback:
        return list(evaluation.feedback)
    return [EvaluationFeedback(issue=r, suggestion="address this with evidence from the notes") for r in reasons]


def missing_items(gaps: list[Gap], feedback: list[EvaluationFeedback], declined: list[str] | None = None) -> list[str]:
    """Exactly what is missing, for the partial answer: critical gaps first, then evaluator issues."""
    items: list[str] = []
    for g in sorted(gaps, key=lambda g: g.severity != "critical"):
        text = g.description.strip()
        if g.severity != "critical":
            text += " (nice to have)"
        if text and text not in items:
            items.append(text)
    for f in feedback:
        text = f.issue.strip()
        if text and text not in items:
            items.append(text)
    for q in declined or []:
        text = f"your answer to: {q}"
        if text not in items:
            items.append(text)
    return items


def partial_response(response: str, missing: list[str]) -> str:
    """Make sure the partial answer states what is missing (the seed's two-part shape), whatever the model wrote."""
    body = response.strip()
    missing_lines = [m for m in missing if m.lower() not in body.lower()]
    if not missing_lines and "would need" in body.lower():
        return body
    if not body.lower().startswith("here's what i can tell you"):
        body = "Here's what I can tell you: " + body
    if missing:
        body += "\n\nTo provide a more complete answer, I would need:\n" + "\n".join(f"- {m}" for m in missing)
    return body
