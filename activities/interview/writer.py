"""Writer (000): first-person ghostwritten essay in the speaker's voice; standard | punchy | reflective.
The essay goes to the artifact store (history keeps the ref). The model's essay is checked like input at a door
(rules/interview/essay_repair.py): a sentence with a quote that is not the interviewee's exact words, speaker
residue ("The Interviewer:"), template debris, third-person narration, a name they never said, or too few of
their own words is dropped; when too little survives, the essay is the interviewee's own sentences (the extractive
essay the offline double writes too), labelled "extractive: the model's essay did not hold to the transcript".
The essay and the result say how much was dropped."""

from __future__ import annotations

from urllib.parse import quote

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once, store
from activities.interview.common import entries_context, language_label, load_transcript, transcript_text
from activities.llm import offline
from core.settings import serve_url
from models.common import AgentResult
from models.interview.activities import WriterInput, WriterOutput
from rules.interview.essay_checks import Speaker, title_reject
from rules.interview.essay_repair import extractive_essay, repair_essay

WRITER = AgentSpec("interview_writer", "interview/writer.md", WriterOutput, tier="high",  # free text: run_text
                   policy="long_agent", free_text=True, max_tokens=2048,
                   description="Interview: first-person essay in the interviewee's voice (3 styles)")
@WRITER.activity
@completed_once
async def interview_writer(inp: WriterInput) -> AgentResult[WriterOutput]:
    entries = load_transcript(inp.transcript)
    text, usage = await WRITER.run_text(
        {"topic": inp.plan.topic, "angle": inp.plan.angle, "interviewee_name": inp.interviewee_name,
         "style": inp.style, "analysis": inp.analysis, "transcript": transcript_text(entries),
         "language": language_label(inp.plan.language)},
        offline_context={"window": entries_context(entries), "style": inp.style,
                         "title": inp.analysis.suggested_title or inp.plan.topic})
    labelled = text.lstrip().startswith(offline.OFFLINE_LABEL)
    who = Speaker.of([e.text for e in entries if e.speaker == "interviewee"], inp.interviewee_name)
    suggested = inp.analysis.suggested_title      # the analysis's title is model output too: checked the same way
    fallback = suggested if suggested and title_reject(suggested, who) is None else inp.plan.topic
    repaired = repair_essay(text.lstrip().removeprefix(offline.OFFLINE_LABEL), who, fallback, inp.style)
    text, title = repaired.text, repaired.title
    if labelled:
        text = offline.label_text(text)
    ref = store().put(inp.workflow_id, "essay.md", text, "text/markdown")
    base = serve_url()
    if base:  # where a person opens it: the console's essay URL on `colloquy serve`
        ref = ref.model_copy(update={"url": f"{base}/api/interviews/{quote(inp.workflow_id, safe='')}/essay"})
    out = WriterOutput(essay=ref, title=title, words=len(text.split()), quotes_verified=repaired.quotes_verified,
                       quotes_unverified=repaired.quotes_dropped, sentences_written=repaired.written,
                       sentences_kept=repaired.kept, sentences_dropped=repaired.dropped,
                       extractive=repaired.extractive, grounding_note=repaired.note[:600])
    return AgentResult[WriterOutput](output=out, usage=usage)


@WRITER.offline
def _offline_essay(req: offline.OfflineRequest) -> str | None:
    """An essay stitched from the interviewee's own sentences, in order (demo only; labelled offline)."""
    if "window" not in req.context:
        return None
    said = [e["text"] for e in req.context["window"] if e["speaker"] == "interviewee"]
    return extractive_essay(said, req.context.get("title") or "Notes from a conversation",
                            req.context.get("style", "standard"))
