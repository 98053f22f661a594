"""Writer (000): first-person ghostwritten essay in the speaker's voice; standard | punchy | reflective.
The essay goes to the artifact store (history keeps the ref). Its quotes go through the shared grounding check
(rules/grounding.py): a quoted span that is not the interviewee's exact words loses its quote marks and is flagged
in the text ("[unverified quote — ...]"), so it is never printed as a quote."""

from __future__ import annotations

from urllib.parse import quote

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once, store
from activities.interview.common import entries_context, load_transcript, transcript_text
from activities.llm import offline
from core.settings import serve_url
from models.common import AgentResult
from models.interview.activities import WriterInput, WriterOutput
from rules.grounding import flag_unverified
from rules.interview.entries import sentences

WRITER = AgentSpec("interview_writer", "interview/writer.md", WriterOutput, tier="high",  # free text: run_text
                   policy="long_agent", free_text=True, max_tokens=2048,
                   description="Interview: first-person essay in the interviewee's voice (3 styles)")
_LABEL = "[offline test double] "


def essay_title(text: str, fallback: str) -> str:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return fallback


@WRITER.activity
@completed_once
async def interview_writer(inp: WriterInput) -> AgentResult[WriterOutput]:
    entries = load_transcript(inp.transcript)
    text, usage = await WRITER.run_text(
        {"topic": inp.plan.topic, "angle": inp.plan.angle, "interviewee_name": inp.interviewee_name,
         "style": inp.style, "analysis": inp.analysis, "transcript": transcript_text(entries)},
        offline_context={"window": entries_context(entries), "style": inp.style,
                         "title": inp.analysis.suggested_title or inp.plan.topic})
    text, checks = flag_unverified(text, [e.text for e in entries if e.speaker == "interviewee"])
    unverified = [c.quote for c in checks if not c.verified]
    title = essay_title(text.removeprefix(_LABEL), inp.analysis.suggested_title or inp.plan.topic)
    ref = store().put(inp.workflow_id, "essay.md", text, "text/markdown")
    base = serve_url()
    if base:  # where a person opens it: the console's essay URL on `colloquy serve`
        ref = ref.model_copy(update={"url": f"{base}/api/interviews/{quote(inp.workflow_id, safe='')}/essay"})
    return AgentResult[WriterOutput](output=WriterOutput(essay=ref, title=title, words=len(text.split()),
                                                         quotes_verified=len(checks) - len(unverified),
                                                         quotes_unverified=unverified), usage=usage)


@WRITER.offline
def _offline_essay(req: offline.OfflineRequest) -> str | None:
    """An essay stitched from the interviewee's own sentences, in order (demo only; labelled offline)."""
    said = [s for e in req.context.get("window", []) if e["speaker"] == "interviewee" for s in sentences(e["text"])]
    if "window" not in req.context:
        return None
    title = req.context.get("title") or "Notes from a conversation"
    style = req.context.get("style", "standard")
    if not said:
        return f"# {title}\n\nThere was nothing said to write about yet."
    per_paragraph = {"punchy": 2, "standard": 4, "reflective": 6}.get(style, 4)
    paragraphs = [" ".join(said[i:i + per_paragraph]) for i in range(0, len(said), per_paragraph)]
    best = max(said, key=len)
    body = "\n\n".join(paragraphs)
    return f"# {title}\n\n{body}\n\n> \"{best}\"\n"

