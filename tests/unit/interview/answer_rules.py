"""The generated steps of issue 35 for the session state machine (tests/unit/interview/test_session_machine.py mixes
them in): long answers sent in parts — numbered, or `X`, `X-2`, … as rooms opened before send them — with anything
happening between the parts; answers stamped with the question on screen when the person began them (the one in
force, an earlier one, the previous section's, an unknown id); and a model slower than the decision deadline. Each
step checks its invariant (`one-answer-one-decision`, `attributed-to-the-question-seen`, `decision-within-bound`) on
the spot; `check_answer_flow` checks the standing ones after every step."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from models.interview.entries import TranscriptEntry
from rules.interview import timing
from rules.interview.answer_parts import split_answer
from tests.interview_invariants import PRESENTED, require

PART_WORDS = st.sampled_from(["The pager went off.", "We had no runbook!", "なぜ？", "Then the batch failed.",
                              "Grüße aus Berlin.", "word", "because", "ok"])


class AnswerRules:
    """Rules over the machine's `s` (Session), `now`, `pending`, `inp`, `_submit`, `_take` and `ledger`."""

    s: Any
    now: datetime
    inp: Any
    pending: Any
    ledger: Any
    step: str
    finished: bool
    PATCHED: bool
    _submit: Any
    _take: Any
    n: int
    aside: bool

    # ----------------------------------------------------------------------------------------- answers in parts
    @precondition(lambda self: not self.finished and getattr(self, "splitting", None) is None)
    @rule(words=st.lists(PART_WORDS, min_size=60, max_size=400), numbered=st.booleans(), data=st.data())
    def an_answer_in_parts_begins(self, words, numbered, data):
        """A person's long answer, cut by the client (rules/interview/answer_parts.py) — its first part now."""
        self.step = "part"
        limit = self.inp.max_entry_chars
        parts = split_answer(" ".join(words), limit)
        if len(parts) < 2:
            return
        self.n += 1
        self.splitting: dict[str, Any] | None = {"id": f"long{self.n}", "parts": parts, "next": 0,
                                                 "numbered": numbered, "section": None, "at": self.now}
        self._send_part()

    @precondition(lambda self: not self.finished and getattr(self, "splitting", None) is not None)
    @rule()
    def the_next_part_arrives(self):
        self.step = "part"
        self._send_part()

    def _send_part(self) -> None:
        sp = self.splitting
        assert sp is not None
        i, s = sp["next"], self.s
        text, answer_id = sp["parts"][i], sp["id"]
        fields: dict[str, Any] = {}
        if sp["numbered"]:
            fields = {"answer_id": answer_id, "part": i + 1, "parts": len(sp["parts"])}
            entry_id = f"{answer_id}-p{i + 1}"
        else:
            entry_id = answer_id if i == 0 else f"{answer_id}-{i + 1}"
        before, count = (s.next_question(), s.state.question_event_id), s.state.transcript_count
        self.aside = i > 0
        self._submit(TranscriptEntry(entry_id=entry_id, speaker="interviewee", text=text, **fields))
        self.aside = False
        sp["next"], sp["at"] = i + 1, self.now
        if sp["next"] >= len(sp["parts"]):
            self.splitting = None
        recorded = s.state.transcript_tail[-1] if s.state.transcript_count > count else None
        if recorded is None or not self.PATCHED:
            return
        if i == 0:
            sp["section"] = recorded.section_id
            return
        require(recorded.continues, "one-answer-one-decision", f"part {i + 1} of {answer_id} was taken as an answer")
        require((s.next_question(), s.state.question_event_id) == before, "one-answer-one-decision",
                f"part {i + 1} of {answer_id} changed the question in force")
        section = next((x for x in s.state.sections if x.id == sp["section"]), None)
        open_ = section is not None and (section is s.runtime() and section.ended_at is None or section.exit_reason
                                         == "time_expired" and section.ended_at is not None
                                         and timing.in_grace(self.now, section.ended_at, self.inp.late_grace_seconds))
        require(not open_ or recorded.section_id == sp["section"], "one-answer-one-decision",
                f"part {i + 1} of {answer_id} filed in {recorded.section_id}, its answer in {sp['section']}")

    def parts_due(self) -> bool:
        """The specification: more parts of the answer under way are due now (numbered: not all in and within the
        wait; unnumbered: the last part could have been cut and the settle time has not passed)."""
        sp = getattr(self, "splitting", None)
        if sp is None or sp["next"] == 0:
            return False
        if sp["numbered"]:
            return self.now < sp["at"] + timedelta(seconds=self.inp.answer_parts_wait_seconds)
        last = sp["parts"][sp["next"] - 1]
        return len(last) > self.inp.max_entry_chars // 2 and self.now < sp["at"] + timedelta(
            seconds=self.inp.answer_settle_seconds) and self.inp.answer_settle_seconds > 0

    # ----------------------------------------------------------------------------------------- the question seen
    @precondition(lambda self: not self.finished)
    @rule(which=st.sampled_from(["in force", "earlier", "earlier", "unknown"]), data=st.data())
    def an_answer_to_the_question_seen(self, which, data):
        """The client stamps the question on screen when the person began (`reply_to_question_id`)."""
        self.step = "answer"
        s = self.s
        asked = [(e.payload["entry_id"], e.section_id) for e in self.ledger.events
                 if e.type in PRESENTED and "entry_id" in e.payload]
        current = s.question_entry_id
        earlier = [a for a in asked if a[0] != current and any(e.entry_id == a[0] for e in s.state.transcript_tail)]
        if which == "in force" and current:
            stamp, section = current, next((sid for q, sid in asked if q == current), None)
        elif which == "earlier" and earlier:
            stamp, section = data.draw(st.sampled_from(earlier))
        else:
            stamp, section = "question-999999", None
        before, count = (s.next_question(), s.state.question_event_id), s.state.transcript_count
        self.n += 1
        self.aside = section is not None and stamp != current and s.state.engine_asks
        self._submit(TranscriptEntry(entry_id=f"e{self.n}", speaker="interviewee", text="My answer to that one.",
                                     reply_to_question_id=stamp))
        self.aside = False
        if s.state.transcript_count == count or not self.PATCHED:
            return
        recorded = s.state.transcript_tail[-1]
        rt, cur = s.state.sections, s.state.current_index
        prev = rt[cur - 1] if 0 < cur < len(rt) else None
        in_grace = prev is not None and prev.exit_reason == "time_expired" and prev.ended_at is not None \
            and timing.in_grace(self.now, prev.ended_at, self.inp.late_grace_seconds)
        if section is not None and prev is not None and section == prev.id and in_grace:
            require((recorded.section_id, recorded.late) == (prev.id, True), "attributed-to-the-question-seen",
                    f"an answer to {stamp} ({prev.id}'s, in the grace) filed in {recorded.section_id}")
        if section is not None and stamp != current and s.runtime() is not None and before[0] is not None:
            require((s.next_question(), s.state.question_event_id) == before, "attributed-to-the-question-seen",
                    f"an answer to the earlier {stamp} displaced the question in force")
        if stamp == current and current is not None:
            require(not recorded.continues, "attributed-to-the-question-seen",
                    f"an answer to the question in force ({stamp}) was filed aside")
            require(not recorded.late or section != s.current_section_id(), "attributed-to-the-question-seen",
                    f"an answer to the question in force ({stamp}) was filed as late")

    # ----------------------------------------------------------------------------------------- a slow model
    @precondition(lambda self: not self.finished and self.pending is not None and self.pending[0]
                  and self.inp.mode == "adaptive")
    @rule()
    def the_model_is_slower_than_the_deadline(self):
        """The Orchestrator has not answered within the bound: the workflow's timer fires (the live cycle's
        deadline) and the fallback's question is put in force; the decision lands later (`the_model_answers`)."""
        self.step = "slow"
        s = self.s
        self.now += timedelta(seconds=self.inp.decision_deadline_seconds)
        self._take(s.on_clock(self.now))
        before = s.state.slow_decisions
        waiting = s._question_waiting()
        live = not s.ended and s.runtime() is not None and s.state.status == "IN_PROGRESS"
        self._take(s.decision_late(self.now, self.inp.decision_deadline_seconds))
        if live and not waiting and not s.ended:
            require(s.next_question() is not None and s._question_waiting(), "decision-within-bound",
                    "no decision in time, and no question in force")
            require(s.state.slow_decisions == before + 1 and s.view(self.now).model_slow, "decision-within-bound",
                    "a deadline fallback not counted or not shown")

    def check_answer_flow(self) -> None:
        s = self.s
        if self.parts_due() and self.PATCHED and not s.ended:
            require(s.answer_settles_at(self.now) is not None, "one-answer-one-decision",
                    "more parts of the answer are due, but the engine would decide now")
        slow = [e for e in self.ledger.events if e.type == "DECISION_SLOW"]
        require(len(slow) == s.state.slow_decisions, "decision-within-bound",
                f"{len(slow)} DECISION_SLOW events, {s.state.slow_decisions} counted")
