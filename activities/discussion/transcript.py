"""`discussion_transcript`: assemble message artifacts into one markdown transcript (per round, and whole)."""

from __future__ import annotations

import asyncio

from temporalio import activity

from activities.artifacts import store
from activities.discussion.common import ROLE_TITLES
from models.common import OFFLINE_LABEL, ArtifactRef
from models.discussion.workflow import MessageRef, TranscriptInput


def render_transcript(title: str, messages: list[tuple[MessageRef, str]]) -> str:
    parts = [f"# {title}", ""]
    for msg, text in messages:
        who = ROLE_TITLES.get(msg.from_role, msg.from_role)
        where = f"round {msg.round}" if msg.round else "outside the rounds"
        by = f" {OFFLINE_LABEL}" if msg.offline else ""
        parts += [f"## {msg.id} · {msg.type} · {who}{by} → {msg.to} ({where})", "", text.strip(), ""]
    return "\n".join(parts)


def _discussion_transcript(inp: TranscriptInput) -> ArtifactRef:
    artifacts = store()
    text = render_transcript(inp.title, [(m, artifacts.get(m.ref)) for m in inp.messages])
    return artifacts.put(inp.discussion_id, inp.name, text, "text/markdown")


@activity.defn(name="discussion_transcript")
async def discussion_transcript(inp: TranscriptInput) -> ArtifactRef:
    return await asyncio.to_thread(_discussion_transcript, inp)
