"""Evaluator aggregation (§11.7) and the partial answer after the retry limit (§7.5)."""

from __future__ import annotations

from models.query.agents import EvaluatorOutput
from models.query.parts import EvaluationFeedback, Gap, Verdict

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


PLAIN_DIMENSIONS = {
    "accuracy": "every claim backed by an entry in your notes",
    "relevance": "an answer to exactly what you asked",
    "safety": "advice checked as safe for you",
    "completeness": "a complete answer to every part of the question",
}


def plain_reason(reason: str) -> str:
    """An evaluator reason in plain words: "completeness: not evaluated" → "a complete answer to every part of
    the question (this could not be checked)"; "accuracy: <issue>" → the issue itself."""
    text = reason.strip()
    head, sep, rest = text.partition(":")
    name = head.strip().lower()
    if not sep or name not in PLAIN_DIMENSIONS and name != "overall":
        return text
    rest = rest.strip()
    for prefix in (f"{name} issue:", f"{name}:"):
        if rest.lower().startswith(prefix):
            rest = rest[len(prefix):].strip()
    if name == "overall":
        return "an answer the final check accepts"
    if rest in ("", "not evaluated"):
        return f"{PLAIN_DIMENSIONS[name]} (this could not be checked)"
    if rest == "failed":
        return f"{PLAIN_DIMENSIONS[name]} (the check did not pass)"
    return rest[0].upper() + rest[1:]


def accumulate_feedback(seen: list[EvaluationFeedback], new: list[EvaluationFeedback]) -> list[EvaluationFeedback]:
    """Every evaluation's feedback, in order, without repeats (the final partial answer lists them all)."""
    out = list(seen)
    for f in new:
        if all(f.issue.strip() != x.issue.strip() for x in out):
            out.append(f)
    return out


def missing_items(gaps: list[Gap], feedback: list[EvaluationFeedback], declined: list[str] | None = None) -> list[str]:
    """Exactly what is missing, for the partial answer: critical gaps first, then evaluator issues (in plain
    words)."""
    items: list[str] = []
    for g in sorted(gaps, key=lambda g: g.severity != "critical"):
        text = g.description.strip()
        if g.severity != "critical":
            text += " (nice to have)"
        if text and text not in items:
            items.append(text)
    for f in feedback:
        text = plain_reason(f.issue)
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
