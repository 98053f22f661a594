"""The interviewer instructions markdown, exactly in 000's format (what a voice or text front end reads)."""

from __future__ import annotations

from models.interview.notes import NotesState, OrchestratorDecision, ResearchItem
from models.interview.plan import PlanSnapshot


def follow_up_preamble(plan: PlanSnapshot) -> str:
    return (
        "**IMPORTANT: This is a FOLLOW-UP conversation.**\n\n"
        "In the previous session, you discussed:\n"
        f"{plan.follow_up_context or '(see the previous session)'}\n\n"
        "This follow-up focuses on:\n"
        f"{plan.topic}\n\n"
        "Do NOT re-ask questions already thoroughly covered. Instead:\n"
        "- Go deeper on partially explored threads\n"
        "- Explore new angles on familiar topics\n"
        "- Draw connections between ideas from both sessions\n"
    )


def interviewer_instructions(decision: OrchestratorDecision, notes: NotesState, research: list[ResearchItem],
                             plan: PlanSnapshot | None = None, limit: int = 3) -> str:
    parts: list[str] = []
    if plan is not None and plan.is_follow_up:
        parts.append(follow_up_preamble(plan))
    parts.append(f"## Current Phase: {decision.phase.upper()}")
    parts.append(f"## Next Question to Ask\n{decision.next_question.text}")
    parts.append(f"## How to Ask It\n{decision.interviewer_brief or 'Ask it naturally and listen.'}")
    top = sorted(research, key=lambda r: r.priority)[:limit]
    if top:
        parts.append("## Research Context\n" + "\n".join(f"- **{r.topic}**: {r.summary}" for r in top))
    if notes.gaps:
        parts.append("## Gaps to Explore (if natural)\n" + "\n".join(f"- {g.description}"
                                                                     for g in notes.gaps[-limit:]))
    if notes.contradictions:
        parts.append("## Contradictions to Clarify\n" + "\n".join(f"- {c.description}"
                                                                  for c in notes.contradictions[-limit:]))
    return "\n\n".join(parts) + "\n"


def status_instructions(status: str, reason: str | None = None) -> str:
    """What the front end shows when there is no question to ask (paused, finished)."""
    if status == "PAUSED":
        return "## Session Paused\nThe clock keeps running. Reconnect (or resume) to continue where you left off.\n"
    if status in ("COMPLETED", "TERMINATED", "FINALIZING"):
        return f"## Interview Over\nThe interview has ended ({reason or status.lower()}). Thank the interviewee.\n"
    return "## Preparing\nThe interview plan is being prepared.\n"
