"""What every discussion agent shares: the seed's BuildContext from message artifacts, the offline hints, and
saving the agent's contribution as a message artifact. Each role's model is forced per call with
`SPEC.run(..., model=inp.model)` (the platform's `config_for_call`)."""

from __future__ import annotations

import re
from typing import Any

from activities.artifacts import store
from activities.discussion.context import ContextMessage, build_context, format_ideas
from activities.llm import offline
from models.common import LLMUsage
from models.discussion.workflow import MessageRef, MessageType, TurnInput

ROLE_TITLES = {"leader": "Team Leader", "researcher": "Researcher", "ideation": "Ideation Specialist",
               "critic": "Critic", "implementer": "Implementer", "moderator": "Moderator"}
EXCERPT_CHARS = 280


def load_context(inp: TurnInput) -> str:
    """BuildContext over the message artifacts the workflow passed by reference."""
    artifacts = store()
    messages = [ContextMessage(m.from_role, m.to, artifacts.get(m.ref)) for m in inp.messages]
    return build_context(inp.topic, messages, inp.ideas)


def team_members(inp: TurnInput) -> list[str]:
    """The seed's member list for the leader: everyone but the leader."""
    return [ROLE_TITLES.get(r, r) for r in inp.team if r != "leader"]


def offline_context(inp: TurnInput, **extra: Any) -> dict[str, Any]:
    """Structured hints for the offline test double's deterministic answers (never sent to a real model)."""
    return {"topic": inp.topic, "round": inp.round, "max_rounds": inp.max_rounds, "mode": inp.mode,
            "min_ideas": inp.min_ideas, "team": list(inp.team), "role": inp.role,
            "ideas": [{"id": i.id, "title": i.title, "description": i.description, "overall": i.overall}
                      for i in inp.ideas], **extra}


def base_variables(inp: TurnInput) -> dict[str, Any]:
    return {"topic": inp.topic, "context": load_context(inp), "round": inp.round, "max_rounds": inp.max_rounds,
            "final_round": inp.round >= inp.max_rounds, "team": team_members(inp), "team_size": len(inp.team),
            "ideas": format_ideas(inp.ideas), "min_ideas": inp.min_ideas}


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def save_message(inp: TurnInput, kind: MessageType, text: str, usage: LLMUsage) -> MessageRef:
    """The contribution goes to the artifact store; the workflow keeps only the ref and an excerpt.
    Answers of the offline test double stay labelled as such, structured ones included."""
    if usage.offline:
        text = offline.label_text(text)       # never on a heading's line: the markdown stays markdown
    ref = store().put(inp.discussion_id, f"{inp.message_id}.md", text, "text/markdown")
    return MessageRef(id=inp.message_id, from_role=inp.role, to="team", type=kind, round=inp.round, ref=ref,
                      excerpt=excerpt(text), offline=usage.offline)


_QUESTION_WORDS = {"how", "can", "could", "should", "would", "what", "why", "which", "who", "when", "where",
                   "do", "does", "did", "is", "are", "we", "i", "you", "our", "a", "an", "the", "to", "best", "way"}


def topic_words(topic: str, limit: int = 6) -> str:
    """A short subject phrase from the topic (offline responders build their deterministic answers from it)."""
    words = [w for w in re.sub(r"[^\w\s-]", " ", topic).split() if w.lower() not in _QUESTION_WORDS]
    return " ".join(words[:limit]) or "the topic"
