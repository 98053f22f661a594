"""Transition decisions and retry guidance (§3, §14): which key a state's result maps to, and feedback that is
stored for the retried state and consumed once (the config is never mutated)."""

from __future__ import annotations

from models.writing.workflow import AgentOutput, AuditScoreRow

APPROVE_WORDS = {"approve", "approved", "yes", "y", "ok"}
ABORT_WORDS = {"abort", "cancel", "stop"}


def fan_out_outcome(succeeded: int, total: int) -> str:
    if total > 0 and succeeded == total:
        return "all_success"
    if succeeded > 0:
        return "partial_success"
    return "all_failure"


def store_guidance(pending: dict[str, str], target: str, text: str | None) -> None:
    """Keep feedback for the target's next run; several pieces for one target are joined, never lost."""
    text = (text or "").strip()
    if not text:
        return
    pending[target] = f"{pending[target]}\n\n{text}" if pending.get(target) else text


MAX_FEEDBACK_HISTORY_CHARS = 8_000


def feedback_history(items: list[str], max_chars: int = MAX_FEEDBACK_HISTORY_CHARS) -> str:
    """Every human rejection so far, oldest first, one paragraph each ('Human reviewer feedback: ...'), for the
    next synthesis. Bounded: past `max_chars` the oldest items are left out (and counted), never cut mid-item;
    the newest item is always kept (shortened to the bound when it alone is longer)."""
    paragraphs = [f"Human reviewer feedback: {text.strip()}" for text in items if text and text.strip()]
    kept: list[str] = []
    size = 0
    for paragraph in reversed(paragraphs):
        if kept and size + len(paragraph) + 2 > max_chars:
            break
        kept.insert(0, paragraph[:max_chars])
        size += len(kept[0]) + 2
    left_out = len(paragraphs) - len(kept)
    head = [f"({left_out} earlier feedback item(s) left out for length)"] if left_out else []
    return "\n\n".join(head + kept)


def take_guidance(pending: dict[str, str], state: str) -> str | None:
    """Consume the feedback stored for `state` (returned once, then gone)."""
    return pending.pop(state, None)


def normalise_approval(decision: str, feedback: str | None, *, free_text: bool = False,
                       strict_reject: bool = True) -> tuple[str, str | None]:
    """`approve` | `abort` | `feedback` (+ text). With `free_text` (the seed's interactive prompt) any other
    answer counts as feedback; otherwise an unknown decision is an error. `reject` without text is refused
    (it used to abort; `strict_reject=False` keeps that for runs started before the change).

    Raises ValueError with a message for the user when the answer is unusable."""
    word = (decision or "").strip()
    lowered = word.lower()
    text = (feedback or "").strip() or None
    if lowered in APPROVE_WORDS:
        return "approved", None
    if lowered in ABORT_WORDS or lowered == "reject" and not text and not strict_reject:
        return "abort", None
    if lowered in ("feedback", "reject", "revise"):
        if not text:
            if lowered == "reject":
                raise ValueError("reject needs feedback: say what the synthesis should change "
                                 "(reject --feedback TEXT), or abort to stop the run")
            raise ValueError("feedback needs text: say what the synthesis should change")
        return "feedback", text
    if not word:
        raise ValueError("empty approval decision: use approve, abort or feedback with text")
    if not free_text:
        raise ValueError(f"unknown approval decision {word[:40]!r}: use approve, abort or feedback (with text)")
    # free text answer, as in the seed's CLI prompt: anything else is feedback
    return "feedback", (f"{word}\n{text}" if text else word)


def best_output(outputs: dict[str, list[AgentOutput]], scores: list[AuditScoreRow],
                use_output: str | None = None) -> AgentOutput | None:
    """force_complete: the output the orchestrator named ('state/model' or file name), else the latest post,
    else the draft the cross-audits scored best (first on ties), else None."""
    flat = [o for group in outputs.values() for o in group]
    if use_output:
        wanted = use_output.strip()
        for o in flat:
            if wanted in (f"{o.state}/{o.model}", o.ref.name, o.model):
                return o
    posts = [o for o in flat if o.kind == "post"]
    if posts:
        return posts[-1]
    drafts = [o for o in flat if o.kind == "draft"]
    if not drafts:
        return None

    def score(o: AgentOutput) -> float:
        rows = [r.overall for r in scores if r.kind == "audit" and r.target == o.model]
        return sum(rows) / len(rows) if rows else 0.0

    return max(drafts, key=score)  # max keeps the first of equals


def approval_timer_summary(request_id: str, run_id: str, timeout_s: float | None) -> str:
    """The approval wait's timer as the Web UI names it: what it waits for, how to answer, what a timeout does."""
    wait = f"{timeout_s / 3600:g} h" if timeout_s and timeout_s >= 3600 else f"{timeout_s or 0:g} s"
    return (f"waiting up to {wait} for a human to approve, reject (with feedback) or abort {request_id}: "
            f"colloquy write approve|reject|abort {run_id}"[:400])
