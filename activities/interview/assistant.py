"""The interviewee's assistant channel (003 §8): definitions and nudges only; post-checked for code and
length. It never touches section state (the workflow only logs ASSISTANT_QUERY / ASSISTANT_RESPONSE)."""

from __future__ import annotations

from pydantic import BaseModel

from activities.agents.base import AgentSpec
from activities.interview.common import language_label
from models.common import AgentResult
from models.interview.activities import AssistantInput
from models.interview.entries import AssistantAnswer

MAX_WORDS = 150


class _Text(BaseModel):
    text: str


ASSISTANT = AgentSpec("interview_assistant", "interview/assistant.md", _Text, tier="low",
                      policy="fast_agent", free_text=True, max_tokens=400,
                      description="Interview: bounded assistant for the interviewee (003 §8)")


def police(text: str) -> tuple[str, bool, str | None]:
    """003 §8.2 MVP enforcement: code blocks and long answers are cut and flagged."""
    if "```" in text or text.count("\n    ") >= 3:
        return ("The assistant can explain concepts but cannot provide code.", True, "code in assistant answer")
    words = text.split()
    if len(words) > MAX_WORDS:
        return (" ".join(words[:MAX_WORDS]) + " …", True, f"answer over {MAX_WORDS} words")
    return text, False, None


@ASSISTANT.activity
async def interview_assistant(inp: AssistantInput) -> AgentResult[AssistantAnswer]:
    text, usage = await ASSISTANT.run_text(
        {"topic": inp.topic, "section_title": inp.section_title, "section_goal": inp.section_goal,
         "question": inp.query.text, "language": language_label(inp.language)},
        offline_context={"question": inp.query.text})
    text, flagged, reason = police(text.strip())
    return AgentResult[AssistantAnswer](output=AssistantAnswer(query_id=inp.query.query_id, text=text,
                                                               flagged=flagged, flag_reason=reason), usage=usage)


ASSISTANT.offline(lambda req: f"A short conceptual hint about: {req.context.get('question', '')[:200]}"
                  if "question" in req.context else None)
