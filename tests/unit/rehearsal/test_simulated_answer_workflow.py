"""SimulatedAnswerWorkflow on the time-skipping server: the persona agent as an activity, its fallback, idempotency."""

from __future__ import annotations

import uuid

from activities.llm.offline import Fault
from activities.rehearsal.interviewee import Exchange, IntervieweeInput, Persona, SimulatedAnswer
from client.interview.cli import PersonaAnswers
from models.interview.entries import TranscriptEntry
from models.rehearsal.workflow import answer_workflow_id
from tests.conftest import HISTORIES, replay, replay_recorded
from workflows.rehearsal.workflow import SimulatedAnswerWorkflow

HISTORY = "rehearsal_simulated_answer"   # recorded once, committed; re-record by deleting the JSON
MAYA = Persona(name="Maya Okafor", role="staff engineer", voice="dry, direct",
               stories=["A certificate expired at 2 a.m. on Black Friday."], opinions=["Review config like code."])


def _input(turn: int = 1, interview_id: str | None = None) -> IntervieweeInput:
    return IntervieweeInput(interview_id=interview_id or f"interview-test-{uuid.uuid4().hex[:6]}", turn=turn,
                            topic="on-call", persona=MAYA, question="What was your worst night on call?",
                            recent=[Exchange(speaker="interviewer", text="Welcome, Maya.")])


async def test_answer_comes_from_the_agent_with_persona_and_question_in_the_prompt(ts_env, worker, offline):
    offline.script("rehearsal_interviewee", {"answer": "Honestly? Black Friday, a dead certificate, forty minutes."})
    async with worker(ts_env.client) as queue:
        inp = _input()
        handle = await ts_env.client.start_workflow(SimulatedAnswerWorkflow.run, inp,
                                                    id=answer_workflow_id(inp.interview_id, 1), task_queue=queue)
        result: SimulatedAnswer = await handle.result()
        await replay(handle, record_as=None if (HISTORIES / f"{HISTORY}.json").exists() else HISTORY)
    assert result.answer == "Honestly? Black Friday, a dead certificate, forty minutes."
    assert not result.fallback and result.usage is not None and result.usage.offline
    (call,) = offline.calls("rehearsal_interviewee")
    prompt = "\n".join(m["content"] for m in call.messages)
    assert "Maya Okafor" in prompt and "What was your worst night on call?" in prompt
    assert "A certificate expired at 2 a.m." in prompt and "interviewer: Welcome, Maya." in prompt


async def test_provider_outage_falls_back_to_the_personas_own_material(ts_env, worker, offline):
    offline.script("rehearsal_interviewee", Fault(kind="server_error"), Fault(kind="server_error"))
    async with worker(ts_env.client) as queue:
        result = await ts_env.client.execute_workflow(SimulatedAnswerWorkflow.run, _input(),
                                                      id=f"rehearsal-outage-{uuid.uuid4().hex[:6]}", task_queue=queue)
    assert result.fallback and result.answer == "A certificate expired at 2 a.m. on Black Friday."
    assert "server" in (result.error or "").lower() or "500" in (result.error or "")
    assert len(offline.calls("rehearsal_interviewee")) == 2  # live_agent policy: two attempts, then fallback


async def test_garbage_output_is_reasked_then_falls_back(ts_env, worker, offline):
    offline.script("rehearsal_interviewee", *[Fault(kind="invalid_json")] * 4)
    async with worker(ts_env.client) as queue:
        result = await ts_env.client.execute_workflow(SimulatedAnswerWorkflow.run, _input(turn=2),
                                                      id=f"rehearsal-garbage-{uuid.uuid4().hex[:6]}", task_queue=queue)
    assert result.fallback and result.answer == "Review config like code."
    assert "InvalidLLMOutput" in (result.error or "") or "invalid" in (result.error or "").lower()


async def test_same_turn_twice_gives_the_same_answer_and_one_llm_call(ts_env, worker, offline):
    offline.script("rehearsal_interviewee", {"answer": "First answer."}, {"answer": "A different answer."})
    async with worker(ts_env.client) as queue:
        source = PersonaAnswers(ts_env.client, f"interview-idem-{uuid.uuid4().hex[:6]}", "on-call", MAYA, queue)
        recent = [TranscriptEntry(entry_id="q1", speaker="interviewer", text="Worst night?")]
        first = await source.answer(1, "Worst night?", recent)
        again = await source.answer(1, "Worst night?", recent)  # a restarted client asks for the same turn
        second = await source.answer(2, "What changed after?", recent)
    assert first == again == "First answer."
    assert second == "A different answer."
    assert len(offline.calls("rehearsal_interviewee")) == 2
    assert source.offline and source.fallbacks == 0


async def test_recorded_history_replays_against_current_code():
    await replay_recorded(HISTORY)
