"""The simulated interviewee: answers an interviewer's question in a persona's voice (rehearsals, demo, benches).

One agent = one module: its payloads, its prompt (`prompts/rehearsal/interviewee.md`), its activity, its
fallback (`fallback_answer`, used by the workflow when the model is down or returns garbage) and its offline
responder (a deterministic default for keyless demos: it answers from the persona's own stories and opinions).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from activities.agents.base import AgentSpec
from activities.llm import offline
from models.common import MAX_ITEMS, AgentResult, IdStr, LineStr, LLMUsage, NameStr, TextStr

#: How many recent transcript lines the persona sees (enough to avoid repeating itself, cheap to send).
RECENT_WINDOW = 8
MAX_ANSWER_CHARS = 2000


class Persona(BaseModel):
    """Who the simulated interviewee is. Loaded from client/rehearsal/personas/*.yaml."""

    name: str = Field(min_length=1, max_length=80)
    role: str = Field(default="", max_length=200)
    background: str = Field(default="", max_length=2000)
    voice: str = Field(default="", max_length=500, description="How they talk: register, rhythm, pet phrases.")
    opinions: list[LineStr] = Field(default_factory=list, max_length=MAX_ITEMS)
    stories: list[LineStr] = Field(default_factory=list, max_length=MAX_ITEMS)


class Exchange(BaseModel):
    speaker: IdStr
    text: TextStr


class IntervieweeInput(BaseModel):
    interview_id: IdStr = Field(description="The InterviewWorkflow this answer belongs to.")
    turn: int = Field(ge=1, description="1-based answer number within the rehearsal.")
    topic: NameStr
    persona: Persona
    question: str = Field(min_length=1, max_length=4000)
    recent: list[Exchange] = Field(default_factory=list, max_length=MAX_ITEMS, description=f"Last {RECENT_WINDOW} transcript lines.")


class IntervieweeAnswer(BaseModel):
    answer: str = Field(min_length=1, max_length=MAX_ANSWER_CHARS,
                        description="What the interviewee says, first person, spoken style.")


class SimulatedAnswer(BaseModel):
    """What the rehearsal workflow returns to the thin client."""

    answer: str
    fallback: bool = False
    error: str | None = None
    usage: LLMUsage | None = None


INTERVIEWEE = AgentSpec("rehearsal_interviewee", "rehearsal/interviewee.md", IntervieweeAnswer, tier="low",
                        role="writer", policy="live_agent", max_tokens=600,
                        description="simulated interviewee for rehearsals: answers in a persona's voice")


@INTERVIEWEE.activity
async def rehearsal_interviewee(inp: IntervieweeInput) -> AgentResult[IntervieweeAnswer]:
    recent = inp.recent[-RECENT_WINDOW:]
    return await INTERVIEWEE.run(
        {"persona": inp.persona.model_dump(), "topic": inp.topic, "question": inp.question,
         "recent": [e.model_dump() for e in recent], "turn": inp.turn},
        offline_context={"persona": inp.persona.model_dump(), "question": inp.question, "turn": inp.turn},
    )


def fallback_answer(persona: Persona, turn: int) -> str:
    """When the model fails: the persona's own material, in turn (deterministic: same turn, same line)."""
    material = persona.stories + persona.opinions
    if not material:
        return "I need a moment to think about that one. Could you ask it another way?"
    return material[(turn - 1) % len(material)]


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_STOP = {"what", "that", "this", "with", "your", "have", "about", "when", "where", "which", "would", "there",
         "tell", "from", "they", "them", "were", "been", "into", "more", "most", "some", "does", "could", "should"}


@INTERVIEWEE.offline
def offline_answer(req: offline.OfflineRequest) -> dict | None:
    """Offline default (demo only): answer from the persona's material, echoing the question's key words."""
    persona = req.context.get("persona")
    if not persona:
        return None
    p = Persona.model_validate(persona)
    turn = int(req.context.get("turn", 1))
    words = [w.lower() for w in _WORD.findall(str(req.context.get("question", ""))) if w.lower() not in _STOP]
    lead = f"On {' and '.join(words[:2])}: " if words else ""
    return {"answer": (lead + fallback_answer(p, turn))[:MAX_ANSWER_CHARS]}

