"""The study's non-LLM activities (workflow task queue):

- `study_lookup_interviews`: the participants' interviews looked up by id through Temporal (describe, the
  `session_state` query, the result) — the study holds no child handles, so any run after continue-as-new finds
  them the same way.
- `study_reduce`: every digest (artifacts) → the reduced findings (rules/study/analysis.py).
  Every quote is checked verbatim against its participant's answers as they corrected them (rules/study/
  corrections.py): a corrected answer is never quoted in its original words.
- `study_publish`: every quote checked verbatim against its participant's transcript (rules/grounding.py; flagged
  ones moved out), then findings.json, findings.md and report.html saved in the artifact store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime

from temporalio import activity
from temporalio.client import WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from activities.artifacts import store
from activities.interview.common import load_transcript
from models.interview.entries import TranscriptEntry, TranscriptView
from models.interview.names import QUERY_SESSION_STATE, QUERY_TRANSCRIPT
from models.interview.workflow import InterviewResult, SessionState
from models.study.activities import InterviewDigest, InterviewLookup, LookupInput, PublishInput, ReduceInput
from models.study.workflow import Correction, FindingQuote, Findings, StudyOutputs
from rules.grounding import check_quote
from rules.study.analysis import answers_of, reduce_digests
from rules.study.corrections import corrected_entries
from rules.study.report import to_html, to_markdown

LOOKUP_CONCURRENCY = 16


async def _lookup(interview_id: str) -> InterviewLookup:
    handle = activity.client().get_workflow_handle(interview_id, result_type=InterviewResult)
    try:
        desc = await handle.describe()
        if desc.status == WorkflowExecutionStatus.RUNNING:
            s = await handle.query(QUERY_SESSION_STATE, result_type=SessionState)
            paused = None
            if s.status == "PAUSED" and s.paused_since is not None:
                paused = (datetime.now(UTC) - s.paused_since).total_seconds()
            view = await handle.query(QUERY_TRANSCRIPT, result_type=TranscriptView)
            return InterviewLookup(interview_id=interview_id, state="running", session_status=s.status,
                                   paused_reason=s.paused_reason, paused_seconds=paused,
                                   answers=len(answers_of(view.entries)))
        if desc.status != WorkflowExecutionStatus.COMPLETED:
            name = desc.status.name.lower() if desc.status else "unknown"
            return InterviewLookup(interview_id=interview_id, state="failed", error=f"the interview {name}")
        result = await handle.result()
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            return InterviewLookup(interview_id=interview_id, state="missing", error="no such interview")
        raise
    answers, length = 0, None
    if result.transcript is not None:
        entries = load_transcript(result.transcript)
        answers = len(answers_of(entries))
        elapsed = [e.elapsed_seconds for e in entries if e.elapsed_seconds is not None]
        length = max(elapsed) if elapsed else None
    return InterviewLookup(interview_id=interview_id, state="finished", session_status=result.status,
                           exit_reason=result.exit_reason, transcript=result.transcript, answers=answers,
                           length_seconds=length)


@activity.defn
async def study_lookup_interviews(inp: LookupInput) -> list[InterviewLookup]:
    gate = asyncio.Semaphore(LOOKUP_CONCURRENCY)

    async def one(wid: str) -> InterviewLookup:
        async with gate:
            return await _lookup(wid)

    return list(await asyncio.gather(*(one(w) for w in inp.interview_ids)))


def _reduce(inp: ReduceInput) -> Findings:
    digests = [InterviewDigest.model_validate_json(store().get(ref)) for ref in inp.digests]
    f = reduce_digests(inp.study_id, inp.topic, inp.research_goal, inp.analysis_language, inp.plan, digests,
                       inp.mapping, inp.abandoned, datetime.now(UTC))
    for q in _all_quotes(f):
        q.transcript = q.transcript or inp.transcripts.get(q.participant_id)
        q.interview_id = q.interview_id or inp.interviews.get(q.participant_id)
    _ground(f, inp.corrections)
    return f


Said = tuple[list[TranscriptEntry], set[str], list[str]]


def _answers(q: FindingQuote, corrections: Mapping[str, list[Correction]], cache: dict[str, Said]) -> Said:
    """(the participant's answers as corrected, the ids of the corrected ones, their original words)."""
    if q.transcript is None:
        return [], set(), []
    if q.transcript.uri not in cache:
        original = load_transcript(q.transcript)
        entries, changed = corrected_entries(original, corrections.get(q.participant_id, []))
        cache[q.transcript.uri] = (answers_of(entries), changed,
                                   [e.text for e in answers_of(original) if e.entry_id in changed])
    return cache[q.transcript.uri]


def _ground(f: Findings, corrections: Mapping[str, list[Correction]] | None = None) -> None:
    """Every quote checked verbatim against its participant's answers as they corrected them (a corrected
    answer's original words are no longer theirs: such a quote fails); one that fails is moved to the flagged
    quotes (with why) and printed nowhere as a quote. A quote from a corrected answer is marked `corrected`."""
    cache: dict[str, Said] = {}

    def check(q: FindingQuote) -> bool:
        said, changed, superseded = _answers(q, corrections or {}, cache)
        result = check_quote(q.text, [e.text for e in said])
        q.verified, q.check, q.flag = result.verified, result.status, result.flag
        if result.verified and result.source is not None:
            q.entry_id = said[result.source].entry_id
            q.corrected = q.entry_id in changed
        elif not (superseded and check_quote(q.text, superseded).verified):  # replaced words: not even flagged
            q.corrected = False
            f.flagged_quotes.append(q.model_copy())
        return q.verified

    for t in f.themes:
        t.quotes = [q for q in t.quotes if check(q)]
    for m in f.minority_views:
        if m.quote is not None and not check(m.quote):
            m.quote = None


@activity.defn
async def study_reduce(inp: ReduceInput) -> Findings:
    return await asyncio.to_thread(_reduce, inp)


def _all_quotes(f: Findings) -> list[FindingQuote]:
    quotes = [q for t in f.themes for q in t.quotes]
    quotes += [m.quote for m in f.minority_views if m.quote is not None]
    return quotes


def _publish(inp: PublishInput) -> StudyOutputs:
    """Render and save. The quotes were verified by `study_reduce`; only verified ones are printed as quotes."""
    f = inp.findings
    quoted = {q.participant_id: q.transcript for q in _all_quotes(f) if q.verified and q.transcript}
    transcripts: dict[str, list[TranscriptEntry]] = {}
    corrected: dict[str, set[str]] = {}
    for pid, ref in quoted.items():      # as the participants corrected them (the quotes were checked against it)
        transcripts[pid], corrected[pid] = corrected_entries(load_transcript(ref), inp.corrections.get(pid, []))
    s = store()
    json_ref = s.put(f.study_id, "findings.json", f.model_dump_json(indent=1), "application/json")
    md_ref = s.put(f.study_id, "findings.md", to_markdown(f), "text/markdown")
    html_ref = s.put(f.study_id, "report.html", to_html(f, transcripts, corrected), "text/html")
    return StudyOutputs(findings_json=json_ref, findings_md=md_ref, report_html=html_ref,
                        quotes_verified=sum(1 for q in _all_quotes(f) if q.verified),
                        quotes_flagged=len(f.flagged_quotes))


@activity.defn
async def study_publish(inp: PublishInput) -> StudyOutputs:
    return await asyncio.to_thread(_publish, inp)
