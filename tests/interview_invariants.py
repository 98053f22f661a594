"""The interview engine's promises (seeds 000 and 003) as named, executable invariants.

Each invariant is one function that raises `InvariantBroken(name, detail)`. They are checked
- over the pure `Session` after every step of generated sequences (tests/unit/interview/test_session_machine.py), and
- over the 003 event log of real runs on the time-skipping server, with continue-as-new at random points
  (tests/workflows/interview/test_generated_scenarios.py: the log-only ones, `check_event_log`).
docs/interview.md lists them, one line each.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from models.interview.entries import TranscriptEntry
from models.interview.workflow import InterviewEvent
from rules.interview.question_text import is_askable
from rules.interview.questions import normalized

INVARIANTS: dict[str, str] = {
    "entries-once-in-order": "every accepted entry appears exactly once, numbered 1..n in the order accepted; a "
                             "repeated entry id changes nothing",
    "question-stays-until-answered": "a question in force that an interviewer entry asked changes only on an answer, "
                                     "a section end, a skip the person asked for, or the end",
    "asked-only-when-asked": "a plan question is counted as asked only when an interviewer entry asked it: the "
                             "engine's own, recorded when it put the question in force, or a person's",
    "no-repeated-question": "the engine never presents the same question twice in a row without an answer in between, "
                            "and never presents again a question already answered (adaptive)",
    "no-blank-question": "every question the engine puts in force has words (a blank plan question, follow-up or "
                         "Orchestrator proposal is never presented)",
    "shown-text-is-a-question": "every text the engine puts in front of the interviewee is a question "
                                "(rules/interview/question_text.py: no template residue, no instruction to the "
                                "interviewer, bounded, it asks; the closing line in the wrap-up thanks), whatever a "
                                "model wrote: what is not gives way to the plan's; a person's own plan is theirs",
    "no-reask-across-sessions": "a follow-up never puts in force a question answered in an earlier session of the "
                                "same interview",
    "one-answer-one-decision": "the parts of one answer (numbered, or `X`, `X-2`, … as open rooms send them) are one "
                               "answer: while more parts are due the engine asks for no decision, and a later part is "
                               "filed with its answer and never answers, nor changes, the question in force",
    "attributed-to-the-question-seen": "an answer stamped with the question on screen when the person began it is "
                                       "filed with that question (late to the previous section within the grace), and "
                                       "an answer to an earlier question never displaces the question in force",
    "decision-within-bound": "when no decision came within decision_deadline_seconds of an answer, the fallback's "
                             "question is in force (nobody waits on the model), each such fallback is counted in the "
                             "event log and the state, and the late decision never replaces an unanswered question",
    "no-timer-fires-for-nothing": "a decision-deadline timer fires only for a decision that did not come in time "
                                  "(each fire is a DECISION_SLOW in the event log): a decision in time cancels it, so "
                                  "no answer wakes the workflow a second time 8 s later (issue 40)",
    "clock-never-past-twice": "after the clock looked at `now`, nothing is due at or before `now` (no timer for a "
                              "moment already past)",
    "ends-in-time": "every interview has ended once its duration plus the late grace has passed on the clock",
    "coverage-only-rises": "a section's coverage flags never go down",
    "exit-reasons-set": "an ended interview has an exit reason, and so has every one of its sections; sections never "
                        "started are not_reached",
    "ended-is-final": "after the end no entry, control or timer changes the transcript or the status",
    "summaries-see-every-answer": "a section summary is asked for once nothing more can join that section, with every "
                                  "interviewee entry of the section",
    "carried-state-is-the-state": "continue-as-new at any moment carries the session unchanged (same view, same "
                                  "question, same clock), and an ended session is never live again",
    "carried-state-bounded": "however long the interview and however large the agents' answers, the notes and research "
                             "the session holds stay within their byte budgets (rules/interview/budget.py), so the "
                             "carried state fits its input limit",
}

RANK = {"not_covered": 0, "partially_covered": 1, "covered": 2}
PRESENTED = ("PROMPT_PRESENTED", "FOLLOWUP_PRESENTED")
ENTRY_TYPES = ("CANDIDATE_MESSAGE", "CANDIDATE_CODE_SUBMISSION", "INTERVIEWER_MESSAGE")


def is_entry(e: InterviewEvent) -> bool:
    """An event that records a transcript entry: a client's, or a question the engine put in force and recorded as
    the interviewer's entry (its presentation event carries the entry's id and number: one event, one id)."""
    return e.type in ENTRY_TYPES or e.type in PRESENTED and "entry_id" in e.payload


class InvariantBroken(AssertionError):
    def __init__(self, name: str, detail: str) -> None:
        assert name in INVARIANTS, name
        super().__init__(f"[{name}] {INVARIANTS[name]} — broken: {detail}")
        self.name = name


def require(ok: Any, name: str, detail: str) -> None:
    if not ok:
        raise InvariantBroken(name, detail)


# ------------------------------------------------------------------------------------------- event-log checks
def check_event_log(events: Sequence[InterviewEvent], *, mode: str, given: Collection[str] = (),
                    answered_before: Collection[str] = ()) -> None:
    """The invariants that the 003 event log alone can show (any run, any number of continue-as-new). `given`: the
    texts of a plan the person gave (theirs to word); `answered_before`: the questions an earlier session of the
    interview asked and got an answer to (normalised)."""
    ids = [e.event_id for e in events]
    require(ids == sorted(ids) and len(set(ids)) == len(ids), "entries-once-in-order",
            f"event ids not strictly increasing: {ids[:20]}…")
    entries = [e for e in events if is_entry(e)]
    seqs = [e.payload.get("seq") for e in entries]
    require(seqs == list(range(1, len(seqs) + 1)), "entries-once-in-order", f"entry numbers {seqs[:30]}")
    entry_ids = [e.payload.get("entry_id") for e in entries]
    require(len(set(entry_ids)) == len(entry_ids), "entries-once-in-order", "an entry id was recorded twice")
    check_presentations(events, mode=mode, given=given, answered_before=answered_before)
    slow = [int(e.payload.get("count") or 0) for e in events if e.type == "DECISION_SLOW"]
    require(not slow or slow == list(range(slow[0], slow[0] + len(slow))), "decision-within-bound",
            f"the slow decisions are not counted one by one: {slow[:20]}")
    check_coverage_events(events)
    ends = [e for e in events if e.type in ("INTERVIEW_COMPLETED", "INTERVIEW_TERMINATED")]
    require(len(ends) <= 1, "ended-is-final", f"{len(ends)} end events")
    if ends:
        after = [e.type for e in events if e.event_id > ends[0].event_id]
        require(not any(t in ENTRY_TYPES or t in PRESENTED or t == "SECTION_STARTED" for t in after),
                "ended-is-final", f"after the end: {after}")


def check_presentations(events: Iterable[InterviewEvent], *, mode: str, given: Collection[str] = (),
                        answered_before: Collection[str] = ()) -> None:
    events = list(events)
    closing = {e.payload.get("entry_id") for e in events if e.type == "CLOSING_DETECTED"} - {None}
    last: str | None = None
    answered_since = True
    answered: set[str] = set()
    asked_open: list[str] = []
    for e in events:
        if e.type == "INTERVIEWER_MESSAGE":
            asked_open.append(normalized(str(e.payload.get("text", ""))))
        elif e.type in ("CANDIDATE_MESSAGE", "CANDIDATE_CODE_SUBMISSION"):
            if e.payload.get("continues"):
                continue            # a later part of an answer, or a late answer: it answers nothing asked since
            answered_since = True
            answered.update(asked_open)
            asked_open = []
        elif e.type in PRESENTED:
            text = normalized(str(e.payload.get("text", "")))
            require(text.strip(), "no-blank-question", f"event {e.event_id} presents a blank question")
            raw = str(e.payload.get("text", ""))
            ok, why = is_askable(raw, closing=e.payload.get("entry_id") in closing)
            require(ok or raw in given and e.payload.get("method") != "orchestrator", "shown-text-is-a-question",
                    f"event {e.event_id} presents {raw[:80]!r}: {why}")
            require(text not in answered_before or e.payload.get("kind") == "minimum_content",
                    "no-reask-across-sessions", f"event {e.event_id} presents {text[:60]!r}, answered in an earlier "
                    f"session")
            require(answered_since or text != last, "no-repeated-question",
                    f"event {e.event_id} presents {text[:60]!r} again with no answer in between")
            if mode == "adaptive" and e.payload.get("method") in ("orchestrator", "fallback"):
                require(text not in answered, "no-repeated-question",
                        f"event {e.event_id} presents {text[:60]!r}, already answered")
            last, answered_since = text, False
            if "entry_id" in e.payload:             # the engine recorded it: asked
                asked_open.append(text)


def check_coverage_events(events: Iterable[InterviewEvent]) -> None:
    flags: dict[tuple[str | None, str], int] = {}
    for e in events:
        if e.type != "COVERAGE_UPDATED":
            continue
        for dim, status in dict(e.payload.get("coverage_flags", {})).items():
            k = (e.section_id, dim)
            require(RANK[status] >= flags.get(k, 0), "coverage-only-rises", f"{k}: {status} after a higher flag")
            flags[k] = RANK[status]


# ------------------------------------------------------------------------------------ session-step checks
@dataclass
class QuestionWatch:
    """What happened since the question in force was last asked (for question-stays-until-answered)."""

    text: str | None = None
    asked: bool = False
    section_index: int = -1
    answered: bool = False
    skipped: bool = False

    def put_in_force(self, text: str | None, section_index: int) -> None:
        self.text, self.asked, self.section_index, self.answered, self.skipped = text, False, section_index, False, False


@dataclass
class Ledger:
    """The model's own record of a generated run, to hold the engine to."""

    accepted: list[str] = field(default_factory=list)                  # entry ids, in the order accepted
    entry_section: dict[str, str | None] = field(default_factory=dict)
    interviewee_by_section: dict[str | None, list[str]] = field(default_factory=dict)
    summarized: dict[str, list[str]] = field(default_factory=dict)      # section id → entry ids it was given
    flags: dict[tuple[str, str], int] = field(default_factory=dict)
    events: list[InterviewEvent] = field(default_factory=list)
    watch: QuestionWatch = field(default_factory=QuestionWatch)


def check_entries(ledger: Ledger, transcript: Sequence[TranscriptEntry], count: int) -> None:
    ids = [e.entry_id for e in transcript]
    require(count == len(ledger.accepted), "entries-once-in-order",
            f"{count} entries counted, {len(ledger.accepted)} accepted")
    require(ids == ledger.accepted[len(ledger.accepted) - len(ids):], "entries-once-in-order",
            f"transcript tail {ids[-5:]} is not the accepted order {ledger.accepted[-5:]}")
    seqs = [e.seq for e in transcript]
    require(seqs == list(range(count - len(ids) + 1, count + 1)), "entries-once-in-order", f"seqs {seqs[-10:]}")


def check_clock(next_due: datetime | None, now: datetime) -> None:
    require(next_due is None or next_due > now, "clock-never-past-twice",
            f"after the clock looked at {now:%H:%M:%S.%f}, {next_due} is still due")


def check_ends_in_time(ended: bool, started_at: datetime, duration: float, grace: float, now: datetime) -> None:
    limit = started_at + timedelta(seconds=duration + grace)
    require(ended or now < limit, "ends-in-time", f"still live at {now:%H:%M:%S}, past {limit:%H:%M:%S}")
