"""Interview storage activities: full transcripts, archived segments, the session record a follow-up reads,
and the 003 export bundles (evaluation input, ops replay). Everything lands in the artifact store; the
workflow's history keeps only the refs. Writes are content-addressed, so a retried activity is harmless."""

from __future__ import annotations

import asyncio
import json

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.artifacts import store
from activities.interview.common import read_entries
from models.common import ArtifactRef
from models.interview.activities import (
    ArchiveInput,
    ExportInput,
    ExportRefs,
    LoadSessionInput,
    SaveTranscriptInput,
    SessionRecord,
    TranscriptRefs,
)
from models.interview.entries import TranscriptEntry
from models.interview.workflow import InterviewEvent
from rules.interview.entries import format_transcript, merge_transcripts
from rules.interview.events import to_jsonl


def _read_events(ref: ArtifactRef) -> list[InterviewEvent]:
    return [InterviewEvent.model_validate_json(line) for line in store().get(ref).splitlines() if line.strip()]


def _interview_archive_lines(inp: ArchiveInput) -> ArtifactRef:
    return store().put(inp.workflow_id, inp.name, "".join(line + "\n" for line in inp.lines), "application/jsonl")


@activity.defn(name="interview_archive_lines")
async def interview_archive_lines(inp: ArchiveInput) -> ArtifactRef:
    """Move old transcript entries / events / log lines out of workflow state (before continue-as-new)."""
    return await asyncio.to_thread(_interview_archive_lines, inp)


def _interview_save_transcript(inp: SaveTranscriptInput) -> TranscriptRefs:
    current: list[TranscriptEntry] = []
    for ref in inp.segments:
        current.extend(read_entries(ref))
    current.extend(inp.tail)
    entries = merge_transcripts(inp.previous, current)
    s = store()
    json_ref = s.put(inp.workflow_id, f"{inp.name}.json",
                     json.dumps([e.model_dump(mode="json") for e in entries], indent=1), "application/json")
    md_ref = s.put(inp.workflow_id, f"{inp.name}.md", format_transcript(entries) + "\n", "text/markdown")
    return TranscriptRefs(json_ref=json_ref, markdown_ref=md_ref, entries=len(entries))


@activity.defn(name="interview_save_transcript")
async def interview_save_transcript(inp: SaveTranscriptInput) -> TranscriptRefs:
    """The full transcript: a follow-up's previous session first, then archived segments, then the tail."""
    return await asyncio.to_thread(_interview_save_transcript, inp)


def _read_record(workflow_id: str) -> SessionRecord | None:
    text = store().read_optional(workflow_id, "session.json")
    return SessionRecord.model_validate_json(text) if text is not None else None


def _interview_load_session(inp: LoadSessionInput) -> SessionRecord:
    """The record, its transcript preceded by every ancestor's (a follow-up of a follow-up: the original session
    first, then each follow-up in order; each entry tagged with the session it was recorded in)."""
    record = _read_record(inp.workflow_id)
    if record is None:
        path = store().location(inp.workflow_id, "session.json")
        raise ApplicationError(f"no finished interview {inp.workflow_id!r} found (looked for {path}); "
                               f"previous_session_id must name a completed interview", type="ArtifactNotFound",
                               non_retryable=True)
    ancestors: list[SessionRecord] = []
    seen = {record.workflow_id}
    parent = record.plan.previous_session_id if record.plan else None
    while parent and parent not in seen:
        seen.add(parent)
        earlier = _read_record(parent)
        if earlier is None:
            activity.logger.warning("follow-up chain of %s: no record of %s (its entries are missing)",
                                    inp.workflow_id, parent)
            break
        ancestors.append(earlier)
        parent = earlier.plan.previous_session_id if earlier.plan else None
    merged: list[TranscriptEntry] = []
    for r in [*reversed(ancestors), record]:
        own = [e.model_copy(update={"session_id": e.session_id or r.workflow_id}) for e in r.transcript]
        merged = merge_transcripts(merged, own)
    return record.model_copy(update={"transcript": merged})


@activity.defn(name="interview_load_session")
async def interview_load_session(inp: LoadSessionInput) -> SessionRecord:
    """The record an earlier interview left (for a follow-up session)."""
    return await asyncio.to_thread(_interview_load_session, inp)


def _interview_export_bundles(inp: ExportInput) -> ExportRefs:
    s = store()
    events: list[InterviewEvent] = []
    for ref in inp.event_segments:
        events.extend(_read_events(ref))
    events.extend(inp.events_tail)
    entries = [TranscriptEntry.model_validate(e) for e in json.loads(s.get(inp.transcript))]
    wid = inp.workflow_id
    event_ref = s.put(wid, "event-log.jsonl", to_jsonl(events), "application/jsonl")
    sections = [a.model_dump(mode="json") for a in inp.sections]
    evaluation = {
        "interview_id": wid, "schema_version": inp.plan.schema_version, "status": inp.status,
        "exit_reason": inp.exit_reason, "plan": inp.plan.model_dump(mode="json"), "sections": sections,
        "transcript": [e.model_dump(mode="json") for e in entries if e.session_id in (None, wid)],
        "notes": inp.notes.model_dump(mode="json"), "title": inp.title,
        "slow_decisions": inp.slow_decisions,     # the Orchestrator's decision missed its bound: the fallback's
    }
    eval_ref = s.put(wid, "evaluation-bundle.json", json.dumps(evaluation, indent=1), "application/json")
    replay = {
        "interview_id": wid, "status": inp.status, "exit_reason": inp.exit_reason,
        "timeline": [e.model_dump(mode="json") for e in events],
        "transcript": [e.model_dump(mode="json") for e in entries],
        "code_history": [e.model_dump(mode="json") for e in entries if e.kind == "code"],
        "usage": inp.usage.model_dump(mode="json"),
    }
    replay_ref = s.put(wid, "ops-replay-bundle.json", json.dumps(replay, indent=1), "application/json")
    summaries_ref = s.put(wid, "section-summaries.json",
                          json.dumps([a.get("summary") for a in sections], indent=1), "application/json")
    notes_ref = s.put(wid, "notes.json", inp.notes.model_dump_json(indent=1), "application/json")
    log_lines: list[str] = []
    for ref in inp.activity_log_segments:
        log_lines.extend(s.get(ref).splitlines())
    log_lines.extend(inp.activity_log)
    log_ref = s.put(wid, "activity-log.txt", "\n".join(log_lines) + "\n", "text/plain")
    record = SessionRecord(workflow_id=wid, plan=inp.plan, notes=inp.notes,
                           transcript=[e for e in entries if e.session_id in (None, wid)],
                           follow_up=inp.follow_up, title=inp.title)
    record_ref = s.put(wid, "session.json", record.model_dump_json(), "application/json")
    return ExportRefs(event_log=event_ref, evaluation_bundle=eval_ref, replay_bundle=replay_ref,
                      section_summaries=summaries_ref, notes=notes_ref, activity_log=log_ref,
                      session_record=record_ref)


@activity.defn(name="interview_export_bundles")
async def interview_export_bundles(inp: ExportInput) -> ExportRefs:
    """003 §2.2 / §15: the event log (JSON lines), the evaluation input bundle, the ops replay bundle
    (timeline + transcript + code history), section summaries, notes, the activity log, the session record."""
    return await asyncio.to_thread(_interview_export_bundles, inp)
