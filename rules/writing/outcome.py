"""How a writing run ends: the final score, the score floor, the statuses a user sees, and which post may be
used when the orchestrator forces completion after a human rejected one.

Pure: models and stdlib only.
"""

from __future__ import annotations

from models.status import writing_status
from models.writing.workflow import AgentOutput, AuditScoreRow, Invocation

BELOW_FLOOR = "complete_below_floor"


def final_score(audit_scores: list[AuditScoreRow], analysis_score: float | None) -> float | None:
    """The final analysis' score when there is one; else the mean of the final audits of the LAST final-audit
    visit only (earlier visits audited an earlier post). Never a gate score; None when nothing scored the post."""
    if analysis_score is not None:
        return analysis_score
    finals = [a for a in audit_scores if a.kind == "final_audit"]
    if not finals:
        return None
    last = max(a.visit for a in finals)
    scores = [a.overall for a in finals if a.visit == last]
    return round(sum(scores) / len(scores), 2)


def floor_status(status: str, score: float | None, floor: float | None, approved: bool,
                 score_seen: bool = True) -> tuple[str, str | None]:
    """(status, reason) after the score floor: a complete run whose final score is below the floor ends
    `complete_below_floor` — unless a human approved the post knowing the score (a human decision is final; the
    reason still says the score is below the floor). A score that came after the approval (`score_seen` False:
    a final analysis after the human-approval state) was not part of the human's decision: the floor applies."""
    if status != "complete" or floor is None or score is None or score >= floor:
        return status, None
    below = f"final score {score:g}/10 is below the score floor {floor:g}"
    if approved and score_seen:
        return status, f"{below}; a human approved the post"
    return BELOW_FLOOR, below + (" (scored after a human approved the post)" if approved else "")


def score_seen_by_human(invocations: list[Invocation], approved_after: int) -> bool:
    """Whether the call that gave the final score (the last final analysis, else the last final audit) was
    recorded before the human's approval (`approved_after`: invocations recorded when the human approved)."""
    ok = [i for i in invocations if i.status == "success"]
    scoring = [i.seq for i in ok if i.task == "final_analysis"] or [i.seq for i in ok if i.task == "final_audit"]
    return not scoring or max(scoring) <= approved_after


def status_line(status: str, final_state: str, forced: bool = False) -> str:
    """The one-line outcome shown to the user, e.g. 'halted — ended at state 'halt'' — never 'complete in 'halt''.
    It starts with the shared status word (models/status.py: the run's ColloquyStatus); the writing run's own word
    follows in brackets where it says more."""
    words = {BELOW_FLOOR: "complete, but below the score floor", "waiting_approval": "waiting for approval",
             "forced": "forced — not approved, nothing published"}
    text = writing_status(status) + (f" ({words[status]})" if status in words else "")
    if forced and status != "forced":
        text += " (forced by the orchestrator)"
    return f"{text} — ended at state {final_state!r}"


def usable_post(chosen: AgentOutput | None, rejected: list[str]) -> AgentOutput | None:
    """A post the orchestrator may complete with: never one a human rejected."""
    if chosen is None or chosen.ref.name in rejected:
        return None
    return chosen
