"""The engine tells the truth (issue 11, part A): what is marked asked, where a late answer goes, what ends an
interview, when the listeners run, when it ends, what a follow-up chain merges — each on the time-skipping server."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

from activities.artifacts import store
from activities.llm.offline import Fault
from models.interview.entries import SubmitEntryResult, TranscriptEntry
from models.interview.names import QUERY_PLAN, UPDATE_SUBMIT_ENTRY
from models.interview.plan import PlanSnapshot
from models.interview.workflow import InterviewResult
from rules.interview.decisions import GENERIC_CLOSING_QUESTION
from tests.workflows.interview.helpers import (
    adaptive_plan,
    assessment,
    control,
    decision,
    events,
    of_type,
    say,
    start,
    state,
    structured_sections,
)

ANSWER = ("i started carrying the pager in 2015 because nobody else wanted to. the worst night was a settlement "
          "batch that failed at three in the morning, and we had no runbook at all.")


def _cycling_decisions(plan: PlanSnapshot):
    """An Orchestrator that picks a different plan question every time it is asked (as a live model does when
    nothing was asked yet and the phase or section changes)."""
    questions = [(q.id, q.text) for s in plan.sections for q in s.questions]
    calls = {"n": 0}

    def decide(_req):
        qid, text = questions[calls["n"] % len(questions)]
        calls["n"] += 1
        return decision(text, qid=qid)
    return decide


async def test_nine_ids_after_one_question(ts_env, worker, offline):
    """Only what was put to the person is marked asked, however often the Orchestrator would change its mind. The
    engine records each question it puts in force as the interviewer's entry, keeps it through silence and phase
    changes and replaces it only after an answer or at a section change: the asked ids are exactly the recorded
    questions' ids, the Orchestrator sees those ✓ ASKED, and the current details wait for the question in force.
    (Before: every proposal a client showed was echoed and marked — 7 of 9 after one answer.)"""
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, topic="Running on-call for a payments team", write_essay=False)
        plan = None
        while plan is None:
            plan = await h.query(QUERY_PLAN, result_type=PlanSnapshot)
        assert sum(len(s.questions) for s in plan.sections) == 9
        offline.script("interview_orchestrator", *[_cycling_decisions(plan)] * 200)
        await ts_env.sleep(11)
        first = await state(h)
        await say(h, "interviewee", ANSWER)
        seen = []
        for _ in range(20):                        # 10 minutes of silence: phase and section changes
            await ts_env.sleep(30)
            s = await state(h)
            seen.append((s.next_question, s.waiting_for, list(s.asked_question_ids), s.current_section))
        await control(h, "end")
        await h.result()
        evts, final = await events(h), await state(h)
    recorded = [e for e in evts if e.type.endswith("_PRESENTED") and "entry_id" in e.payload]
    ids = [q.id for x in plan.sections for q in x.questions]
    assert first.next_question and first.asked_question_ids == [recorded[0].payload["question_id"]]
    recorded_ids = list(dict.fromkeys(e.payload["question_id"] for e in recorded))
    assert final.asked_question_ids == recorded_ids      # exactly the ones recorded (one asked again later: once)
    assert len(recorded) <= 2 + len(of_type(evts, "SECTION_STARTED"))   # first, after the answer, section changes
    assert len(recorded) < len(ids)
    for question, waiting, _, _ in seen:        # the question in force waits for its answer, and says so
        assert f"waiting for the answer to: {question}" in waiting
    prompts = [c.messages[-1]["content"] for c in offline.calls("interview_orchestrator")]
    assert len(prompts) == len(recorded)        # decided only when a question was to be put in force
    assert all(p.count("✓ ASKED") <= len(recorded_ids) for p in prompts)    # never a question nobody was asked
    assert prompts[-1].count("✓ ASKED") >= len(recorded_ids) - 1


async def test_the_japan_sentence_does_not_end_a_live_interview(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        await say(h, "interviewee", ANSWER)
        await ts_env.sleep(20)
        turn = await say(h, "interviewer", "Thank you for sharing that. Let us turn to your years in Japan.")
        assert turn.status == "IN_PROGRESS"
        await ts_env.sleep(20)
        still = await state(h)
        closing = await say(h, "interviewer", "Thank you so much for sharing all of this today.")   # a person's goodbye
        result = await h.result()
        evts = await events(h)
    assert still.status == "IN_PROGRESS"
    assert closing.status in ("FINALIZING", "COMPLETED") and result.exit_reason == "interviewer_closing"
    assert [e.payload["entry_id"] for e in of_type(evts, "CLOSING_DETECTED")] == [closing.entry.entry_id]


async def test_an_engine_proposed_closing_remark_ends_nothing_mid_plan(ts_env, worker, offline):
    """Closing only from people or the engine's own last words: the Orchestrator's closing remark, recorded by the
    engine as the interviewer's line, ends the interview only when it is put in force in the wrap-up phase. Before
    the wrap-up it is not even shown: it asks nothing (`interview-shown-text-is-a-question`), the plan's question
    is asked instead."""
    bye, later = "Thank you so much for sharing all of this with me today.", "Thank you so much for your time today."

    def orchestrator(req):
        return decision(later if req.context.get("phase") == "wrap_up" else bye, source="gap")

    offline.script("interview_orchestrator", *[orchestrator] * 60)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, duration_seconds=600)
        await say(h, "interviewee", ANSWER)
        await ts_env.sleep(20)
        proposed = await state(h)
        assert proposed.next_question != bye and proposed.decision_method == "fallback" and proposed.phase == "opening"
        assert proposed.status == "IN_PROGRESS" and proposed.question_entry_id    # recorded, and nothing ended
        await ts_env.sleep(500)            # into wrap-up (85 % of 600 s); the question waits for its answer, kept
        late = await state(h)
        assert late.phase == "wrap_up" and late.status == "IN_PROGRESS"
        assert late.next_question not in (None, bye)
        await say(h, "interviewee", "It was a pleasure.")         # the next decision, in wrap-up: the last words
        result = await h.result()
        evts = await events(h)
    assert result.exit_reason == "interviewer_closing"
    closing = of_type(evts, "CLOSING_DETECTED")
    presented = [e for e in evts if e.type.endswith("_PRESENTED") and e.payload.get("text") == later]
    assert len(closing) == 1 and closing[0].payload["entry_id"] == presented[0].payload["entry_id"]


async def _answer(handle, text: str, reply_to: str | None = None) -> SubmitEntryResult:
    entry = TranscriptEntry(entry_id=uuid.uuid4().hex[:10], speaker="interviewee", text=text,
                            reply_to_section_id=reply_to)
    return await handle.execute_update(UPDATE_SUBMIT_ENTRY, entry, result_type=SubmitEntryResult)


async def test_late_answer_to_the_new_section_counts_for_the_new_section(ts_env, worker, offline):
    """Within the 15 s grace after `design` ran out of time: an answer to the new section's question (asked by an
    interviewer entry, or named by the client) belongs to `coding`, on time, and counts for its coverage; only an
    answer to design's question is late."""
    offline.script("interview_orchestrator", assessment(), assessment(correctness="covered"), assessment(),
                   assessment())
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, mode="structured", sections=structured_sections(), write_essay=False)
        await say(h, "candidate", "Starting: a token bucket per API key.")
        await ts_env.sleep(301)
        now = await state(h)
        assert now.current_section.id == "coding"
        late = await _answer(h, "And about the design: a shared counter store.", reply_to="design")
        named = await _answer(h, "For the code: refill by elapsed time, up to the capacity.", reply_to="coding")
        await ts_env.sleep(5)
        after = await state(h)
        await control(h, "end")
        await h.result()
    async with worker(ts_env.client) as queue:
        h2 = await start(ts_env, queue, mode="structured", sections=structured_sections(), write_essay=False)
        await say(h2, "candidate", "Starting: a token bucket per API key.")
        await ts_env.sleep(302)
        asked = await state(h2)
        await say(h2, "interviewer", asked.next_question)        # the new section's question, asked (as join does)
        answer = await _answer(h2, "A bucket per key, refilled by elapsed time.")
        await control(h2, "end")
        await h2.result()
    assert (late.entry.section_id, late.entry.late) == ("design", True)
    assert (named.entry.section_id, named.entry.late) == ("coding", False)
    assert after.current_section.id == "wrap"     # the coding answer was assessed: coverage ended its section
    assert (answer.entry.section_id, answer.entry.late) == ("coding", False)


async def test_listeners_run_only_on_new_interviewee_words(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False)
        for text in ("Welcome, and thanks for joining.", "Before we start: this is recorded.",
                     "How did you end up carrying the pager?"):
            await say(h, "interviewer", text)
            await ts_env.sleep(11)
        before = len(offline.calls("interview_note_taker")), len(offline.calls("interview_researcher"))
        await say(h, "interviewee", ANSWER)
        await ts_env.sleep(11)
        after = len(offline.calls("interview_note_taker")), len(offline.calls("interview_researcher"))
        await control(h, "end")
        await h.result()
    assert before == (0, 0) and after == (1, 1)


async def test_end_time_stays_honest_after_candidate_done(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, mode="structured", sections=structured_sections(), write_essay=False)
        first = await state(h)
        await say(h, "candidate", "A sliding window per key, counted in a shared store, with a local fallback "
                                  "when the store is slow or down, and metrics on every decision.")
        await ts_env.sleep(10)
        done = await control(h, "candidate_done")
        result: InterviewResult = await h.result()
        evts = await events(h)
    assert done.current_section.id == "coding"
    changed = of_type(evts, "SCHEDULE_CHANGED")[0]
    assert changed.payload["reason"] == "candidate_done"
    assert done.ends_at == changed.timestamp + timedelta(seconds=300 + 120)   # the sections left keep their length
    assert done.ends_at < first.ends_at and abs(done.seconds_remaining_overall - 420) < 1
    completed = of_type(evts, "INTERVIEW_COMPLETED")[0]
    assert result.exit_reason == "time_expired"
    # as advertised, plus the late grace
    assert abs((completed.timestamp - (done.ends_at + timedelta(seconds=15))).total_seconds()) < 0.5


async def test_sections_never_reached_are_not_reached(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, mode="structured", sections=structured_sections(), write_essay=False)
        await say(h, "candidate", "Starting with a token bucket.")
        await control(h, "end")
        result: InterviewResult = await h.result()
    evaluation = json.loads(store().get(result.evaluation_bundle))
    assert [s["exit_reason"] for s in evaluation["sections"]] == ["interview_ended", "not_reached", "not_reached"]


async def test_the_fallback_plan_reads_well_for_a_title_like_topic(ts_env, worker, offline):
    offline.script("interview_planner", Fault(kind="server_error"), Fault(kind="server_error"))
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, topic="What on-call taught me", write_essay=False)
        await say(h, "interviewee", "hello.")
        plan = await h.query(QUERY_PLAN, result_type=PlanSnapshot)
        await control(h, "end")
        await h.result()
    texts = [q.text for s in plan.sections for q in s.questions]
    assert texts[0] == ("When you think about what on-call taught you, where does your story begin, and why does "
                        "it still matter to you?")
    assert not [t for t in texts if "you to what" in t or "taught me" in t]
    assert all(s.title and "what on-call" not in s.title.lower() for s in plan.sections)


async def test_the_offline_label_keeps_the_essay_title_a_heading(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), duration_seconds=60)
        await say(h, "interviewee", ANSWER)
        result: InterviewResult = await h.result()
    essay = store().get(result.essay)
    lines = essay.splitlines()
    assert lines[0] == "[offline test double]" and lines[1] == "" and lines[2].startswith("# ")
    assert result.title and lines[2] == f"# {result.title}"


async def test_a_three_session_follow_up_chain_merges_every_ancestor_in_order(ts_env, worker, offline):
    said = ["the first session: a settlement batch failed at three in the morning.",
            "the second session: the double charge came from a retry nobody made idempotent.",
            "the third session: we now replay every payment event before we page anyone."]
    handles = []
    async with worker(ts_env.client) as queue:
        previous = None
        for n, text in enumerate(said):
            extra = {"previous_session_id": previous, "follow_up_topic": f"Part {n + 1}"} if previous else \
                {"plan": adaptive_plan()}
            h = await start(ts_env, queue, duration_seconds=60, **extra)
            await say(h, "interviewer", f"Question {n + 1}: what happened next?")
            await say(h, "interviewee", text)
            result: InterviewResult = await h.result()
            handles.append(h)
            previous = result.workflow_id
        analysis_prompt = offline.calls("interview_analysis")[-1].messages[-1]["content"]
    merged = json.loads(store().get(result.transcript))
    ids = [h.id for h in handles]
    assert [(e["session_id"], e["text"]) for e in merged if e["speaker"] == "interviewee"] == list(zip(ids, said,
                                                                                                         strict=True))
    assert [e["session_id"] for e in merged if e["client_id"] != "engine"] == [ids[0], ids[0], ids[1], ids[1],
                                                                                ids[2], ids[2]]
    assert [ids.index(e["session_id"]) for e in merged] == sorted(ids.index(e["session_id"]) for e in merged)
    assert analysis_prompt.index(said[0]) < analysis_prompt.index(said[1]) < analysis_prompt.index(said[2])


async def test_a_rehearsal_asks_no_question_twice_and_ends_when_nothing_is_left(ts_env, worker, offline):
    """Rehearsal never drops an answer while the engine has questions, and the engine never asks a question again
    that was answered (the offline double proposes the next unasked plan question, then the closing invitation,
    then that again): once the plan and the closing invitation are answered the session ends (coverage_satisfied)
    and the report says how many answers were used. An answer over the engine's length limit goes in as several
    entries, cut between sentences. (Before: the closing question was asked again after every answer — 127 times
    in a persona rehearsal.)"""
    from client.interview.cli import RehearsalOptions, TranscriptAnswers, rehearse
    from models.interview.entries import TranscriptView
    from models.interview.names import MAX_ENTRY_CHARS, QUERY_TRANSCRIPT

    answers = [f"Answer {n}: the pager went off {n} times that week and I learned something new each time."
               for n in range(1, 49)]
    long_answer = " ".join(f"Sentence {i} of a very long story about the night the settlement batch failed."
                           for i in range(1, 140))
    assert len(long_answer) > MAX_ENTRY_CHARS
    answers[3] = long_answer
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, topic="Running on-call for a payments team", write_essay=False,
                        duration_seconds=3600)
        report = await rehearse(ts_env.client, h.id, TranscriptAnswers(answers),
                                RehearsalOptions(fresh_question_timeout=10, poll_seconds=0.05))
        result = await h.result()
        view = await h.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
    turns = report.turns
    assert 4 < turns < 48 and not report.rejected and report.stale_questions == 0
    assert len(set(report.questions)) == len(report.questions) == turns          # no question twice
    assert report.questions[-1] == GENERIC_CLOSING_QUESTION
    assert result.exit_reason == "coverage_satisfied" and report.exit_reason == "coverage_satisfied"
    assert report.summary().startswith(f"{turns} of 48 answers used")
    said = [e for e in view.entries if e.speaker == "interviewee"]
    assert all(len(e.text) <= MAX_ENTRY_CHARS for e in said)
    long_parts = [e.text for e in said if e.entry_id.startswith("rehearsal-t004-a")]
    assert len(long_parts) == 2 and " ".join(long_parts) == long_answer and long_parts[0].endswith(".")
    answered = {int(e.entry_id[len("rehearsal-t"):][:3]) for e in said}
    assert answered == set(range(1, turns + 1))

