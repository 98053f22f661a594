"""The baseline of `bench.interview_scale`: the same live agents driven by one plain asyncio task per session —
the engine's cycle rule (wake on new entries or every CYCLE s; NoteTaker ∥ Researcher on new content, then the
Orchestrator unless a question is waiting for its answer), the same windows, merge and fallback logic; nothing
durable, no server, no history."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import cast

from bench.interview_common import ANSWERS
from bench.scale_metrics import Result

CYCLE = 10.0    # the engine's wake-up when nothing arrives (InterviewInput.cycle_seconds in the Temporal runs)

async def asyncio_session(index: int, n: int, exchanges: int, res: Result, pace: float) -> None:
    """The same live agents, the engine's cycle rule (wake on new entries or every 10 s; NoteTaker ∥ Researcher
    with new content, then the Orchestrator), in one plain asyncio task: no server, no history, no durability."""
    from activities.interview import interview_note_taker, interview_orchestrator, interview_researcher
    from models.interview.activities import NoteTakerInput, OrchestratorInput, ResearcherInput
    from models.interview.entries import TranscriptEntry
    from models.interview.names import Phase
    from models.interview.notes import NotesState, ResearchItem
    from rules.interview import cadence, coverage, decisions
    from rules.interview.notes import merge_notes, summary_text
    from rules.interview.phases import phase_for
    from rules.interview.plan import default_plan

    await asyncio.sleep(index * pace / n)
    topic = f"What on-call taught me #{index}"
    plan = default_plan(topic, "", "adaptive", 900)
    started = time.monotonic()
    tail: list[TranscriptEntry] = []
    notes = NotesState()
    research: list[ResearchItem] = []
    asked: set[str] = set()
    decision = decisions.fallback_decision(plan, asked, "opening")
    processed = 0
    wake = asyncio.Event()
    orchestrations: list[tuple[float, float]] = []  # (request, response) wall times
    done = False

    async def live_loop() -> None:
        nonlocal notes, decision, processed
        while not done:
            try:
                await asyncio.wait_for(wake.wait(), CYCLE)
            except TimeoutError:
                pass
            wake.clear()
            new = len(tail) - processed
            up_to = len(tail)
            if any(e.speaker == "interviewee" for e in tail[processed:]):   # like the engine: new answers only
                nt, rs = await asyncio.gather(
                    interview_note_taker(NoteTakerInput(
                        topic=topic, research_goal=plan.research_goal, angle=plan.angle,
                        window=cadence.lines(cadence.listen_window(tail, processed, cadence.NOTES_WINDOW)),
                        notes_text=summary_text(notes))),
                    interview_researcher(ResearcherInput(
                        topic=topic, window=cadence.lines(cadence.listen_window(tail, processed, cadence.RESEARCH_WINDOW)),
                        existing_topics=[r.topic for r in research])))
                notes = merge_notes(notes, nt.output)
                research.extend(rs.output.items)
            processed = up_to
            if not new or tail[-1].speaker == "interviewer":
                continue  # like the engine: nothing new, or the interviewer's question is waiting for its answer
            asked_now = time.time()
            elapsed = time.monotonic() - started
            phase = cast(Phase, phase_for(elapsed, 900))
            out = await interview_orchestrator(OrchestratorInput(
                topic=topic, research_goal=plan.research_goal, angle=plan.angle,
                plan_coverage=coverage.plan_coverage_text(plan, asked),
                window=cadence.lines(cadence.window(tail, cadence.ORCHESTRATOR_WINDOW)), notes_text=summary_text(notes),
                research=research[-cadence.RESEARCH_IN_PROMPT:],
                elapsed_seconds=elapsed, target_seconds=900, phase=phase,
                fallback=decisions.fallback_decision(plan, asked, phase)))
            orchestrations.append((asked_now, time.time()))
            decision = out.output
            if decision.next_question.source_question_id:
                asked.add(decision.next_question.source_question_id)

    loop = asyncio.create_task(live_loop())
    sent: list[float] = []
    for turn in range(1, exchanges + 1):
        began = time.monotonic()
        tail.append(TranscriptEntry(entry_id=f"q{turn}", speaker="interviewer", text=decision.next_question.text,
                                    seq=len(tail) + 1, received_at=datetime.now(UTC)))
        wake.set()
        await asyncio.sleep(max(0.0, pace / 2 - (time.monotonic() - began)))
        sent.append(time.time())
        tail.append(TranscriptEntry(entry_id=f"a{turn}", speaker="interviewee",
                                    text=ANSWERS[(index + turn) % len(ANSWERS)], seq=len(tail) + 1,
                                    received_at=datetime.now(UTC)))
        wake.set()
        await asyncio.sleep(max(0.0, pace - (time.monotonic() - began)))
    await asyncio.sleep(CYCLE / 2)
    done = True
    wake.set()
    await loop
    for at in sent:
        hit = next((end for start, end in orchestrations if start >= at), None)
        if hit is None:
            res.missed += 1
        else:
            res.latencies.append(hit - at)
        res.decisions.append((at, None if hit is None else hit - at))


async def run_asyncio(n: int, exchanges: int, pace: float) -> Result:
    # every session has its first question at its start (no plan to wait for): the steady state begins once the
    # last one has started, one pace after the first
    res = Result(pace=pace, steady_at=time.time() + pace)
    began = time.monotonic()
    await asyncio.gather(*(asyncio_session(i, n, exchanges, res, pace) for i in range(n)))
    res.wall_s = time.monotonic() - began
    return res
