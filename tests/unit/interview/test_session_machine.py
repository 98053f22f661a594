"""Generated scenarios for the pure interview engine: a Hypothesis rule-based state machine drives `Session` through
random sequences — answers of any length and language, echoes of the question shown, a human interviewer's lines,
resent entries, silences, pauses, disconnects, heartbeats, skips, the end, late timers and clock jumps, live cycles
whose model call overlaps all of that and whose decisions repeat or contradict, and continue-as-new at any moment
— and checks every invariant of tests/interview_invariants.py after every step. The plan is a person's, a model's
or a follow-up's (of an earlier session that answered some questions), and the models write hostile outputs
(tests/unit/interview/hostile.py: random text, JSON fragments, their prompt echoed, instructions, other languages
and scripts, repeats, questions the earlier session got answered) in their plans and as the next question.

`make test` runs 2,000 sequences (`test_session_machine`); `pytest -m deep` runs 20,000
(`test_session_machine_long`). A failure prints the shortest sequence that breaks a named invariant: it becomes a
regression test in test_session_regressions.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from models.common import ArtifactRef
from models.interview.activities import SessionRecord
from models.interview.entries import Heartbeat, SessionControl, TranscriptEntry
from models.interview.notes import (
    DimensionAssessment,
    KeyIdea,
    NextQuestion,
    NotesState,
    OrchestratorDecision,
    QuotableLine,
    ResearchItem,
    ResearchOutput,
)
from models.interview.plan import DimensionSpec, PlanSnapshot, QuestionSnapshot, SectionSnapshot
from models.interview.workflow import InterviewInput
from rules.interview import budget, decisions
from rules.interview.entries import EntryError
from rules.interview.questions import normalized
from rules.interview.session import LIVE_STATUSES, Outcome, Session
from tests.interview_invariants import (
    PRESENTED,
    RANK,
    Ledger,
    check_clock,
    check_ends_in_time,
    check_entries,
    check_event_log,
    require,
)
from tests.unit.interview import hostile as hostile_outputs
from tests.unit.interview.answer_rules import AnswerRules
from tests.unit.interview.hostile import hostile

T0 = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
WID = "interview-generated-0001"
MAX_CHARS = 600       # small, so that generated answers often cross the limit
CLOSING = "Thank you so much for your time today."

WORDS = st.sampled_from(["latency", "outage", "improve", "pager", "rotation", "team", "why", "because", "then",
                         "Grüße", "東京", "なぜ", "¿por qué?", "مرحبا", "🙂", "measure", "design"])
SENTENCE = st.lists(WORDS, min_size=1, max_size=12).map(" ".join)
ANY_TEXT = st.one_of(
    SENTENCE, SENTENCE, SENTENCE,
    st.text(st.characters(exclude_categories=["Cs"]), min_size=0, max_size=40),
    st.builds(lambda n, c: c * n, st.integers(1, 900), st.sampled_from(["あ", "word ", "é", "x"])),
)


def plan_texts(plan: PlanSnapshot) -> set[str]:
    """Every text of a plan a person gave that the engine may show (003: a section's goal or title when it has no
    prompt and no question): theirs to word, not checked as a model's."""
    out = {q.text for x in plan.sections for q in x.questions}
    out |= {t for x in plan.sections for pool in x.followup_pool.values() for t in pool}
    return out | {t for x in plan.sections for t in (x.primary_prompt, x.goal, x.title) if t}


def answered_in(transcript: list[TranscriptEntry]) -> set[str]:
    """The questions a transcript asked and got an answer to (normalised): every interviewer entry before an
    interviewee entry."""
    out: set[str] = set()
    pending: list[str] = []
    for e in transcript:
        if e.speaker == "interviewer":
            pending.append(normalized(e.text))
        elif pending:
            out.update(pending)
            pending = []
    return out


def plan_for(n_sections: int, n_questions: int, pools: bool, blanks: bool = False) -> PlanSnapshot:
    """A plan; with `blanks` (as a weak model writes them) its first question, first follow-up of each pool and
    primary prompt of each section have no words."""
    sections = []
    for i in range(n_sections):
        dims = [DimensionSpec(name=f"d{i}a", keywords=["latency"]), DimensionSpec(name=f"d{i}b", keywords=["outage"])]
        pool = {f"d{i}a": [f"How would you measure part {i}?"], f"d{i}b": [f"What fails in part {i}?"]} if pools else {}
        if blanks:
            pool = {name: ["  ", *texts] for name, texts in pool.items()}
        sections.append(SectionSnapshot(
            id=f"s{i}", title=f"Part {i}", goal=f"Goal {i}", primary_prompt=" " if blanks else f"Tell me about part {i}.",
            followup_cap=3, required_dimensions=dims, followup_pool=pool,
            questions=[QuestionSnapshot(id=f"q{i}-{j}", text="" if blanks and j == 0 else f"Question {j} about part {i}?",
                                        priority=1 + j % 3)
                       for j in range(n_questions)]))
    return PlanSnapshot(topic="Generated", research_goal="Invariants", angle="Any order", sections=sections)


class SessionMachine(AnswerRules, RuleBasedStateMachine):
    """The workflow's view of the session, with the clock, the live loop and the clients as generated steps."""

    s: Session
    PATCHED = True      # False: the engine as it was before the truth changes (every patch off)

    # ------------------------------------------------------------------------------------------ set-up
    @initialize(mode=st.sampled_from(["adaptive", "structured"]), n_sections=st.integers(1, 3),
                n_questions=st.integers(1, 3), pools=st.booleans(), duration=st.sampled_from([60, 120, 300, 900]),
                grace=st.sampled_from([0.0, 15.0]), presence=st.sampled_from([0.0, 20.0]), blanks=st.booleans(),
                origin=st.sampled_from(["person", "person", "model", "follow-up", "follow-up planned"]),
                settle=st.sampled_from([0.0, 2.0]), data=st.data())
    def start(self, mode, n_sections, n_questions, pools, duration, grace, presence, blanks, origin, settle, data):
        """A plan the person gave, or a model's (hostile questions among good ones), or a follow-up of an earlier
        session (the Follow-Up agent's suggestions, or a model's plan for another topic) that answered some
        questions."""
        self.plan = plan_for(n_sections, n_questions, pools, blanks)
        self.given: set[str] = set()
        self.answered_before: set[str] = set()
        self.earlier: list[str] = []
        fields = dict(topic="Generated", mode=mode, duration_seconds=duration, late_grace_seconds=grace,
                      presence_timeout_seconds=presence, max_entry_chars=MAX_CHARS, min_content_words=3,
                      answer_settle_seconds=settle)
        record = None
        if origin == "person":
            self.inp = InterviewInput(plan=self.plan, **fields)
            self.given = plan_texts(self.plan)
        elif origin == "model":
            self.inp = InterviewInput(**fields)
        else:
            self.earlier = data.draw(st.lists(st.sampled_from(hostile_outputs.EARLIER), min_size=1, max_size=5))
            answered = data.draw(st.lists(st.booleans(), min_size=len(self.earlier), max_size=len(self.earlier)))
            transcript = []
            for i, (q, a) in enumerate(zip(self.earlier, answered, strict=True)):
                transcript.append(TranscriptEntry(entry_id=f"p{i}q", speaker="interviewer", text=q))
                if a:
                    transcript.append(TranscriptEntry(entry_id=f"p{i}a", speaker="interviewee", text="An answer."))
            self.answered_before = answered_in(transcript)
            earlier = st.sampled_from(self.earlier)
            suggested = data.draw(st.lists(st.one_of(earlier, earlier, st.sampled_from(hostile_outputs.EARLIER),
                                                     hostile(None, NotesState(), 40, [])), max_size=4))
            record = SessionRecord(workflow_id="interview-earlier", plan=self.plan, notes=NotesState(),
                                   transcript=transcript, follow_up=hostile_outputs.follow_up(suggested))
            topic = "Deeper" if origin == "follow-up" else "Elsewhere"
            self.inp = InterviewInput(previous_session_id=record.workflow_id, follow_up_topic=topic, **fields)
        self.s = Session(self.inp, WID)
        self.s.patched = lambda _patch_id: self.PATCHED
        self.now = T0
        self.ledger = Ledger()
        self.n = 0
        self.pending: tuple[bool, datetime] | None = None      # a live cycle waiting for its model's answer
        self.finished = False                                   # the workflow returned (write-up only)
        self.asked_before: list[str] = []
        self.questions_asked: list[str] = []
        self.step = "start"
        self.aside = False          # the entry being sent answers no question put in force since (the spec's)
        self.recorded_question = False      # this step recorded a question the engine put in force
        self._take(self.s.create(T0))
        if record is not None:
            self.s.load_previous(record)
        ready = self.s.plan_or_request(record)
        if not isinstance(ready, PlanSnapshot):       # the Planner (a model) answers
            request = ready
            good = SENTENCE.map(lambda t: t + "?")
            texts = data.draw(st.lists(st.lists(st.one_of(good, hostile(None, NotesState(), 40, self.earlier)),
                                                max_size=4), min_size=0, max_size=3))
            ready = hostile_outputs.model_plan(texts)
            if record is not None:
                ready = self.s.as_follow_up(record, request, ready)
        self._take(self.s.set_plan(T0, ready))
        assert self.s.state.plan is not None
        self.plan = self.s.state.plan
        self._take(self.s.start(T0))
        self.ledger.watch.put_in_force(self.s.next_question(), self.s.state.current_index)

    # ------------------------------------------------------------------------------------------ helpers
    def _take(self, out: Outcome) -> Outcome:
        self.ledger.events.extend(out.events)
        for e in out.events:                # questions the engine put in force and recorded as the interviewer's
            if e.type in PRESENTED and "entry_id" in e.payload:
                self.ledger.accepted.append(e.payload["entry_id"])
                self.questions_asked.append(str(e.payload["text"]))
                self.recorded_question = True
        for _index, summary in out.summaries:
            sid = summary.section_id
            require(sid not in self.ledger.summarized, "summaries-see-every-answer", f"{sid} summarised twice")
            given = [e.entry_id for e in summary.entries if e.speaker == "interviewee"]
            if summary.archived:     # the activity reads the section's archived entries (test_section_summary_reads…)
                rt = next(x for x in self.s.state.sections if x.id == sid)
                given += [i for i in rt.entry_ids if i not in given]
            expected = self.ledger.interviewee_by_section.get(sid, [])
            require(set(expected) <= set(given), "summaries-see-every-answer",
                    f"{sid}'s summary lacks {sorted(set(expected) - set(given))}")
            self.ledger.summarized[sid] = given
        return out

    def _entry(self, speaker: str, text: str, **fields) -> None:
        self.n += 1
        entry = TranscriptEntry(entry_id=f"e{self.n}", speaker=speaker, text=text, **fields)
        self._submit(entry)

    def _submit(self, entry: TranscriptEntry) -> None:
        s, before = self.s, self.s.state.transcript_count
        sp = getattr(self, "splitting", None)
        if sp is not None and entry.speaker == "interviewee" and not entry.entry_id.startswith(sp["id"]):
            self.splitting = None       # another answer: the one in parts is left as it is
        try:
            s.check_entry(entry)
        except EntryError as err:
            legit = (not s.accepting or not entry.text.strip() or len(entry.text) > MAX_CHARS)
            require(legit, "entries-once-in-order", f"{entry.entry_id} refused without cause: {err}")
            require(s.state.transcript_count == before, "ended-is-final", "a refused entry changed the transcript")
            return
        require(s.accepting, "ended-is-final", f"{entry.entry_id} accepted after the end")
        recorded, duplicate, out = s.accept_entry(self.now, entry)
        self._take(out)
        if duplicate:
            require(s.state.transcript_count == before, "entries-once-in-order", "a resent entry was counted")
            return
        self.ledger.accepted.append(recorded.entry_id)
        sid = recorded.section_id
        require(sid not in self.ledger.summarized or not (recorded.speaker == "interviewee"), "summaries-see-every-answer",
                f"{recorded.entry_id} joined {sid} after its summary was asked for")
        if recorded.speaker == "interviewee":
            self.ledger.interviewee_by_section.setdefault(sid, []).append(recorded.entry_id)
            # (the specification's: a later part of an answer, an answer to an earlier question or a late one to
            # the previous section answers nothing put in force since — tests/unit/interview/answer_rules.py)
            aside = self.aside or recorded.late and sid != s.current_section_id()
            self.ledger.watch.answered = self.ledger.watch.answered or not aside
        else:
            self.questions_asked.append(recorded.text)
        if recorded.speaker == "interviewer" and self.ledger.watch.text is not None and normalized(recorded.text) == normalized(self.ledger.watch.text):
            self.ledger.watch.asked = True

    # ------------------------------------------------------------------------------------------ clients
    @rule(text=ANY_TEXT, reply_to_shown=st.booleans())
    def interviewee_answers(self, text, reply_to_shown):
        self.step = "answer"
        shown = self.s.current_section_id() if reply_to_shown else None
        self._entry("interviewee", text, reply_to_section_id=shown)

    @precondition(lambda self: not self.finished)
    @rule()
    def client_shows_the_question(self):
        """The room / join / rehearse show the question in force. On a run from before the engine recorded its
        questions (every patch off) they recorded it as the interviewer's entry (echoed it); now they only show it."""
        self.step = "echo"
        q = self.s.next_question()
        if q and not self.s.state.engine_asks:
            self._entry("interviewer", q)

    @precondition(lambda self: not self.finished)
    @rule(text=st.one_of(SENTENCE.map(lambda t: t + "?"), st.just(CLOSING),
                         st.just("Thank you for sharing that. What happened next?")))
    def a_person_interviews(self, text):
        self.step = "interviewer"
        self._entry("interviewer", text)

    @precondition(lambda self: not self.finished and bool(self.ledger.accepted))
    @rule(data=st.data())
    def a_client_resends(self, data):
        self.step = "resend"
        entry_id = data.draw(st.sampled_from(self.ledger.accepted))
        self._submit(TranscriptEntry(entry_id=entry_id, speaker="interviewee", text="resent"))

    @rule(action=st.sampled_from(["pause", "resume", "disconnect", "reconnect", "candidate_done", "end", "skip!"]))
    def control(self, action):
        self.step = action
        try:
            normal = self.s.check_control(SessionControl(action=action))
        except EntryError:
            return
        if normal == "candidate_done":
            self.ledger.watch.skipped = True
        self._take(self.s.control(self.now, normal))

    @precondition(lambda self: not self.finished)
    @rule()
    def interviewee_heartbeat(self):
        self.step = "heartbeat"
        self._take(self.s.heartbeat(self.now, Heartbeat(role="interviewee", client_id="room-1")))

    # ------------------------------------------------------------------------------------------ the clock
    @precondition(lambda self: not self.finished)
    @rule(seconds=st.one_of(st.floats(0, 20), st.floats(0, 400), st.sampled_from([0.001, 14.999, 15.0, 30.0])),
          late=st.booleans())
    def time_passes(self, seconds, late):
        """Real time passes; the clock's timer fires when due — or late, once, at the end (a busy worker)."""
        self.step = "clock"
        target = self.now + timedelta(seconds=seconds)
        for _ in range(200):
            due = self.s.next_due(self.now)
            if due is None or due > target:
                break
            self.now = target if late else max(due, self.now)
            self._take(self.s.on_clock(self.now))
            check_clock(self.s.next_due(self.now), self.now)
        self.now = target
        self._take(self.s.on_clock(self.now))
        check_clock(self.s.next_due(self.now), self.now)
        check_ends_in_time(self.s.ended, T0, self.inp.duration_seconds, self.inp.late_grace_seconds, self.now)

    # ------------------------------------------------------------------------------------------ the live loop
    @precondition(lambda self: not self.finished and self.pending is None)
    @rule()
    def live_cycle_begins(self):
        """Woken: NoteTaker ∥ Researcher on what is new, then (adaptive) whether the Orchestrator is asked."""
        s = self.s
        if s.ended or s.state.status != "IN_PROGRESS" or s.runtime() is None:
            return
        if s.answer_settles_at(self.now) is not None:
            return          # the live loop waits for the rest of an answer in parts (its timer wakes it)
        self.step = "cycle"
        up_to, new = s.state.transcript_count, s.new_entries()
        self._take(s.cycle_begins(self.now, new)[1])
        s.state.processed_seq = up_to
        if self.inp.mode == "structured":
            self.pending = (bool(s.answers_to_assess(new)), self.now)
            self.assess_rt = s.runtime()
        else:
            decide, out = s.needs_decision(self.now, len(new), cycle_at=self.now)
            self._take(out)
            self.pending = (decide, self.now)

    @precondition(lambda self: not self.finished and self.pending is not None)
    @rule(data=st.data())
    def the_model_answers(self, data):
        """The Orchestrator's answer lands (anything may have happened meanwhile): a plan question, the question in
        force again, one already answered, the generic closing, a contradiction, or the fallback."""
        self.step = "decision"
        s = self.s
        go, _cycle_at = self.pending or (False, self.now)
        self.pending = None
        if not go:
            return
        if self.inp.mode == "structured":
            rt = self.assess_rt
            sec = next((x for x in self.plan.sections if x.id == rt.id), None) if rt else None
            if rt is None or sec is None:
                return
            flags = {d.name: data.draw(st.sampled_from(list(RANK))) for d in sec.required_dimensions}
            assessment = OrchestratorDecision(
                phase="opening", next_question=NextQuestion(text="(engine picks)"), interviewer_brief="Go on.",
                coverage=[DimensionAssessment.model_validate({"dimension": k, "status": v}) for k, v in flags.items()])
            self._take(s.assess_coverage(self.now, rt, assessment))
            return
        texts = [q.text for x in self.plan.sections for q in x.questions] + [decisions.GENERIC_CLOSING_QUESTION,
                                                                             CLOSING]
        texts += self.questions_asked[-5:]
        if s.next_question():
            texts.append(s.next_question() or "")
        remaining = int((s.runtime().deadline - self.now).total_seconds()) if s.runtime() and s.runtime().deadline else 60
        text = data.draw(st.one_of(st.sampled_from(texts), SENTENCE.map(lambda t: t + "?"), st.sampled_from(["", " \n"]),
                                   hostile(s.state.plan, s.state.notes, remaining, self.questions_asked[-5:]),
                                   st.sampled_from(self.earlier or texts)))
        if data.draw(st.booleans()):
            decision, method = s.fallback_decision(), "fallback"
        else:
            decision = OrchestratorDecision(phase="deep_dive", next_question=NextQuestion(text=text, source="gap"),
                                            interviewer_brief="Ask it.")
            method = "orchestrator"
        self._take(s.present_decision(self.now, decision, method))

    @precondition(lambda self: not self.finished)
    @rule(items=st.integers(0, 4), chars=st.sampled_from([10, 3000, 8000]))
    def the_listeners_answer(self, items, chars):
        """NoteTaker and Researcher land, with anything from a line to pages per item (a model quoting whole
        answers), every item new."""
        self.step = "listeners"
        self.listened = getattr(self, "listened", 0) + 1
        text = "漢" * chars
        tag = [f"n{self.listened}-{i}" for i in range(items)]
        self._take(self.s.merge_notes(self.now, NotesState(
            key_ideas=[KeyIdea(title=t, description=text) for t in tag],
            quotable_lines=[QuotableLine(text=f"{t} {text}") for t in tag], possible_titles=tag)))
        self._take(self.s.add_research(self.now, ResearchOutput(items=[
            ResearchItem(topic=t, summary=text) for t in tag])))

    # ------------------------------------------------------------------------------------------ continue-as-new
    @precondition(lambda self: not self.finished and self.pending is None)
    @rule(keep=st.integers(1, 40), events=st.integers(0, 200))
    def continue_as_new(self, keep, events):
        """The run continues as new between two cycles; entries may have arrived while it archived."""
        self.step = "continue-as-new"
        s = self.s
        before = s.view(self.now).model_dump(exclude={"as_of"})
        if s.ended:
            self.finished = True       # the workflow finishes in this run (an ended session is never carried)
            return
        if s.archive_transcript(keep):        # the workflow archives them (an activity) and keeps the reference
            s.state.transcript_segments.append(ArtifactRef(uri=f"mem://{s.state.continued}", name="part.jsonl",
                                                           sha256="0" * 64, size_bytes=1))
        s.continued_as_new(self.now, s.state.continued + 1, 1000)
        carried = s.carry(s.state.continued + 1, archived_events=max(0, len(s.log.events) - events),
                          archived_lines=0)
        inp = self.inp.model_copy(update={"carried": InterviewState_copy(carried), "plan": None})
        self.s = Session(inp, WID, inp.carried)
        self.s.patched = lambda _patch_id: self.PATCHED
        after = self.s.view(self.now).model_dump(exclude={"as_of"})
        for key in ("status", "phase", "next_question", "current_section", "asked_question_ids", "entries",
                    "ends_at", "exit_reason", "question_event_id"):
            require(before[key] == after[key], "carried-state-is-the-state", f"{key}: {before[key]!r} → {after[key]!r}")
        require(self.s.next_due(self.now) == s.next_due(self.now), "carried-state-is-the-state", "the clock moved")

    # ------------------------------------------------------------------------------------------ invariants
    @invariant()
    def the_engine_tells_the_truth(self):
        if not hasattr(self, "s"):
            return
        s, st_ = self.s, self.s.state
        check_entries(self.ledger, st_.transcript_tail, st_.transcript_count)
        check_event_log(self.ledger.events, mode=self.inp.mode, given=self.given, answered_before=self.answered_before)
        # question-stays-until-answered
        watch, now_q = self.ledger.watch, s.next_question()
        if now_q != watch.text:
            if watch.text is not None and watch.asked and now_q is not None:
                require(watch.answered or watch.skipped or st_.current_index != watch.section_index,
                        "question-stays-until-answered",
                        f"{watch.text[:50]!r} (asked, unanswered) became {now_q[:50]!r} at step {self.step!r}")
            watch.put_in_force(now_q, st_.current_index)
            watch.asked = bool(now_q and s.question_entry_id)    # the engine recorded it
        # asked-only-when-asked: the asked set grows only when an interviewer entry asked, or the engine presented
        grown = [q for q in st_.asked_question_ids if q not in self.asked_before]
        if grown:
            require(self.step in ("echo", "interviewer") or self.inp.mode == "structured"
                    or self.recorded_question, "asked-only-when-asked",
                    f"{grown} counted as asked at step {self.step!r}")
            self.asked_before = list(st_.asked_question_ids)
        self.recorded_question = False
        # coverage-only-rises
        for rt in st_.sections:
            for dim, flag in rt.coverage_flags.items():
                k = (rt.id, dim)
                require(RANK[flag] >= self.ledger.flags.get(k, 0), "coverage-only-rises", f"{k} fell to {flag}")
                self.ledger.flags[k] = RANK[flag]
        # exit-reasons-set / ended-is-final
        if s.ended:
            require(st_.status in ("FINALIZING", "TERMINATED") and st_.exit_reason, "exit-reasons-set",
                    f"ended with status {st_.status}, reason {st_.exit_reason}")
            require(all(rt.exit_reason for rt in st_.sections), "exit-reasons-set",
                    f"sections {[(rt.id, rt.exit_reason) for rt in st_.sections]}")
            require(all(rt.exit_reason == "not_reached" for rt in st_.sections if rt.started_at is None),
                    "exit-reasons-set", "a section never started is not marked not_reached")
            require(s.next_question() is None and s.next_due(self.now) is None, "ended-is-final",
                    "an ended session still shows a question or arms a timer")
            sections_with_answers = {sid for sid, ids in self.ledger.interviewee_by_section.items() if ids and sid}
            require(sections_with_answers <= set(self.ledger.summarized), "summaries-see-every-answer",
                    f"never summarised: {sorted(sections_with_answers - set(self.ledger.summarized))}")
        else:
            require(st_.status in LIVE_STATUSES, "ended-is-final", f"live session with status {st_.status}")
        if self.step == "listeners":      # (only they add notes and research; measuring is not free)
            require(budget.notes_bytes(st_.notes) <= budget.NOTES_BYTES, "carried-state-bounded",
                    f"notes hold {budget.notes_bytes(st_.notes):,} bytes")
            research = sum(map(budget.model_bytes, st_.research))
            require(research <= budget.RESEARCH_BYTES or len(st_.research) == 1, "carried-state-bounded",
                    f"research holds {research:,} bytes")
        self.check_answer_flow()
        s.view(self.now)       # every view renders


def InterviewState_copy(state):   # noqa: N802 - the carried state crosses as JSON, as Temporal carries it
    return type(state).model_validate_json(state.model_dump_json())


def _run(examples: int, steps: int) -> None:
    run_state_machine_as_test(SessionMachine, settings=settings(
        max_examples=examples, stateful_step_count=steps, deadline=None, suppress_health_check=list(HealthCheck)))


def test_session_machine():
    """2,000 generated sequences of up to 40 steps each, every invariant after every step."""
    _run(2000, 40)


@pytest.mark.deep
def test_session_machine_long():
    _run(20000, 60)
