"""BuildContext (seed 002, "Context Accumulation"): what every agent sees.

    Topic: {topic}

    Previous Discussion:
    [from -> to]: {content}
    ...

    Current Ideas:
    1. [I1] {title} - {description}
       Score: {score}/10

Each agent gets the full discussion history; past MAX_CONTEXT_CHARS the kickoff and the most recent messages
are kept and the middle is elided with a marker (so a long full-level discussion still fits a model's window).
"""

from __future__ import annotations

from dataclasses import dataclass

from models.discussion.workflow import Idea

MAX_CONTEXT_CHARS = 24_000
MAX_MESSAGE_CHARS = 6_000


@dataclass(frozen=True)
class ContextMessage:
    from_role: str
    to: str
    content: str


def _message_line(m: ContextMessage) -> str:
    content = m.content.strip()
    if len(content) > MAX_MESSAGE_CHARS:
        content = content[:MAX_MESSAGE_CHARS].rstrip() + f" […{len(content) - MAX_MESSAGE_CHARS} characters cut]"
    return f"[{m.from_role} -> {m.to}]: {content}"


def format_ideas(ideas: list[Idea]) -> str:
    if not ideas:
        return "(no ideas yet)"
    lines = []
    for n, idea in enumerate(ideas, start=1):
        lines.append(f"{n}. [{idea.id}] {idea.title} - {idea.description}")
        if idea.overall is not None:
            lines.append(f"   Score: {idea.overall}/10")
    return "\n".join(lines)


def build_context(topic: str, messages: list[ContextMessage], ideas: list[Idea],
                  max_chars: int = MAX_CONTEXT_CHARS) -> str:
    lines = [_message_line(m) for m in messages]
    head = f"Topic: {topic}\n\nPrevious Discussion:\n"
    tail = f"\n\nCurrent Ideas:\n{format_ideas(ideas)}"
    budget = max_chars - len(head) - len(tail)
    if sum(len(line) + 1 for line in lines) > budget and len(lines) > 1:
        first, rest = lines[0], lines[1:]
        kept: list[str] = []
        used = len(first) + 1
        for line in reversed(rest):
            if used + len(line) + 1 > budget - 80:
                break
            kept.insert(0, line)
            used += len(line) + 1
        omitted = len(rest) - len(kept)
        lines = [first] + ([f"[... {omitted} earlier message(s) omitted for length ...]"] if omitted else []) + kept
    body = "\n".join(lines) if lines else "(nothing yet)"
    return head + body + tail
